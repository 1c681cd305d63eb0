/** The statements that read or write many visitors' rows at once on PostgreSQL (perRow and
 * updateRows in src/db/engine.ts) find each row by its index, with the plans PostgreSQL keeps for
 * prepared statements (generic ones, made without the parameters' values) on tables of 20,000
 * rows: a plain join over the JSON array was once planned as a scan of the whole table. So does
 * a test of a column against a JSON array (inJsonArray) on a table whose statistics are from when
 * it was nearly empty (a server without autovacuum). The statements are the stores' own, as they
 * send them (recorded), explained on the real schema. */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine, Param, Query, Queryable } from '../src/db/engine';
import { postgresDialect, toPostgres } from '../src/db/engine-postgres';
import { openPostgres } from '../src/db/open-postgres';
import { type ContactStore, type ContactsChanged, contactStore } from '../src/store/contacts';
import { listStore } from '../src/store/lists';
import type { PropertyStore } from '../src/store/properties';
import { type Session, sessionStore } from '../src/store/sessions';
import { trackingStore } from '../src/store/tracking';
import { havePostgres, PG_URL, pgSchema, withSearchPath } from './postgres';

const schema = await pgSchema('plans');
const ROWS = 20_000;

/** What a store sends: each statement's text and parameters, answered with no rows (or those
 * `rowsFor` gives a statement's text). */
function recorder(rowsFor: (text: string) => unknown[] = () => []) {
  const sent: { text: string; params: Param[] }[] = [];
  const record = async (query: Query, ...params: Param[]) => void sent.push({ text: query.text, params });
  const all = async (q: Query, ...p: Param[]) => (await record(q, ...p), rowsFor(q.text));
  const db = {
    lock: async () => {},
    get: record,
    all,
    value: record,
    run: async (q: Query, ...p: Param[]) => (await record(q, ...p), 0),
    send: record,
  };
  return { db: db as unknown as Queryable, sent };
}

/** The plan PostgreSQL keeps for `text` once prepared, for these `params`. */
async function genericPlan(client: pg.Client, text: string, params: Param[]) {
  await client.query('DEALLOCATE ALL');
  await client.query(`PREPARE s AS ${toPostgres(text)}`);
  const literals = params.map((p) =>
    p === null ? 'NULL' : typeof p == 'number' ? String(p) : client.escapeLiteral(String(p)),
  );
  const { rows } = await client.query(`EXPLAIN EXECUTE s(${literals.join(', ')})`);
  return rows.map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']).join('\n');
}

describe.skipIf(!havePostgres)('PostgreSQL plans of the statements over many visitors', () => {
  let client: pg.Client;
  const engine = { kind: 'postgres', dialect: postgresDialect } as Engine;
  const visitors = [
    { portal_id: 1, utk: 'u1' },
    { portal_id: 1, utk: 'u2' },
  ];

  beforeAll(async () => {
    await (await openPostgres(PG_URL, { schema })).close();
    client = new pg.Client(withSearchPath(PG_URL, schema));
    await client.connect();
    await client.query(`
      INSERT INTO utks (portal_id, utk, vid, linked_at) SELECT 1, 'u' || i, i, 0 FROM generate_series(1, ${ROWS}) AS i;
      INSERT INTO sessions (portal_id, utk, started_at, last_at, page_views, source) SELECT 1, 'u' || (i % 5000), i, i, 1, 'DIRECT_TRAFFIC' FROM generate_series(1, ${ROWS}) AS i;
      INSERT INTO portals (id, name, tier, created_at) VALUES (1, 'Plans', 'enterprise', 0);
      INSERT INTO contacts (vid, portal_id, email, properties, created_at, updated_at) SELECT i, 1, 'c' || i || '@plans.test', '{}', i, i FROM generate_series(1, ${ROWS}) AS i;
      ANALYZE utks; ANALYZE sessions; ANALYZE contacts;
      -- Statistics from when the table held two rows, as a server without autovacuum keeps them.
      INSERT INTO form_submissions (conversion_id, portal_id, vid, form_guid, timestamp, values_json) SELECT 'c' || i, 1, i, 'form-' || (i % 3), i, '{}' FROM generate_series(1, 2) AS i;
      ANALYZE form_submissions;
      INSERT INTO form_submissions (conversion_id, portal_id, vid, form_guid, timestamp, values_json) SELECT 'c' || i, 1, i, 'form-' || (i % 3), i, '{}' FROM generate_series(3, ${ROWS}) AS i;
      SET plan_cache_mode = force_generic_plan;`);
  });
  afterAll(() => client?.end());

  const check = async (sent: { text: string; params: Param[] }[], table: string) => {
    expect(sent).toHaveLength(1);
    const plan = await genericPlan(client, sent[0].text, sent[0].params);
    expect(plan).not.toMatch(new RegExp(`Seq Scan on ${table}\\b`));
    expect(plan).toMatch(new RegExp(`Index (Only )?Scan( Backward)? using \\w+ on ${table}\\b`));
    // Nothing joined row by row against the array (that join read it 20 million times once).
    expect(plan).not.toMatch(/Join Filter/);
  };

  it("reads the visitors' links by the key", async () => {
    const { db, sent } = recorder();
    await trackingStore(engine, {} as ContactStore, Date.now).linkedOfAll(db, visitors);
    await check(sent, 'utks');
  });

  it("reads the visitors' newest sessions, and the spans of their days, by the visitor's index", async () => {
    const sessions = sessionStore(engine);
    const newest = recorder();
    await sessions.latestOfAll(newest.db, visitors);
    await check(newest.sent, 'sessions');
    const spans = recorder();
    await sessions.spansOfAll(
      spans.db,
      visitors.map((v) => ({ ...v, from: 0, to: 86_400_000 })),
    );
    await check(spans.sent, 'sessions');
  });

  it('reads the contacts a bulk updates by the primary key (locked, in vid order)', async () => {
    const { db, sent } = recorder();
    const item = (vid: number) => ({ vid, compute: () => [], source: { type: 'ANALYTICS' as const } });
    await contactStore(engine, {} as PropertyStore, Date.now, () => {}).updateFromAll(db, 1, [item(20), item(10)]);
    expect(sent[0].params).toEqual(['[10,20]', 1]);
    await check(sent, 'contacts');
  });

  it('updates grown sessions by the primary key', async () => {
    const { db, sent } = recorder();
    const grown = (id: number) => ({
      session: { id, started_at: 1, last_at: 2, page_views: 2 } as Session,
      startMoved: false,
    });
    await sessionStore(engine).updateAll(db, [grown(1), grown(2)]);
    await check(sent, 'sessions');
  });

  it("reads which forms a batch's contacts submitted by the index, however small the statistics say the table is", async () => {
    // The dynamic lists' re-check of a contact batch against a list of those who filled out a form.
    let recheck: ContactsChanged = () => {};
    const noContacts = { aboutToChange: () => {} } as unknown as ContactStore;
    listStore(engine, noContacts, Date.now, (fn) => (recheck = fn));
    const filters = JSON.stringify([[{ operator: 'HAS_FILLED_OUT_FORM', form: 'form-1' }]]);
    const { db, sent } = recorder((text) => (text.includes('FROM lists') ? [{ list_id: 7, filters }] : []));
    const changed = Array.from({ length: 1000 }, (_, i) => ({ vid: 1 + i * 17, properties: {} }));
    await recheck(db as never, 1, changed);
    const read = sent.filter((s) => s.text.includes('FROM form_submissions'));
    expect(read[0].params).toEqual([1, JSON.stringify(changed.map((c) => c.vid)), '["form-1"]']);
    await check(read, 'form_submissions');
  });
});
