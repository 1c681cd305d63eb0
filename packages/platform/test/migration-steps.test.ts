/** The migration steps (src/db/migrations/) against the live schema, on both engines: a database
 * made at version 1 by the first step and brought up by every later one has exactly the tables of a
 * new database (columns, keys, constraints, indexes), and the rows it held come through the same way
 * on SQLite and on PostgreSQL. The steps are applied as they are, without the live schema after them
 * (which opening a database adds, and which would hide a table a step forgot). */
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Engine, sql } from '../src/db/engine';
import { postgresEngine } from '../src/db/engine-postgres';
import { sqliteEngine } from '../src/db/engine-sqlite';
import { MIGRATIONS } from '../src/db/migrations';
import { openDatabase } from '../src/db/open';
import { openPostgres } from '../src/db/open-postgres';
import { SCHEMA_VERSION } from '../src/db/schema';
import { havePostgres, PG_URL, pgSchema } from './postgres';
import { postgresShape, sqliteShape } from './schema-shape';

const migratedSchema = await pgSchema('steps');
const freshSchema = await pgSchema('steps_new');

/** Rows written at a version, before the steps after it: what the data-moving steps move (tracking
 * events rekeyed at 2 and given columns at 6, property history chained at 5, submissions at 7,
 * social rows numbered at 8, forms at 9, enrollments copied at 10, spam submissions at 19). */
const ROWS: Record<number, string> = {
  1: `
    INSERT INTO portals (id, name, tier, created_at) VALUES (9, 'Portal', 'starter', 1);
    INSERT INTO contacts (vid, portal_id, email, properties, created_at, updated_at) VALUES
      (5, 9, 'ada@example.test', '{}', 100, 300), (6, 9, 'bob@example.test', '{}', 100, 100);
    INSERT INTO property_history (vid, name, value, source_type, source_id, timestamp) VALUES
      (5, 'email', 'ada@example.test', 'API', NULL, 100), (5, 'firstname', 'Ada', 'API', NULL, 100),
      (6, 'email', 'bob@example.test', 'API', NULL, 100), (5, 'firstname', 'Augusta', 'FORM', 'form-guid', 200),
      (5, 'lifecyclestage', 'lead', 'API', NULL, 300);
    INSERT INTO tracking_events (eid, portal_id, kind, utk, vid, timestamp, received_at, data) VALUES
      ('e1', 9, 1, 'u1', NULL, 10, 11, '{"pu":"https://x.test/pricing","t":"Pricing"}'),
      ('e2', 9, 3, 'u1', 5, 20, 21, '{"n":"clicked-buy","m":"49"}'),
      ('e3', 9, 3, NULL, NULL, 30, 31, '{"_n":"signup","_m":5,"via":"http-get","externalId":"ext-1"}'),
      ('api:x1', 9, 3, NULL, NULL, 40, 41, '{"via":"http-post","n":"paid","m":9.5,"id":"x1"}');
    INSERT INTO form_submissions VALUES ('conv-1', 9, 5, 'guid-1', 100, 'https://x.test/', 'Home', '{"email":"a@x.test"}');
    INSERT INTO forms (guid, portal_id, definition, created_at, updated_at) VALUES
      ('f-c', 9, '{}', 100, 100), ('f-b', 9, '{}', 100, 100), ('f-a', 9, '{}', 100, 100);
    INSERT INTO workflows (id, portal_id, definition, created_at, updated_at) VALUES (3, 9, '{}', 1, 1);
    INSERT INTO enrollments (id, workflow_id, portal_id, vid, step, next_run_at, status, enrolled_at) VALUES
      (1, 3, 9, 5, 0, 1, 'unenrolled', 1), (2, 3, 9, 5, 1, 7, 'active', 1);`,
  3: `
    INSERT INTO social_channels (guid, portal_id, data) VALUES ('c-2', 9, '{}'), ('c-3', 9, '{}'), ('c-1', 9, '{}');
    INSERT INTO broadcasts (guid, portal_id, status, trigger_at, created_at, data) VALUES
      ('b-2', 9, 'DRAFT', NULL, 5, '{}'), ('b-3', 9, 'SCHEDULED', 50, 5, '{}'), ('b-1', 9, 'DRAFT', NULL, 5, '{}');`,
  14: `
    INSERT INTO spam_submissions (conversion_id, portal_id, form_guid, timestamp, reason, page_url, values_json)
      VALUES ('conv-s', 9, 'guid-1', 300, 'HONEYPOT', NULL, '{"email":"spam@x.test"}');`,
};

