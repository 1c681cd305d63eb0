/** The PostgreSQL schema is the SQLite one said the PostgreSQL way: the same tables with the same
 * columns, and generated columns that read the same values out of a row's JSON; a database of an
 * earlier version is brought up to it. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Engine, sql } from '../src/db/engine';
import { postgresEngine } from '../src/db/engine-postgres';
import { sqliteEngine } from '../src/db/engine-sqlite';
import { openDatabase } from '../src/db/open';
import { openPostgres, staleStatisticsWarning } from '../src/db/open-postgres';
import { SCHEMA_VERSION } from '../src/db/schema';
import { POSTGRES_ONLY_TABLES, POSTGRES_SCHEMA } from '../src/db/schema-postgres';
import { havePostgres, PG_URL, pgSchema, withSearchPath } from './postgres';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createPlatform } from '../src/app';

const schema = await pgSchema('schema');
const fresh = await pgSchema('open');
const older = await pgSchema('v7');
const current = await pgSchema('current');
const started = await pgSchema('started');
const v8 = await pgSchema('v8');
const v9 = await pgSchema('v9');
const v16 = await pgSchema('v16');
const v17 = await pgSchema('v17');

/** The columns, keys and indexes of `tables` in a schema, as they compare between databases. */
async function shape(db: Engine, schemaName: string, tables: string[]) {
  const named = tables.map((t) => `'${t}'`).join(', ');
  return {
    columns: await db.all(
      sql<[string], Record<string, unknown>>(
        `SELECT table_name, column_name, data_type, is_nullable, is_identity FROM information_schema.columns
         WHERE table_schema = ? AND table_name IN (${named}) ORDER BY table_name, column_name`,
      ),
      schemaName,
    ),
    indexes: await db.all(
      sql<[string, string], { indexdef: string }>(
        `SELECT replace(indexdef, ? || '.', '') AS indexdef FROM pg_indexes WHERE schemaname = ? AND tablename IN (${named}) ORDER BY indexname`,
      ),
      schemaName,
      schemaName,
    ),
  };
}

describe.skipIf(!havePostgres)('the schema on PostgreSQL', () => {
  let lite: Engine;
  let pg: Engine;
  beforeAll(async () => {
    lite = sqliteEngine(openDatabase(':memory:'));
    pg = postgresEngine(PG_URL, { schema });
    await pg.exec(POSTGRES_SCHEMA);
  });
  afterAll(async () => {
    await lite.close();
    await pg.close();
  });

  it('has every table of the SQLite schema, with the same columns', async () => {
    const sqliteColumns = await lite.all(
      sql<[], { t: string; c: string }>(
        "SELECT m.name AS t, p.name AS c FROM sqlite_master m, pragma_table_xinfo(m.name) p WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' ORDER BY 1, 2",
      ),
    );
    const pgColumns = await pg.all(
      sql<[string], { t: string; c: string }>(
        'SELECT table_name AS t, column_name AS c FROM information_schema.columns WHERE table_schema = ? ORDER BY 1, 2',
      ),
      schema,
    );
    expect(sqliteColumns.length).toBeGreaterThan(100);
    const shared = pgColumns.filter((r) => !POSTGRES_ONLY_TABLES.includes(r.t));
    expect(shared.map((r) => `${r.t}.${r.c}`).sort()).toEqual(sqliteColumns.map((r) => `${r.t}.${r.c}`).sort());
  });

  it("keeps the rate limits' counters out of the WAL (unlogged), and every other table in it", async () => {
    const persistence = await pg.all(
      sql<[string], { t: string; p: string }>(
        "SELECT c.relname AS t, c.relpersistence AS p FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ? AND c.relkind = 'r'",
      ),
      schema,
    );
    expect(persistence.filter((r) => r.p == 'u').map((r) => r.t)).toEqual(['rate_limits']);
    expect(persistence.length).toBeGreaterThan(20);
  });

  it('numbers rows, keeps 64-bit timestamps, and reads generated columns as SQLite does', async () => {
    const data = JSON.stringify({
      created: 1795635195075,
      updated: 1795635195076.0,
      name: 'Hello',
      slug: 'hello',
      state: 'DRAFT',
      publish_date: 1795635195000,
      content_group_id: 7,
    });
    const insert = sql<[string], { id: number }>(
      "INSERT INTO content_objects (portal_id, collection, data) VALUES (62515, 'blog-posts', ?) RETURNING id",
    );
    const read = sql<[number], Record<string, unknown>>(
      'SELECT id, created, updated, name, slug, state, publish_date, content_group_id FROM content_objects WHERE id = ?',
    );
    const [a, b] = [await lite.get(insert, data), await pg.get(insert, data)];
    expect(await pg.get(read, b!.id)).toEqual(await lite.get(read, a!.id));
    expect(await pg.get(read, b!.id)).toMatchObject({
      id: 1,
      created: 1795635195075,
      publish_date: 1795635195000,
      content_group_id: 7,
      slug: 'hello',
    });
    // A field that is not a number leaves a number column empty (the row is still written).
    const odd = await pg.get(insert, JSON.stringify({ created: 'yesterday', name: 'Odd' }));
    expect(odd!.id).toBe(2);
    expect(await pg.get(read, odd!.id)).toMatchObject({ created: null, name: 'Odd' });
    // A number that is not a whole 64-bit one is kept as it is (a bigint column refused 1e300).
    const huge = JSON.stringify({ name: 'Huge', publish_date: 1e300, content_group_id: 1.5 });
    const [c, d] = [await lite.get(insert, huge), await pg.get(insert, huge)];
    expect(await pg.get(read, d!.id)).toMatchObject({ publish_date: 1e300, content_group_id: 1.5 });
    expect({ ...(await pg.get(read, d!.id)), id: 0 }).toEqual({ ...(await lite.get(read, c!.id)), id: 0 });
  });
});

