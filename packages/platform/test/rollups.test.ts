/** The dashboard's rollups equal a full recount of the raw tables (tracking_events, sessions,
 * form_submissions, contacts, prospect_views) after random ingest over HTTP: collector batches of
 * random visitors, pages, referrers, campaigns and addresses (some out of order, moving a
 * session's start), custom events with values, identifications, form submissions and contacts
 * made through the API. */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../src/db/engine';
import { SAMPLE_ORGANIZATIONS } from '../src/store/prospects';
import { bucketOf, campaignOf, pageKey, referrerHost } from '../src/store/rollups';
import { startPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
let formGuid: string;
beforeAll(async () => {
  t = await startPlatform();
  const form = await t.call('POST', '/contacts/v1/forms', {
    body: { name: 'Demo request', fields: [{ name: 'email' }, { name: 'firstname' }] },
  });
  formGuid = form.json.guid;
});
afterAll(() => t.close());

const PORTAL = 62515;
const MIN = 60_000;
let n = 0;
const hex = () => (++n).toString(16).padStart(32, '0');
const VISITORS = Array.from({ length: 10 }, (_, i) => (i + 1).toString(16).padStart(32, 'e'));
const PAGES = [
  'https://acme.test/',
  'https://acme.test/pricing?plan=pro',
  'https://acme.test/blog/rollups#top',
  'https://acme.test/contact',
];
const LANDINGS = [
  ...PAGES,
  'https://acme.test/?utm_source=newsletter&utm_medium=email&utm_campaign=spring',
  'https://acme.test/offer?utm_source=google&utm_medium=cpc&utm_campaign=brand&utm_term=widgets',
  'https://acme.test/?gclid=abc',
];
const REFERRERS = [
  undefined,
  '',
  'https://www.google.com/',
  'https://www.facebook.com/',
  'https://news.ycombinator.com/item?id=1',
  'https://acme.test/',
];
const ADDRESSES = ['127.0.0.1', '192.0.2.7', '198.51.100.9', '203.0.113.4'];

const step = fc.oneof(
  fc.record({
    kind: fc.constant('views' as const),
    visitor: fc.nat(VISITORS.length - 1),
    landing: fc.nat(LANDINGS.length - 1),
    referrer: fc.nat(REFERRERS.length - 1),
    more: fc.array(fc.nat(PAGES.length - 1), { maxLength: 3 }),
    // Minutes the clock moves first (a new hour, day or session), and how far back the first
    // page view is dated (an older one moves its session's start).
    wait: fc.oneof(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 31, max: 3 * 24 * 60 })),
    back: fc.integer({ min: 0, max: 90 }),
    identify: fc.boolean(),
    address: fc.nat(ADDRESSES.length - 1),
  }),
  fc.record({
    kind: fc.constant('event' as const),
    visitor: fc.nat(VISITORS.length - 1),
    name: fc.constantFrom('signup', 'buy', 'demo'),
    value: fc.option(fc.integer({ min: 1, max: 500 })),
  }),
  fc.record({ kind: fc.constant('form' as const), visitor: fc.nat(VISITORS.length - 1), known: fc.boolean() }),
  fc.record({ kind: fc.constant('contact' as const) }),
);
type Step = typeof step extends fc.Arbitrary<infer S> ? S : never;

/** Sends a batch once its events have happened (the collector dates none after it arrives). */
async function collect(batch: object[], address = '127.0.0.1') {
  t.clock.now = Math.max(t.clock.now, ...batch.map((e) => Number((e as { cts: string }).cts)));
  const res = await t.call('POST', '/collect/e', {
    body: JSON.stringify(batch),
    headers: { 'content-type': 'text/plain', 'x-forwarded-for': address },
    portal: null,
  });
  expect(res.json).toMatchObject({ rejected: [] });
}