/** Every step in order on an empty database, with ROWS written on the way. */
async function migrateFromVersion1(engine: Engine) {
  for (const step of MIGRATIONS) {
    const text = engine.kind == 'sqlite' ? step.sqlite : step.postgres;
    await engine.tx((t) => t.exec(text + (ROWS[step.version] ?? '')));
  }
  return engine;
}

/** What the rows came to, as both engines can compare it (contact history's JSON parsed: the
 * engines write the same object with different spacing). */
async function rows(engine: Engine) {
  const all = (text: string) => engine.all(sql<[], Record<string, unknown>>(text));
  return {
    tracking_events: await all(
      'SELECT seq, eid, portal_id, kind, utk, vid, timestamp, received_at, source, url, title, event_name, value, external_id FROM tracking_events ORDER BY seq',
    ),
    contacts: await all('SELECT vid, email, history_head FROM contacts ORDER BY vid'),
    contact_history: (
      await all('SELECT seq, vid, prev, timestamp, source_type, source_id, changes FROM contact_history ORDER BY seq')
    ).map((r): Record<string, unknown> => ({ ...r, changes: JSON.parse(r.changes as string) as unknown })),
    form_submissions: await all('SELECT * FROM form_submissions ORDER BY conversion_id'),
    forms: await all('SELECT seq, guid FROM forms ORDER BY seq'),
    social_channels: await all('SELECT seq, guid FROM social_channels ORDER BY seq'),
    broadcasts: await all('SELECT seq, guid, status, trigger_at FROM broadcasts ORDER BY seq'),
    enrollments: await all('SELECT id, vid, step, next_run_at, status, claimed_until FROM enrollments ORDER BY id'),
    spam_submissions: await all('SELECT * FROM spam_submissions'),
  };
}

describe('the migration steps', () => {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  const lite = sqliteEngine(db);
  const made = openDatabase(':memory:');
  beforeAll(() => migrateFromVersion1(lite));
  afterAll(async () => {
    await lite.close();
    made.close();
  });

  it('are one a version, from 1 to SCHEMA_VERSION in order', () => {
    expect(MIGRATIONS.map((step) => step.version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
  });

  it('bring a version 1 SQLite database to the tables of a new one', () => {
    const migrated = sqliteShape(db);
    const fresh = sqliteShape(made);
    expect(Object.keys(migrated)).toEqual(Object.keys(fresh));
    for (const table of Object.keys(fresh)) expect(migrated[table], table).toEqual(fresh[table]);
  });

  it('carry the rows of a version 1 SQLite database through', async () => {
    const carried = await rows(lite);
    expect(carried.contact_history.map((h) => [h.vid, h.prev, h.timestamp, h.changes])).toEqual([
      [5, null, 100, { email: 'ada@example.test', firstname: 'Ada' }],
      [6, null, 100, { email: 'bob@example.test' }],
      [5, 1, 200, { firstname: 'Augusta' }],
      [5, 3, 300, { lifecyclestage: 'lead' }],
    ]);
    expect(carried.contacts.map((c) => c.history_head)).toEqual([4, 2]);
    expect(carried.tracking_events.map((e) => [e.utk, e.source, e.event_name, e.value, e.external_id])).toEqual([
      ['u1', 'tracker', null, null, null],
      ['u1', 'tracker', 'clicked-buy', 49, null],
      ['', 'events-get', 'signup', 5, 'ext-1'],
      ['', 'events-post', 'paid', 9.5, 'x1'],
    ]);
    expect(carried.forms.map((f) => f.guid)).toEqual(['f-c', 'f-b', 'f-a']);
    expect(carried.social_channels.map((c) => c.guid)).toEqual(['c-2', 'c-3', 'c-1']);
    expect(carried.enrollments.map((e) => e.status)).toEqual(['unenrolled', 'active']);
  });

  describe.skipIf(!havePostgres)('on PostgreSQL', () => {
    let pg: Engine;
    let fresh: Engine;
    beforeAll(async () => {
      pg = await migrateFromVersion1(postgresEngine(PG_URL, { schema: migratedSchema }));
      fresh = await openPostgres(PG_URL, { schema: freshSchema });
    });
    afterAll(async () => {
      await pg?.close();
      await fresh?.close();
    });

    it('bring a version 1 database to the tables of a new one', async () => {
      const migrated = await postgresShape(pg, migratedSchema);
      const made = await postgresShape(fresh, freshSchema);
      expect(Object.keys(migrated)).toEqual(Object.keys(made));
      for (const table of Object.keys(made)) expect(migrated[table], table).toEqual(made[table]);
    });

    it('carry the rows of a version 1 database through as SQLite does', async () => {
      expect(await rows(pg)).toEqual(await rows(lite));
    });
  });
});
