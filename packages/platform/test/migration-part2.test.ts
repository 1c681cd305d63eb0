/** A database made before part 2 (schema version 2) opens with the part-2 tables made and its
 * portals given what part 2 seeds (a blog, a domain, a layout, a site map, social channels). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createPlatform, createPortal } from '../src';
import { SCHEMA_VERSION } from '../src/db/schema';

const dir = mkdtempSync(join(tmpdir(), 'svc-migration-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PART2_TABLES = ['content_objects', 'content_versions', 'content_history', 'keywords', 'settings', 'social_channels', 'broadcasts', 'prospect_views', 'prospect_hidden'];

describe('schema migration to part 2', () => {
  it('brings a version 2 database and its portals up to date', async () => {
    const file = join(dir, 'v2.db');
    const made = createPlatform({ database: file, logger: false, filesDir: join(dir, 'files') });
    createPortal(made.db, { id: 7, name: 'Old portal', tier: 'starter', now: 1 });
    // Back to what a part-1 platform left: no part-2 tables, version 2, and v3's old index name.
    for (const table of PART2_TABLES) made.db.exec(`DROP TABLE ${table}`);
    made.db.prepare("UPDATE meta SET value = '2' WHERE key = 'schema_version'").run();
    await made.close();

    const platform = createPlatform({ database: file, logger: false, filesDir: join(dir, 'files') });
    try {
      expect(platform.db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get()).toBe(String(SCHEMA_VERSION));
      expect(platform.services.content.list(7, 'blogs', { limit: 5 }, new Set()).objects.map((b) => b.name)).toEqual(['Blog']);
      expect(platform.services.content.list(7, 'domains', { limit: 5 }, new Set()).total).toBe(1);
      expect(platform.services.social.listChannels(7).map((c) => c.type)).toEqual(['Twitter', 'LinkedIn']);
    } finally {
      await platform.close();
    }
    // Opening again seeds nothing twice.
    const again = createPlatform({ database: file, logger: false, filesDir: join(dir, 'files') });
    expect(again.services.content.list(7, 'blogs', { limit: 5 }, new Set()).total).toBe(1);
    expect(again.services.social.listChannels(7)).toHaveLength(2);
    await again.close();
  });

  it('drops the version 3 index that version 4 replaced', async () => {
    const file = join(dir, 'v3.db');
    const made = createPlatform({ database: file, logger: false, filesDir: join(dir, 'files') });
    made.db.exec('CREATE INDEX content_group ON content_objects(portal_id, collection, content_group_id, deleted_at, publish_date)');
    made.db.prepare("UPDATE meta SET value = '3' WHERE key = 'schema_version'").run();
    await made.close();
    const platform = createPlatform({ database: file, logger: false, filesDir: join(dir, 'files') });
    const indexes = platform.db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'content_objects'").pluck().all();
    expect(indexes).toContain('content_group_state');
    expect(indexes).not.toContain('content_group');
    await platform.close();
    const check = new Database(file);
    expect(check.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get()).toBe(String(SCHEMA_VERSION));
    check.close();
  });
});