async function run(s: Step) {
  const now = t.clock.now;
  if (s.kind == 'views') {
    t.clock.now += s.wait * MIN;
    const vi = VISITORS[s.visitor];
    const at = t.clock.now - s.back * MIN;
    const r = REFERRERS[s.referrer];
    const view = (pu: string, ref: string | undefined, cts: number) => ({
      eid: hex(),
      k: '1',
      a: String(PORTAL),
      v: '1',
      cts: String(cts),
      pu,
      t: 'Page',
      vi,
      ...(ref === undefined ? {} : { r: ref }),
    });
    const batch = [
      view(LANDINGS[s.landing], r, at),
      ...s.more.map((p, i) => view(PAGES[p], LANDINGS[s.landing], t.clock.now + (i + 1) * 1000)),
    ];
    if (s.identify) Object.assign(batch.at(-1)!, { i: `email=${vi.slice(-6)}@visitors.test` });
    await collect(batch, ADDRESSES[s.address]);
  } else if (s.kind == 'event') {
    await collect([
      {
        eid: hex(),
        k: '3',
        a: String(PORTAL),
        v: '1',
        cts: String(now),
        n: s.name,
        vi: VISITORS[s.visitor],
        ...(s.value === null ? {} : { m: String(s.value) }),
      },
    ]);
  } else if (s.kind == 'form') {
    // A new address, or the visitor's own (the contact its identify made, if it did).
    const fields = new URLSearchParams({
      email: s.known ? `${VISITORS[s.visitor].slice(-6)}@visitors.test` : `f${++n}@forms.test`,
      firstname: 'Ada',
    });
    fields.set('svc_context', JSON.stringify({ svcutk: VISITORS[s.visitor], pageUrl: 'https://acme.test/contact' }));
    const res = await t.call('POST', `${t.formsUrl}/uploads/form/v2/${PORTAL}/${formGuid}`, {
      body: fields.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      portal: null,
    });
    expect(res.status, res.text).toBeLessThan(300);
  } else {
    const res = await t.call('POST', '/contacts/v1/contact', {
      body: { properties: [{ property: 'email', value: `api${++n}@contacts.test` }] },
    });
    expect(res.status).toBe(200);
  }
}

type Counts = Map<string, [number, number]>;
const key = (metric: string, bucket: number, dim = '', dim2 = '') =>
  [metric, bucket, dim.slice(0, 500), dim2.slice(0, 500)].join('|');
function count(into: Counts, metric: string, at: number, dim?: string | null, dim2?: string | null, amount = 0) {
  const k = key(metric, bucketOf(metric, at), dim ?? '', dim2 ?? '');
  const c = into.get(k) ?? [0, 0];
  into.set(k, [c[0] + 1, c[1] + amount]);
}

/** Every counter the rollups should hold, counted from the raw tables. */
async function recount(): Promise<Counts> {
  const db = t.platform.services.engine;
  const out: Counts = new Map();
  const events = await db.all(
    sql<
      [number],
      {
        kind: number;
        utk: string;
        timestamp: number;
        url: string | null;
        event_name: string | null;
        value: number | null;
      }
    >('SELECT kind, utk, timestamp, url, event_name, value FROM tracking_events WHERE portal_id = ?'),
    PORTAL,
  );
  const visitors = new Set<string>();
  for (const e of events) {
    const at = Number(e.timestamp);
    if (Number(e.kind) == 3) {
      count(out, 'event.d', at, e.event_name, '', Number(e.value ?? 0));
      continue;
    }
    for (const m of ['views.d', 'views.h']) count(out, m, at);
    count(out, 'page.d', at, pageKey(e.url ?? undefined));
    for (const m of ['visitors.d', 'visitors.h']) {
      const seen = `${m}|${bucketOf(m, at)}|${e.utk}`;
      if (!visitors.has(seen)) count(out, m, at);
      visitors.add(seen);
    }
  }
  const sessions = await db.all(
    sql<
      [number],
      {
        started_at: number;
        source: string;
        source_data_1: string | null;
        referrer: string | null;
        landing_url: string | null;
      }
    >('SELECT started_at, source, source_data_1, referrer, landing_url FROM sessions WHERE portal_id = ?'),
    PORTAL,
  );
  for (const s of sessions) {
    const at = Number(s.started_at);
    for (const m of ['sessions.d', 'sessions.h']) count(out, m, at);
    count(out, 'source.d', at, s.source, s.source_data_1);
    if (referrerHost(s.referrer)) count(out, 'referrer.d', at, referrerHost(s.referrer));
    if (campaignOf(s.landing_url)) count(out, 'campaign.d', at, campaignOf(s.landing_url), s.source);
  }
  for (const f of await db.all(
    sql<[number], { form_guid: string; timestamp: number }>(
      'SELECT form_guid, timestamp FROM form_submissions WHERE portal_id = ?',
    ),
    PORTAL,
  ))
    count(out, 'form.d', Number(f.timestamp), f.form_guid);
  for (const c of await db.all(
    sql<[number], { created_at: number; properties: string }>(
      'SELECT created_at, properties FROM contacts WHERE portal_id = ?',
    ),
    PORTAL,
  )) {
    const p = JSON.parse(c.properties);
    count(out, 'contacts.d', Number(c.created_at), p.svc_analytics_source, p.svc_analytics_source_data_1);
  }
  const countryOf = new Map(SAMPLE_ORGANIZATIONS.map((o) => [o.organization, o.country]));
  for (const v of await db.all(
    sql<[number], { organization: string; timestamp: number }>(
      'SELECT organization, timestamp FROM prospect_views WHERE portal_id = ?',
    ),
    PORTAL,
  ))
    count(out, 'country.d', Number(v.timestamp), countryOf.get(v.organization));
  return out;
}

