/** Databases made by earlier versions open up to date: before part 2 (schema version 2) with the
 * part-2 tables made and its portals given what part 2 seeds (a blog, a domain, a layout, a site
 * map, social channels); before version 5 with property history rewritten as contact history;
 * before version 6 with tracking events' wire fields copied into named columns; before version 7
 * with form submissions that may have no contact; before version 8 with social channels and
 * broadcasts numbered in the order they were inserted; before version 9 with forms numbered in the
 * order they were made; before version 10 with workflow enrollments that a process claims to run
 * their steps; before version 11 with a sessions table and its portals given the session and
 * source properties, so that the collector counts a known visitor's visits; before version 16 with
 * the mail catcher's outbox (and the demo portal given its thanks email once); before version 17
 * with the events' and sessions' vid indexes holding contacts' rows only; before version 18 without
 * the dashboard's visitor sets, which sessions replaced. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createPlatform, createPortal, demoThanksCampaign, seedDemo } from '../src';
import { SCHEMA_VERSION } from '../src/db/schema';

const dir = mkdtempSync(join(tmpdir(), 'svc-migration-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Version 4's property history: a row per property value, indexed by contact, and no history_head. */
const PROPERTY_HISTORY_V4 = `
  DROP TABLE contact_history;
  ALTER TABLE contacts DROP COLUMN history_head;
  CREATE TABLE property_history (vid INTEGER NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL, source_type TEXT NOT NULL,
    source_id TEXT, timestamp INTEGER NOT NULL);
  CREATE INDEX property_history_vid ON property_history(vid, name, timestamp);`;

/** Version 5's tracking events: no named columns, everything in the wire fields of \`data\`. */
const TRACKING_EVENTS_V5 = ['source', 'url', 'title', 'event_name', 'value', 'external_id']
  .map((c) => `ALTER TABLE tracking_events DROP COLUMN ${c};`)
  .join('\n');

/** The platform on a SQLite file, ready (migrated, older portals seeded), with its better-sqlite3
 * database: these tests are about SQLite files. */
async function open(file: string, now?: () => number) {
  const platform = createPlatform({ database: file, logger: false, filesDir: join(dir, 'files'), now });
  await platform.ready;
  if (!platform.db) throw new Error('migrations.test.ts runs on SQLite');
  return { ...platform, db: platform.db };
}

const PART2_TABLES = [
  'content_objects',
  'content_versions',
  'content_history',
  'keywords',
  'settings',
  'social_channels',
  'broadcasts',
  'prospect_views',
  'prospect_hidden',
];