describe.skipIf(!havePostgres)('opening a PostgreSQL database', () => {
  it('warns, once at start, when the server runs without autovacuum (its statistics go stale), and only then', async () => {
    const engine = await openPostgres(PG_URL, { schema: started });
    const filesDir = mkdtempSync(join(tmpdir(), 'svc-files-'));
    try {
      const off = (await engine.value(sql<[], { autovacuum: string }>('SHOW autovacuum'))) == 'off';
      const warning = await staleStatisticsWarning(engine);
      expect(warning === undefined).toBe(!off);
      if (off) expect(warning).toMatch(/autovacuum = off.*run ANALYZE/);
      const lines: string[] = [];
      const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line).msg) });
      const platform = createPlatform({ database: withSearchPath(PG_URL, started), logger, filesDir });
      await platform.ready;
      await platform.close();
      expect(lines.filter((l) => l.includes('autovacuum'))).toEqual(off ? [warning] : []);
    } finally {
      await engine.close();
      rmSync(filesDir, { recursive: true, force: true });
    }
  });

  it('creates the schema once when several processes start at once, and opens it again as is', async () => {
    const engines = await Promise.all([1, 2, 3].map(() => openPostgres(PG_URL, { schema: fresh })));
    const version = sql<[], { value: string }>("SELECT value FROM meta WHERE key = 'schema_version'");
    for (const e of engines) expect(await e.value(version)).toBe(String(SCHEMA_VERSION));
    await engines[0].run(
      sql<[]>("INSERT INTO portals (id, name, tier, created_at) VALUES (62515, 'p', 'enterprise', 0)"),
    );
    await Promise.all(engines.map((e) => e.close()));
    const again = await openPostgres(PG_URL, { schema: fresh });
    expect(await again.value(sql<[], { n: number }>('SELECT count(*) AS n FROM portals'))).toBe(1);
    await again.close();
  });

  it('brings a version 9 database up to date: enrollments get their claim and the unique index on active ones, as a new database has them', async () => {
    const made = await openPostgres(PG_URL, { schema: v9 });
    await made.exec(`INSERT INTO enrollments (workflow_id, portal_id, vid, next_run_at, status, enrolled_at) VALUES (3, 9, 5, 1, 'active', 1);
      DROP INDEX enrollments_active; ALTER TABLE enrollments DROP COLUMN claimed_until; UPDATE meta SET value = '9' WHERE key = 'schema_version'`);
    await made.close();
    const db = await openPostgres(PG_URL, { schema: v9 });
    try {
      expect(await db.value(sql<[], { value: string }>("SELECT value FROM meta WHERE key = 'schema_version'"))).toBe(
        String(SCHEMA_VERSION),
      );
      expect(
        await db.all(sql<[], Record<string, unknown>>('SELECT vid, status, claimed_until FROM enrollments')),
      ).toEqual([{ vid: 5, status: 'active', claimed_until: null }]);
      const newer = await openPostgres(PG_URL, { schema: current });
      try {
        const expected = await shape(newer, current, ['enrollments']);
        expect(expected.indexes.map((i) => i.indexdef)).toContain(
          "CREATE UNIQUE INDEX enrollments_active ON enrollments USING btree (workflow_id, vid) WHERE (status = 'active'::text)",
        );
        expect(await shape(db, v9, ['enrollments'])).toEqual(expected);
      } finally {
        await newer.close();
      }
    } finally {
      await db.close();
    }
  });

  it("brings a version 16 database up to date: the events' and sessions' vid indexes hold contacts' rows only, as a new database's, every event kept", async () => {
    const made = await openPostgres(PG_URL, { schema: v16 });
    await made.exec(`DROP INDEX tracking_events_vid; CREATE INDEX tracking_events_vid ON tracking_events(vid, timestamp);
      DROP INDEX sessions_vid; CREATE INDEX sessions_vid ON sessions(vid, started_at);
      INSERT INTO tracking_events (eid, portal_id, kind, utk, vid, timestamp, received_at, data) VALUES
        ('e1', 9, 1, 'u1', NULL, 1000, 1000, '{}'), ('e2', 9, 1, 'u2', 7, 2000, 2000, '{}');
      UPDATE meta SET value = '16' WHERE key = 'schema_version'`);
    await made.close();
    const db = await openPostgres(PG_URL, { schema: v16 });
    try {
      expect(await db.value(sql<[], { value: string }>("SELECT value FROM meta WHERE key = 'schema_version'"))).toBe(
        String(SCHEMA_VERSION),
      );
      expect(await db.all(sql<[], { eid: string }>('SELECT eid FROM tracking_events ORDER BY seq'))).toEqual([
        { eid: 'e1' },
        { eid: 'e2' },
      ]);
      const newer = await openPostgres(PG_URL, { schema: current });
      try {
        const expected = await shape(newer, current, ['tracking_events', 'sessions']);
        expect(expected.indexes.map((i) => i.indexdef)).toEqual(
          expect.arrayContaining([
            'CREATE INDEX tracking_events_vid ON tracking_events USING btree (vid, "timestamp") WHERE (vid IS NOT NULL)',
            'CREATE INDEX sessions_vid ON sessions USING btree (vid, started_at) WHERE (vid IS NOT NULL)',
          ]),
        );
        expect(await shape(db, v16, ['tracking_events', 'sessions'])).toEqual(expected);
      } finally {
        await newer.close();
      }
    } finally {
      await db.close();
    }
  });

  it("brings a version 17 database up to date: the dashboard's visitor sets are gone, its counters kept", async () => {
    const made = await openPostgres(PG_URL, { schema: v17 });
    await made.exec(`CREATE TABLE rollup_visitors (portal_id INTEGER NOT NULL, grain TEXT NOT NULL, bucket BIGINT NOT NULL, utk TEXT NOT NULL, PRIMARY KEY (portal_id, grain, bucket, utk));
      INSERT INTO rollup_visitors VALUES (9, 'd', 0, 'u1');
      INSERT INTO rollups (portal_id, metric, bucket, dim, dim2, n, amount) VALUES (9, 'visitors.d', 0, '', '', 1, 0);
      UPDATE meta SET value = '17' WHERE key = 'schema_version'`);
    await made.close();
    const db = await openPostgres(PG_URL, { schema: v17 });
    try {
      expect(await db.value(sql<[], { value: string }>("SELECT value FROM meta WHERE key = 'schema_version'"))).toBe(
        String(SCHEMA_VERSION),
      );
      expect(
        await db.value(
          sql<[string], { n: number }>(
            "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = ? AND table_name = 'rollup_visitors'",
          ),
          v17,
        ),
      ).toBe(0);
      expect(await db.all(sql<[], { metric: string; n: number }>('SELECT metric, n FROM rollups'))).toEqual([
        { metric: 'visitors.d', n: 1 },
      ]);
    } finally {
      await db.close();
    }
  });

  it('refuses a database of a newer schema version, and closes its connections', async () => {
    const newer = await openPostgres(PG_URL, { schema: fresh });
    await newer.run(
      sql<[string]>("UPDATE meta SET value = ? WHERE key = 'schema_version'"),
      String(SCHEMA_VERSION + 1),
    );
    await newer.close();
    await expect(openPostgres(PG_URL, { schema: fresh })).rejects.toThrow(
      `the database has schema version ${SCHEMA_VERSION + 1}; this platform knows up to ${SCHEMA_VERSION}`,
    );
  });

  it('brings a version 7 database up to date: social channels and broadcasts numbered in the order they lie in, as a new database has them', async () => {
    const v7 = await openPostgres(PG_URL, { schema: older });
    // Back to version 7's tables: keyed by guid, no seq.
    await v7.exec(`
      ALTER TABLE forms DROP COLUMN seq; ALTER TABLE forms DROP CONSTRAINT forms_guid_key; ALTER TABLE forms ADD PRIMARY KEY (guid);
      ALTER TABLE social_channels DROP COLUMN seq; ALTER TABLE social_channels DROP CONSTRAINT social_channels_guid_key; ALTER TABLE social_channels ADD PRIMARY KEY (guid);
      ALTER TABLE broadcasts DROP COLUMN seq; ALTER TABLE broadcasts DROP CONSTRAINT broadcasts_guid_key; ALTER TABLE broadcasts ADD PRIMARY KEY (guid);
      UPDATE meta SET value = '7' WHERE key = 'schema_version';`);
    // Guids out of their sorted order, so that only the order of insertion can give the order.
    for (const guid of ['c-2', 'c-3', 'c-1'])
      await v7.run(sql<[string]>("INSERT INTO social_channels (guid, portal_id, data) VALUES (?, 7, '{}')"), guid);
    for (const guid of ['b-2', 'b-3', 'b-1'])
      await v7.run(
        sql<[string]>(
          "INSERT INTO broadcasts (guid, portal_id, status, trigger_at, created_at, data) VALUES (?, 7, 'DRAFT', NULL, 5, '{}')",
        ),
        guid,
      );
    await v7.close();

    const migrated = await openPostgres(PG_URL, { schema: older });
    const made = await openPostgres(PG_URL, { schema: current });
    try {
      const bySeq = (table: string) =>
        sql<[], { seq: number; guid: string }>(`SELECT seq, guid FROM ${table} ORDER BY seq`);
      expect(await migrated.all(bySeq('social_channels'))).toEqual([
        { seq: 1, guid: 'c-2' },
        { seq: 2, guid: 'c-3' },
        { seq: 3, guid: 'c-1' },
      ]);
      expect(await migrated.all(bySeq('broadcasts'))).toEqual([
        { seq: 1, guid: 'b-2' },
        { seq: 2, guid: 'b-3' },
        { seq: 3, guid: 'b-1' },
      ]);
      // New rows are numbered after them.
      const added = await migrated.get(
        sql<[], { seq: number }>(
          "INSERT INTO social_channels (guid, portal_id, data) VALUES ('c-4', 7, '{}') RETURNING seq",
        ),
      );
      expect(added!.seq).toBe(4);
      await expect(
        migrated.run(
          sql("INSERT INTO broadcasts (guid, portal_id, status, created_at, data) VALUES ('b-1', 7, 'DRAFT', 5, '{}')"),
        ),
      ).rejects.toMatchObject({ kind: 'conflict' }); // guid is unique

      // The same columns, keys and indexes as a new database.
      const expected = await shape(made, current, ['social_channels', 'broadcasts']);
      expect(expected.indexes.map((i) => i.indexdef)).toContain(
        'CREATE UNIQUE INDEX broadcasts_guid_key ON broadcasts USING btree (guid)',
      );
      expect(await shape(migrated, older, ['social_channels', 'broadcasts'])).toEqual(expected);
    } finally {
      await migrated.close();
      await made.close();
    }
  });

  it('brings a version 8 database up to date: forms numbered in the order they were stored, guids still unique', async () => {
    const made = await openPostgres(PG_URL, { schema: v8 });
    await made.exec(`DROP TABLE forms;
      CREATE TABLE forms (guid TEXT PRIMARY KEY, portal_id BIGINT NOT NULL, definition TEXT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL);
      CREATE INDEX forms_portal ON forms(portal_id, created_at);
      INSERT INTO forms VALUES ('c', 7, '{}', 100, 100), ('b', 7, '{}', 100, 100), ('a', 7, '{}', 100, 100);
      UPDATE meta SET value = '8' WHERE key = 'schema_version';`);
    await made.close();

    const db = await openPostgres(PG_URL, { schema: v8 });
    try {
      expect(await db.value(sql<[], { value: string }>("SELECT value FROM meta WHERE key = 'schema_version'"))).toBe(
        String(SCHEMA_VERSION),
      );
      const forms = sql<[], { seq: number; guid: string }>('SELECT seq, guid FROM forms ORDER BY created_at, seq');
      expect(await db.all(forms)).toEqual([
        { seq: 1, guid: 'c' },
        { seq: 2, guid: 'b' },
        { seq: 3, guid: 'a' },
      ]);
      // New forms are numbered after them; a guid is still taken once.
      await db.run(
        sql("INSERT INTO forms (guid, portal_id, definition, created_at, updated_at) VALUES ('d', 7, '{}', 100, 100)"),
      );
      expect((await db.all(forms)).map((f) => f.guid)).toEqual(['c', 'b', 'a', 'd']);
      await expect(
        db.run(
          sql("INSERT INTO forms (guid, portal_id, definition, created_at, updated_at) VALUES ('a', 7, '{}', 1, 1)"),
        ),
      ).rejects.toMatchObject({ kind: 'conflict' });
      expect(await db.value(sql<[], { n: number }>('SELECT count(*) AS n FROM forms'))).toBe(4);
      // The same columns, keys and indexes as a new database.
      const newer = await openPostgres(PG_URL, { schema: current });
      try {
        expect(await shape(db, v8, ['forms'])).toEqual(await shape(newer, current, ['forms']));
      } finally {
        await newer.close();
      }
    } finally {
      await db.close();
    }
  });
});
