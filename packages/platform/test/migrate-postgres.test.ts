/** `svc-platform migrate`: the demo's SQLite database (every area seeded, plus synthetic contacts)
 * copied into PostgreSQL by the built CLI; then every table holds the same rows on both. */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatform } from '../src';
import { type Engine, sql } from '../src/db/engine';
import { sqliteEngine } from '../src/db/engine-sqlite';
import { openDatabase } from '../src/db/open';
import { postgresEngine } from '../src/db/engine-postgres';
import { seedDemo } from '../src/seed';
import { seedContacts } from '../src/seed-contacts';
import { havePostgres, PG_URL, pgSchema, withSearchPath } from './postgres';

const CLI = fileURLToPath(new URL('../bin/svc-platform.js', import.meta.url));
const run = promisify(execFile);
const schema = await pgSchema('migrate');
/** The schema travels in the URL, as a user's own options would. */
const target = withSearchPath(PG_URL, schema);

describe.skipIf(!havePostgres)('svc-platform migrate', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-migrate-'));
  const file = join(dir, 'platform.db');
  let lite: Engine;
  let pg: Engine;

  beforeAll(async () => {
    const platform = createPlatform({ database: file, logger: false });
    await platform.ready;
    await seedDemo(platform.services);
    await seedContacts(platform.services, 62515, 2_500, () => {});
    await platform.close();
    lite = sqliteEngine(openDatabase(file));
    pg = postgresEngine(PG_URL, { schema });
  }, 60_000);
  afterAll(async () => {
    await lite?.close();
    await pg?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('copies every row of every table, with a progress bar, and the ids go on after the largest', async () => {
    const { stdout, stderr } = await run(process.execPath, [CLI, 'migrate', '--from', file, '--to', target]);
    expect(stdout).toMatch(/^Copied \d+ rows of \d+ tables from .*platform\.db to postgres:\/\//m);
    expect(stderr).toMatch(/Copying \[.*\] \d+\/\d+ rows \(100%\)/);

    const tables = await lite.all(
      sql<[], { name: string }>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      ),
    );
    const canonical = (rows: Record<string, unknown>[]) => rows.map((r) => JSON.stringify(r)).sort();
    let compared = 0;
    for (const { name } of tables) {
      const everything = sql<[], Record<string, unknown>>(`SELECT * FROM "${name}"`);
      const [a, b] = [await lite.all(everything), await pg.all(everything)];
      expect(canonical(b), name).toEqual(canonical(a));
      compared += a.length;
    }
    expect(compared).toBeGreaterThan(2_500);

    const maxVid = await lite.value(sql<[], { v: number }>('SELECT max(vid) AS v FROM contacts'));
    const next = await pg.get(
      sql<[], { vid: number }>(
        "INSERT INTO contacts (portal_id, email, created_at, updated_at) VALUES (62515, 'after@example.com', 0, 0) RETURNING vid",
      ),
    );
    expect(next!.vid).toBe(maxVid! + 1);
  }, 60_000);

  it('refuses a target that already holds data, and a source that does not exist, leaving both as they were', async () => {
    const before = await pg.value(sql<[], { n: number }>('SELECT count(*) AS n FROM contacts'));
    const again = await run(process.execPath, [CLI, 'migrate', '--from', file, '--to', target]).catch((err) => err);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/the target database is not empty: table \w+ has rows/);
    expect(await pg.value(sql<[], { n: number }>('SELECT count(*) AS n FROM contacts'))).toBe(before);

    const missing = await run(process.execPath, [CLI, 'migrate', '--from', join(dir, 'nope.db'), '--to', target]).catch(
      (err) => err,
    );
    expect(missing.stderr).toMatch(/--from .*nope\.db: no such file/);
    const wrong = await run(process.execPath, [
      CLI,
      'migrate',
      '--from',
      file,
      '--to',
      'mysql://secret:hunter2@host/db',
    ]).catch((err) => err);
    expect(wrong.stderr).toMatch(/--to must be a postgres:\/\/ URL, not "mysql:\/\/secret:\*\*\*@host\/db"/);
    expect(wrong.stderr).not.toContain('hunter2');
  });
});