describe('schema migrations', () => {
  it('brings a version 2 database and its portals up to date', async () => {
    const file = join(dir, 'v2.db');
    const made = await open(file);
    await createPortal(made.services.engine, made.services, { id: 7, name: 'Old portal', tier: 'starter', now: 1 });
    // Back to what a part-1 platform left: no part-2 tables, version 2, and v3's old index name.
    for (const table of PART2_TABLES) made.db.exec(`DROP TABLE ${table}`);
    made.db.exec(PROPERTY_HISTORY_V4 + TRACKING_EVENTS_V5);
    made.db.prepare("UPDATE meta SET value = '2' WHERE key = 'schema_version'").run();
    await made.close();

    const platform = await open(file);
    try {
      expect(platform.db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get()).toBe(
        String(SCHEMA_VERSION),
      );
      expect(
        (
          await platform.services.content.list(platform.services.engine, 7, 'blogs', { limit: 5 }, new Set())
        ).objects.map((b) => b.name),
      ).toEqual(['Blog']);
      expect(
        (await platform.services.content.list(platform.services.engine, 7, 'domains', { limit: 5 }, new Set())).total,
      ).toBe(1);
      expect((await platform.services.social.listChannels(platform.services.engine, 7)).map((c) => c.type)).toEqual([
        'Twitter',
        'LinkedIn',
      ]);
    } finally {
      await platform.close();
    }
    // Opening again seeds nothing twice.
    const again = await open(file);
    expect((await again.services.content.list(again.services.engine, 7, 'blogs', { limit: 5 }, new Set())).total).toBe(
      1,
    );
    expect(await again.services.social.listChannels(again.services.engine, 7)).toHaveLength(2);
    await again.close();
  });

  it('drops the version 3 index that version 4 replaced', async () => {
    const file = join(dir, 'v3.db');
    const made = await open(file);
    made.db.exec(PROPERTY_HISTORY_V4 + TRACKING_EVENTS_V5);
    made.db.exec(
      'CREATE INDEX content_group ON content_objects(portal_id, collection, content_group_id, deleted_at, publish_date)',
    );
    made.db.prepare("UPDATE meta SET value = '3' WHERE key = 'schema_version'").run();
    await made.close();
    const platform = await open(file);
    const indexes = platform.db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'content_objects'")
      .pluck()
      .all();
    expect(indexes).toContain('content_group_state');
    expect(indexes).not.toContain('content_group');
    await platform.close();
    const check = new Database(file);
    expect(check.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get()).toBe(
      String(SCHEMA_VERSION),
    );
    check.close();
  });

  it('turns version 4 property history into contact history, every version kept', async () => {
    const file = join(dir, 'v4.db');
    const made = await open(file);
    await createPortal(made.services.engine, made.services, { id: 9, name: 'Portal', tier: 'starter', now: 1 });
    const properties = JSON.stringify({
      email: 'ada@example.test',
      firstname: 'Augusta',
      lifecyclestage: 'lead',
      createdate: '100',
    });
    made.db
      .prepare(
        "INSERT INTO contacts (vid, portal_id, email, properties, created_at, updated_at) VALUES (5, 9, 'ada@example.test', ?, 100, 300)",
      )
      .run(properties);
    made.db.exec(PROPERTY_HISTORY_V4 + TRACKING_EVENTS_V5);
    // A create (two properties, one write), an update by a form, and an API update later.
    made.db.exec(`INSERT INTO property_history VALUES
      (5, 'email', 'ada@example.test', 'API', NULL, 100), (5, 'firstname', 'Ada', 'API', NULL, 100),
      (5, 'firstname', 'Augusta', 'FORM', 'form-guid', 200), (5, 'lifecyclestage', 'lead', 'API', NULL, 300)`);
    made.db.prepare("UPDATE meta SET value = '4' WHERE key = 'schema_version'").run();
    await made.close();

    const platform = await open(file);
    try {
      const tables = platform.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all();
      expect(tables).toContain('contact_history');
      expect(tables).not.toContain('property_history');
      const history = platform.db
        .prepare(
          'SELECT seq, prev, timestamp, source_type, source_id, changes FROM contact_history WHERE vid = 5 ORDER BY seq',
        )
        .all();
      expect(history).toEqual([
        {
          seq: 1,
          prev: null,
          timestamp: 100,
          source_type: 'API',
          source_id: null,
          changes: JSON.stringify({ email: 'ada@example.test', firstname: 'Ada' }),
        },
        {
          seq: 2,
          prev: 1,
          timestamp: 200,
          source_type: 'FORM',
          source_id: 'form-guid',
          changes: JSON.stringify({ firstname: 'Augusta' }),
        },
        {
          seq: 3,
          prev: 2,
          timestamp: 300,
          source_type: 'API',
          source_id: null,
          changes: JSON.stringify({ lifecyclestage: 'lead' }),
        },
      ]);
      expect(platform.db.prepare('SELECT history_head FROM contacts WHERE vid = 5').pluck().get()).toBe(3);
      const { contacts, engine } = platform.services;
      const { properties: read } = await contacts.record(engine, await contacts.require(engine, 9, 5), {
        profile: true,
      });
      expect(read.firstname.versions!.map((v) => [v.value, v['source-type'], v.timestamp, v.selected])).toEqual([
        ['Augusta', 'FORM', 200, true],
        ['Ada', 'API', 100, false],
      ]);
      // A write after the migration continues the contact's chain.
      await platform.services.write((t) => contacts.update(t, 9, 5, [{ property: 'firstname', value: 'Ada' }]));
      const { properties: after } = await contacts.record(engine, await contacts.require(engine, 9, 5), {
        profile: true,
      });
      expect(after.firstname.versions!.map((v) => v.value)).toEqual(['Ada', 'Augusta', 'Ada']);
      expect(after.lifecyclestage.versions!.map((v) => v.value)).toEqual(['lead']);
    } finally {
      await platform.close();
    }
  });

  it('gives version 5 tracking events named columns, read from their wire fields', async () => {
    const file = join(dir, 'v5.db');
    const made = await open(file);
    made.db.exec(TRACKING_EVENTS_V5);
    const insert = made.db.prepare(
      'INSERT INTO tracking_events (eid, portal_id, kind, utk, vid, timestamp, received_at, data) VALUES (?, 1, ?, ?, NULL, ?, ?, ?)',
    );
    insert.run(
      'a'.repeat(32),
      1,
      'f'.repeat(32),
      10,
      11,
      JSON.stringify({ eid: 'a'.repeat(32), k: '1', pu: 'https://x.test/pricing', t: 'Pricing' }),
    );
    insert.run(
      'b'.repeat(32),
      3,
      'f'.repeat(32),
      20,
      21,
      JSON.stringify({ eid: 'b'.repeat(32), k: '3', n: 'clicked-buy', m: '49' }),
    );
    insert.run(
      'c'.repeat(32),
      3,
      '',
      30,
      31,
      JSON.stringify({ _n: 'signup', _a: 1, _m: 5, email: 'a@x.test', via: 'http-get', externalId: 'ext-1' }),
    );
    insert.run(
      'api:x1',
      3,
      '',
      40,
      41,
      JSON.stringify({ eventName: 'paid', value: 9.5, via: 'http-post', m: 9.5, n: 'paid', id: 'x1' }),
    );
    made.db.prepare("UPDATE meta SET value = '5' WHERE key = 'schema_version'").run();
    await made.close();

    const platform = await open(file);
    try {
      expect(
        platform.db
          .prepare('SELECT eid, source, url, title, event_name, value, external_id FROM tracking_events ORDER BY seq')
          .all(),
      ).toEqual([
        {
          eid: 'a'.repeat(32),
          source: 'tracker',
          url: 'https://x.test/pricing',
          title: 'Pricing',
          event_name: null,
          value: null,
          external_id: null,
        },
        {
          eid: 'b'.repeat(32),
          source: 'tracker',
          url: null,
          title: null,
          event_name: 'clicked-buy',
          value: 49,
          external_id: null,
        },
        {
          eid: 'c'.repeat(32),
          source: 'events-get',
          url: null,
          title: null,
          event_name: 'signup',
          value: 5,
          external_id: 'ext-1',
        },
        {
          eid: 'api:x1',
          source: 'events-post',
          url: null,
          title: null,
          event_name: 'paid',
          value: 9.5,
          external_id: 'x1',
        },
      ]);
    } finally {
      await platform.close();
    }
  });

  it('lets version 6 form submissions have no contact, every submission kept', async () => {
    const file = join(dir, 'v6.db');
    const made = await open(file);
    made.db.exec(`DROP TABLE form_submissions;
      CREATE TABLE form_submissions (conversion_id TEXT PRIMARY KEY, portal_id INTEGER NOT NULL, vid INTEGER NOT NULL, form_guid TEXT NOT NULL,
        timestamp INTEGER NOT NULL, page_url TEXT, page_title TEXT, values_json TEXT NOT NULL);
      CREATE INDEX form_submissions_vid ON form_submissions(vid, timestamp);
      INSERT INTO form_submissions VALUES ('conv-1', 1, 5, 'guid-1', 100, 'https://x.test/', 'Home', '{"email":"a@x.test"}');`);
    made.db.prepare("UPDATE meta SET value = '6' WHERE key = 'schema_version'").run();
    await made.close();

    const platform = await open(file);
    try {
      expect(platform.db.prepare('SELECT * FROM form_submissions').all()).toEqual([
        {
          conversion_id: 'conv-1',
          portal_id: 1,
          vid: 5,
          form_guid: 'guid-1',
          timestamp: 100,
          page_url: 'https://x.test/',
          page_title: 'Home',
          values_json: '{"email":"a@x.test"}',
        },
      ]);
      platform.db
        .prepare("INSERT INTO form_submissions VALUES ('conv-2', 1, NULL, 'guid-1', 200, NULL, NULL, '{}')")
        .run();
      const indexes = platform.db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'form_submissions'")
        .pluck()
        .all();
      expect(indexes).toContain('form_submissions_vid');
    } finally {
      await platform.close();
    }
  });

  it('numbers version 7 social channels and broadcasts in the order they were inserted (their rowids)', async () => {
    const file = join(dir, 'v7.db');
    const made = await open(file, () => 1);
    const { engine, social } = made.services;
    await createPortal(engine, made.services, { id: 7, name: 'Portal', tier: 'starter', now: 1 });
    const [twitter] = await social.listChannels(engine, 7);
    // Made in the same millisecond (the clock stands still): only the insertion order tells them apart.
    for (const body of ['one', 'two', 'three', 'four'])
      await social.create(engine, 7, { channelGuid: twitter.channelGuid, status: 'DRAFT', content: { body } });
    // Back to version 7's tables (no seq), their rowids running against the guids' order and the
    // order above, so that only the rowids can give the order.
    made.db.exec(`
      ALTER TABLE social_channels RENAME TO social_channels_v8;
      ALTER TABLE broadcasts RENAME TO broadcasts_v8;
      DROP INDEX social_channels_portal; DROP INDEX broadcasts_portal; DROP INDEX broadcasts_due;
      CREATE TABLE social_channels (guid TEXT PRIMARY KEY, portal_id INTEGER NOT NULL, data TEXT NOT NULL);
      CREATE INDEX social_channels_portal ON social_channels(portal_id);
      CREATE TABLE broadcasts (guid TEXT PRIMARY KEY, portal_id INTEGER NOT NULL, status TEXT NOT NULL, trigger_at INTEGER, created_at INTEGER NOT NULL, data TEXT NOT NULL);
      CREATE INDEX broadcasts_portal ON broadcasts(portal_id, created_at);
      CREATE INDEX broadcasts_due ON broadcasts(status, trigger_at);
      INSERT INTO social_channels (rowid, guid, portal_id, data) SELECT 100 - seq, guid, portal_id, data FROM social_channels_v8;
      INSERT INTO broadcasts (rowid, guid, portal_id, status, trigger_at, created_at, data)
        SELECT 100 - seq, guid, portal_id, status, trigger_at, created_at, data FROM broadcasts_v8;
      DROP TABLE social_channels_v8; DROP TABLE broadcasts_v8;`);
    made.db.prepare("UPDATE meta SET value = '7' WHERE key = 'schema_version'").run();
    // What version 7 listed: channels by rowid, broadcasts newest first and then by rowid, descending.
    const channelsThen = made.db
      .prepare('SELECT guid FROM social_channels WHERE portal_id = 7 ORDER BY rowid')
      .pluck()
      .all();
    const broadcastsThen = made.db
      .prepare('SELECT guid FROM broadcasts WHERE portal_id = 7 ORDER BY created_at DESC, rowid DESC')
      .pluck()
      .all();
    expect(broadcastsThen).toHaveLength(4);
    await made.close();

    const platform = await open(file, () => 1);
    try {
      const { engine, social } = platform.services;
      expect((await social.listChannels(engine, 7)).map((c) => c.channelGuid)).toEqual(channelsThen);
      expect((await social.list(engine, 7, { withChannelKeys: [] })).map((b) => b.broadcastGuid)).toEqual(
        broadcastsThen,
      );
      // A broadcast made now comes after them all, even in the same millisecond.
      const later = await social.create(engine, 7, {
        channelGuid: twitter.channelGuid,
        status: 'DRAFT',
        content: { body: 'five' },
      });
      expect((await social.list(engine, 7, { withChannelKeys: [] })).map((b) => b.broadcastGuid)).toEqual([
        later.broadcastGuid,
        ...broadcastsThen,
      ]);
      const columns = platform.db.prepare("SELECT name FROM pragma_table_info('broadcasts')").pluck().all();
      expect(columns).toEqual(['seq', 'guid', 'portal_id', 'status', 'trigger_at', 'created_at', 'data']);
    } finally {
      await platform.close();
    }
  });

  it('numbers version 8 forms in the order they were made (their rowid), guids still unique', async () => {
    const file = join(dir, 'v8-forms.db');
    const made = createPlatform({ database: file, logger: false, filesDir: join(dir, 'files') });
    // Made in the same millisecond, their guids in the other order.
    made.db!.exec(`DROP TABLE forms;
      CREATE TABLE forms (guid TEXT PRIMARY KEY, portal_id INTEGER NOT NULL, definition TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
      CREATE INDEX forms_portal ON forms(portal_id, created_at);
      INSERT INTO forms VALUES ('c', 7, '{}', 100, 100), ('b', 7, '{}', 100, 100), ('a', 7, '{}', 100, 100);`);
    made.db!.prepare("UPDATE meta SET value = '8' WHERE key = 'schema_version'").run();
    await made.close();

    const platform = createPlatform({ database: file, logger: false, filesDir: join(dir, 'files') });
    try {
      expect(platform.db!.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get()).toBe(
        String(SCHEMA_VERSION),
      );
      expect(platform.db!.prepare('SELECT seq, guid FROM forms ORDER BY seq').all()).toEqual([
        { seq: 1, guid: 'c' },
        { seq: 2, guid: 'b' },
        { seq: 3, guid: 'a' },
      ]);
      // New forms are numbered after them; a guid is still taken once.
      const add = platform.db!.prepare(
        "INSERT INTO forms (guid, portal_id, definition, created_at, updated_at) VALUES (?, 7, '{}', 100, 100)",
      );
      add.run('d');
      expect(
        platform.db!.prepare('SELECT guid FROM forms WHERE portal_id = 7 ORDER BY created_at, seq').pluck().all(),
      ).toEqual(['c', 'b', 'a', 'd']);
      expect(() => add.run('a')).toThrow(/UNIQUE/);
      const indexes = platform
        .db!.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'forms'")
        .pluck()
        .all();
      expect(indexes).toContain('forms_portal');
    } finally {
      await platform.close();
    }
  });

  it('gives version 9 enrollments a claim, every enrollment kept and its steps still run', async () => {
    const file = join(dir, 'v9.db');
    const made = createPlatform({ database: file, logger: false, filesDir: join(dir, 'files') });
    await createPortal(made.services.engine, made.services, { id: 9, name: 'Portal', tier: 'starter', now: 1 });
    const definition = {
      name: 'Flow',
      type: 'DRIP_DELAY',
      enabled: true,
      allowContactToTriggerMultipleTimes: false,
      actions: [{ type: 'DELAY', delayMillis: 10 }],
    };
    made.db!
      .exec(`INSERT INTO contacts (vid, portal_id, email, properties, created_at, updated_at) VALUES (5, 9, 'ada@example.test', '{"email":"ada@example.test"}', 1, 1);
      INSERT INTO workflows (id, portal_id, definition, created_at, updated_at) VALUES (3, 9, '${JSON.stringify(definition)}', 1, 1);
      INSERT INTO enrollments (id, workflow_id, portal_id, vid, step, next_run_at, status, enrolled_at) VALUES (1, 3, 9, 5, 0, 1, 'unenrolled', 1), (2, 3, 9, 5, 0, 1, 'active', 1);
      DROP INDEX enrollments_active;
      ALTER TABLE enrollments DROP COLUMN claimed_until;`);
    made.db!.prepare("UPDATE meta SET value = '9' WHERE key = 'schema_version'").run();
    await made.close();

    const platform = createPlatform({ database: file, logger: false, filesDir: join(dir, 'files'), now: () => 100 });
    try {
      expect(platform.db!.prepare('SELECT id, status, claimed_until FROM enrollments ORDER BY id').all()).toEqual([
        { id: 1, status: 'unenrolled', claimed_until: null },
        { id: 2, status: 'active', claimed_until: null },
      ]);
      expect(
        platform
          .db!.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'enrollments' ORDER BY name")
          .pluck()
          .all(),
      ).toEqual(['enrollments_active', 'enrollments_due', 'enrollments_vid']);
      expect(await platform.services.workflows.runDue()).toBe(1);
      expect(platform.db!.prepare('SELECT event_type, step_id FROM workflow_log WHERE workflow_id = 3').all()).toEqual([
        { event_type: 'DELAY', step_id: 0 },
      ]);
    } finally {
      await platform.close();
    }
  });

  it('gives version 10 databases sessions, and their portals the session and source properties', async () => {
    const file = join(dir, 'v10.db');
    const made = createPlatform({ database: file, logger: false, filesDir: join(dir, 'files') });
    await createPortal(made.services.engine, made.services, { id: 10, name: 'Portal', tier: 'starter', now: 1 });
    const utk = 'ab'.repeat(16);
    made.db!.exec(`DROP TABLE sessions;
      DELETE FROM properties WHERE portal_id = 10 AND (name LIKE 'svc_analytics_%source%' OR name LIKE 'svc_analytics_%session%'
        OR name IN ('svc_analytics_num_visits', 'svc_analytics_average_page_views', 'svc_analytics_first_referrer', 'svc_analytics_last_referrer'));
      INSERT INTO contacts (vid, portal_id, email, properties, created_at, updated_at) VALUES (5, 10, 'ada@example.test', '{"email":"ada@example.test"}', 1, 1);
      INSERT INTO utks (portal_id, utk, vid, linked_at) VALUES (10, '${utk}', 5, 1);`);
    made.db!.prepare("UPDATE meta SET value = '10' WHERE key = 'schema_version'").run();
    await made.close();

    const platform = await open(file);
    try {
      expect(
        platform.db
          .prepare("SELECT count(*) FROM properties WHERE portal_id = 10 AND name = 'svc_analytics_latest_source'")
          .pluck()
          .get(),
      ).toBe(1);
      const { baseUrl } = await platform.listen({ basePort: 0, formsPort: 0 });
      const view = {
        eid: 'cd'.repeat(16),
        k: '1',
        a: '10',
        v: '1',
        cts: '5000',
        pu: 'https://acme.test/',
        r: 'https://www.bing.com/',
        vi: utk,
      };
      const res = await fetch(`${baseUrl}/collect/e`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: JSON.stringify([view]),
      });
      expect(await res.json()).toMatchObject({ accepted: 1, rejected: [] });
      const p = JSON.parse(
        platform.db.prepare('SELECT properties FROM contacts WHERE vid = 5').pluck().get() as string,
      );
      expect(p).toMatchObject({
        svc_analytics_num_visits: '1',
        svc_analytics_source: 'ORGANIC_SEARCH',
        svc_analytics_source_data_1: 'Bing',
        svc_analytics_latest_source: 'ORGANIC_SEARCH',
      });
      expect(platform.db.prepare('SELECT vid, page_views, source FROM sessions').all()).toEqual([
        { vid: 5, page_views: 1, source: 'ORGANIC_SEARCH' },
      ]);
    } finally {
      await platform.close();
    }
  });

  it("gives version 15 databases the mail catcher's outbox, and the demo portal its thanks email once", async () => {
    const file = join(dir, 'v15.db');
    const made = createPlatform({ database: file, logger: false, filesDir: join(dir, 'files') });
    await made.ready;
    await seedDemo(made.services);
    made.db!.exec('DROP TABLE email_outbox');
    made.db!.prepare("UPDATE meta SET value = '15' WHERE key = 'schema_version'").run();
    await made.close();

    const platform = await open(file);
    try {
      expect(platform.db.prepare('SELECT count(*) FROM email_outbox').pluck().get()).toBe(0);
      const campaigns = () => platform.db.prepare('SELECT count(*) FROM campaigns').pluck().get();
      const before = campaigns();
      const id = await demoThanksCampaign(platform.services);
      expect(await demoThanksCampaign(platform.services)).toBe(id);
      expect(campaigns()).toBe(Number(before) + 1);
    } finally {
      await platform.close();
    }
  });

  it("gives version 16 databases vid indexes of contacts' events and sessions only, every event kept and found by its contact", async () => {
    const file = join(dir, 'v16.db');
    const made = createPlatform({ database: file, logger: false, filesDir: join(dir, 'files') });
    await made.ready;
    made.db!.exec(`DROP INDEX tracking_events_vid; CREATE INDEX tracking_events_vid ON tracking_events(vid, timestamp);
      DROP INDEX sessions_vid; CREATE INDEX sessions_vid ON sessions(vid, started_at);
      INSERT INTO tracking_events (eid, portal_id, kind, utk, vid, timestamp, received_at, data) VALUES
        ('e1', 9, 1, 'u1', NULL, 1000, 1000, '{}'), ('e2', 9, 1, 'u2', 7, 2000, 2000, '{}'), ('e3', 9, 3, 'u2', 7, 3000, 3000, '{}');
      UPDATE meta SET value = '16' WHERE key = 'schema_version';`);
    await made.close();

    const platform = await open(file);
    try {
      const index = (name: string) =>
        platform.db.prepare('SELECT sql FROM sqlite_master WHERE name = ?').pluck().get(name);
      expect(index('tracking_events_vid')).toBe(
        'CREATE INDEX tracking_events_vid ON tracking_events(vid, timestamp) WHERE vid IS NOT NULL',
      );
      expect(index('sessions_vid')).toBe(
        'CREATE INDEX sessions_vid ON sessions(vid, started_at) WHERE vid IS NOT NULL',
      );
      const byContact = 'SELECT eid FROM tracking_events WHERE vid = ? ORDER BY timestamp DESC';
      expect(platform.db.prepare(byContact).pluck().all(7)).toEqual(['e3', 'e2']);
      expect(
        platform.db
          .prepare(`EXPLAIN QUERY PLAN ${byContact}`)
          .all(7)
          .map((r) => (r as { detail: string }).detail),
      ).toEqual(['SEARCH tracking_events USING INDEX tracking_events_vid (vid=?)']);
      expect(platform.db.prepare('SELECT eid FROM tracking_events ORDER BY seq').pluck().all()).toEqual([
        'e1',
        'e2',
        'e3',
      ]);
    } finally {
      await platform.close();
    }
  });
  it("drops version 17 databases' visitor sets (the dashboard's visitors come from sessions), every counter kept", async () => {
    const file = join(dir, 'v17.db');
    const made = createPlatform({ database: file, logger: false, filesDir: join(dir, 'files') });
    await made.ready;
    made.db!
      .exec(`CREATE TABLE rollup_visitors (portal_id INTEGER NOT NULL, grain TEXT NOT NULL, bucket INTEGER NOT NULL, utk TEXT NOT NULL,
        PRIMARY KEY (portal_id, grain, bucket, utk)) WITHOUT ROWID;
      INSERT INTO rollup_visitors VALUES (9, 'd', 0, 'u1');
      INSERT INTO rollups (portal_id, metric, bucket, dim, dim2, n, amount) VALUES (9, 'visitors.d', 0, '', '', 1, 0);
      UPDATE meta SET value = '17' WHERE key = 'schema_version';`);
    await made.close();

    const platform = await open(file);
    try {
      expect(
        platform.db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'rollup_visitors'").pluck().get(),
      ).toBe(0);
      expect(platform.db.prepare('SELECT metric, n FROM rollups WHERE portal_id = 9').all()).toEqual([
        { metric: 'visitors.d', n: 1 },
      ]);
      expect(platform.db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get()).toBe(
        String(SCHEMA_VERSION),
      );
    } finally {
      await platform.close();
    }
  });
});