const fold = () => t.platform.services.rollups.fold();
const deltas = () =>
  t.platform.services.engine.value(sql<[], { n: number }>('SELECT count(*) AS n FROM rollup_deltas')).then(Number);

/** The counters, once what requests added is in them (PostgreSQL's deltas folded). */
async function rollups(): Promise<Counts> {
  await fold();
  return counters();
}

/** The counter rows as they are. */
async function counters(): Promise<Counts> {
  const rows = await t.platform.services.engine.all(
    sql<[number], { metric: string; bucket: number; dim: string; dim2: string; n: number; amount: number }>(
      'SELECT metric, bucket, dim, dim2, n, amount FROM rollups WHERE portal_id = ? AND (n <> 0 OR amount <> 0)',
    ),
    PORTAL,
  );
  return new Map(rows.map((r) => [key(r.metric, Number(r.bucket), r.dim, r.dim2), [Number(r.n), Number(r.amount)]]));
}

const sorted = (c: Counts) => [...c.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

describe('rollups', () => {
  it('equal a full recount of the raw tables after random ingest', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 25 }), async (steps) => {
        for (const s of steps) await run(s);
        expect(sorted(await rollups())).toEqual(sorted(await recount()));
      }),
      { numRuns: 20 },
    );
    // The run did reach every kind of counter.
    const metrics = new Set([...(await rollups()).keys()].map((k) => k.split('|')[0]));
    expect([...metrics].sort()).toEqual([
      'campaign.d',
      'contacts.d',
      'country.d',
      'event.d',
      'form.d',
      'page.d',
      'referrer.d',
      'sessions.d',
      'sessions.h',
      'source.d',
      'views.d',
      'views.h',
      'visitors.d',
      'visitors.h',
    ]);
  }, 120_000);

  it('stay exact when many requests write the same counters at once (concurrent transactions on PostgreSQL)', async () => {
    const at = t.clock.now;
    const batch = (i: number) => {
      // Two visitors shared by all the requests, and one of its own, on the same pages: the same
      // counter and visitor-set keys from every transaction, in different orders.
      const vi = i % 3 == 0 ? VISITORS[0] : i % 3 == 1 ? VISITORS[1] : (0x1000 + i).toString(16).padStart(32, 'f');
      return (i % 2 ? PAGES : [...PAGES].reverse()).map((pu, j) => ({
        eid: hex(),
        k: '1',
        a: String(PORTAL),
        v: '1',
        cts: String(at + j),
        pu,
        t: 'Page',
        vi,
      }));
    };
    // Folds side by side with the writes, and with each other: none counts a delta twice or loses one.
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        i % 5 == 4 ? Promise.all([collect(batch(i)), fold(), fold()]) : collect(batch(i)),
      ),
    );
    expect(sorted(await rollups())).toEqual(sorted(await recount()));
  });

  it('count a visitor once in an hour that an older session of it reached after a newer one had started (page views out of order)', async () => {
    // Two visitors alike, whose last page views come in one batch: their sessions' spans are read
    // together (on PostgreSQL in one statement).
    const visitorsOf = [hex(), hex()];
    const base = Math.floor(t.clock.now / (30 * 24 * 60 * MIN) + 1) * 30 * 24 * 60 * MIN + 10 * 60 * MIN; // 10:00 UTC, a month no other test uses
    const view = (vi: string, minute: number, pu = PAGES[0], r?: string) => ({
      eid: hex(),
      k: '1',
      a: String(PORTAL),
      v: '1',
      cts: String(base + minute * MIN),
      pu,
      t: 'Page',
      vi,
      ...(r ? { r } : {}),
    });
    t.clock.now = base + 61 * MIN;
    for (const vi of visitorsOf) {
      // A session from 10:00 to 11:00 (its last page view the visitor's first in the 11:00 hour),
      await collect([view(vi, 0), view(vi, 20), view(vi, 40), view(vi, 60)]);
      // then, sent late, a campaign's page view at 10:30: a session of its own, the newest by its start,
      await collect([view(vi, 30, LANDINGS[4], 'https://mail.example/')]);
    }
    // and one at 11:05: more than half an hour after that newest session, a third one.
    t.clock.now = base + 66 * MIN;
    await collect(visitorsOf.map((vi) => view(vi, 65)));
    const counts = await rollups();
    const visitors = (metric: string, at: number) => counts.get(key(metric, bucketOf(metric, at)))?.[0];
    expect([
      visitors('visitors.h', base),
      visitors('visitors.h', base + 60 * MIN),
      visitors('visitors.d', base),
    ]).toEqual([2, 2, 2]);
    expect([visitors('sessions.h', base), visitors('sessions.h', base + 60 * MIN)]).toEqual([4, 2]);
    expect(sorted(counts)).toEqual(sorted(await recount()));
  });

  it('leave out what a failed write added, the writes beside it (SQLite: in its group commit) counted', async () => {
    const s = t.platform.services;
    const OTHER = PORTAL + 1; // counters of their own, out of the recounts above
    const add = (db: Parameters<Parameters<typeof s.write>[0]>[0], amount: number) =>
      s.rollups.add(db, OTHER, 'event.d', t.clock.now, 'group', '', 1, amount);
    const ok = s.write((db) => add(db, 5));
    const failing = s.write(async (db) => {
      await add(db, 7);
      throw new Error('refused after adding');
    });
    const also = s.write((db) => add(db, 11));
    await expect(failing).rejects.toThrow('refused after adding');
    await Promise.all([ok, also]);
    await fold();
    const rows = await s.engine.all(
      sql<[number], { n: number; amount: number }>('SELECT n, amount FROM rollups WHERE portal_id = ?'),
      OTHER,
    );
    expect(rows.map((r) => [Number(r.n), Number(r.amount)])).toEqual([[2, 16]]);
  });

  it('are added to by a request in its transaction on SQLite, and through deltas the scheduler folds on PostgreSQL', async () => {
    // The timer's runs would fold at any moment: this test runs the scheduler itself.
    await t.platform.services.scheduler.stop();
    await fold();
    const before = await counters();
    await collect(
      PAGES.map((pu, j) => ({
        eid: hex(),
        k: '1',
        a: String(PORTAL),
        v: '1',
        cts: String(t.clock.now + j),
        pu,
        t: 'Page',
        vi: VISITORS[0],
      })),
    );
    if (t.platform.services.engine.kind == 'postgres') {
      // The request wrote no counter row, only its additions (views, pages, …), folded later.
      expect(await deltas()).toBeGreaterThan(0);
      expect(await counters()).toEqual(before);
      expect((await t.platform.services.scheduler.runDue()).rollups).toBeGreaterThan(0);
      expect(await deltas()).toBe(0);
    } else expect((await t.platform.services.scheduler.runDue()).rollups).toBe(0);
    expect(sorted(await counters())).toEqual(sorted(await recount()));
  });
});
