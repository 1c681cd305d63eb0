/** The inspector's dashboard endpoints over HTTP: a known walk of three visitors (a search, an
 * email campaign from a mapped address, a referral two days earlier), custom events, a form
 * submission and a contact made through the API, then every panel's numbers for today and
 * for 7 days; the live view; the refusals (no key, a bad range, an unknown panel). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type TestPlatform } from './harness';

const KEY = 'dashboard-inspector-key';
const PORTAL = 62515;
const MIN = 60_000;
const DAY = 24 * 60 * MIN;
/** Noon UTC three days ahead: the day's and hour's buckets are known, and the walk (from two days
 * before it) comes after the portal was made (a form drops the fields of properties newer than it). */
const NOON = Math.floor(Date.now() / DAY) * DAY + 3 * DAY + 12 * 60 * MIN;
const A = 'a'.repeat(32);
const B = 'b'.repeat(32);
const C = 'c'.repeat(32);

let t: TestPlatform;
let n = 0;
const eid = () => (++n).toString(16).padStart(32, '0');
const view = (vi: string, pu: string, r: string | undefined, at: number, extra: Record<string, string> = {}) => ({
  eid: eid(),
  k: '1',
  a: String(PORTAL),
  v: '1',
  cts: String(at),
  pu,
  t: 'Page',
  vi,
  ...(r === undefined ? {} : { r }),
  ...extra,
});
const custom = (vi: string, name: string, at: number, value?: number) => ({
  eid: eid(),
  k: '3',
  a: String(PORTAL),
  v: '1',
  cts: String(at),
  n: name,
  vi,
  ...(value ? { m: String(value) } : {}),
});

/** Sends a batch once its events have happened (the collector dates none after it arrives). */
async function collect(batch: object[], address = '127.0.0.1') {
  t.clock.now = Math.max(t.clock.now, ...batch.map((e) => Number((e as { cts: string }).cts)));
  const res = await t.call('POST', '/collect/e', {
    body: JSON.stringify(batch),
    headers: { 'content-type': 'text/plain', 'x-forwarded-for': address },
    portal: null,
  });
  expect(res.json).toMatchObject({ accepted: batch.length, rejected: [] });
}
const panel = (name: string, query = '', key = KEY) =>
  t.call('GET', `/_inspector/api/dashboard/${name}?portal=${PORTAL}${query}`, {
    headers: key ? { authorization: `Bearer ${key}` } : {},
    portal: null,
  });

let formGuid: string;
beforeAll(async () => {
  t = await startPlatform({ inspectorKey: KEY });
  t.clock.now = NOON - 2 * DAY;
  await collect([
    view(C, 'https://acme.test/blog', 'https://blog.example.org/widgets', t.clock.now),
    view(C, 'https://acme.test/pricing', 'https://acme.test/blog', t.clock.now + MIN),
  ]);
  t.clock.now = NOON;
  await collect([
    view(A, 'https://acme.test/', 'https://www.google.com/', NOON),
    view(A, 'https://acme.test/pricing', 'https://acme.test/', NOON + 1000, { i: 'email=ann@visitors.test' }),
    custom(A, 'buy', NOON + 2000, 100),
    custom(A, 'buy', NOON + 3000, 50),
  ]);
  await collect(
    [
      view(B, 'https://acme.test/?utm_source=newsletter&utm_medium=email&utm_campaign=spring', undefined, NOON + 4000),
      custom(B, 'signup', NOON + 5000),
    ],
    '192.0.2.5',
  );
  const form = await t.call('POST', '/contacts/v1/forms', {
    body: { name: 'Demo request', fields: [{ name: 'email' }] },
  });
  formGuid = form.json.guid;
  const fields = new URLSearchParams({
    email: 'bob@visitors.test',
    svc_context: JSON.stringify({ svcutk: B, pageUrl: 'https://acme.test/' }),
  });
  const submitted = await t.call('POST', `${t.formsUrl}/uploads/form/v2/${PORTAL}/${formGuid}`, {
    body: fields.toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    portal: null,
  });
  expect(submitted.status).toBe(204);
  expect(
    (
      await t.call('POST', '/contacts/v1/contact', {
        body: { properties: [{ property: 'email', value: 'cat@api.test' }] },
      })
    ).status,
  ).toBe(200);
  t.clock.now = NOON + MIN;
});
afterAll(() => t.close());

describe('dashboard endpoints', () => {
  it('traffic: visitors, sessions and page views per hour today and per day over 7 days', async () => {
    const today = await panel('traffic', '&range=today');
    expect(today.status).toBe(200);
    expect(today.json.range).toEqual({
      name: 'today',
      from: NOON - 12 * 60 * MIN,
      to: NOON + 12 * 60 * MIN,
      grain: 'hour',
    });
    expect(today.json.buckets).toHaveLength(24);
    const noon = today.json.buckets.indexOf(NOON);
    expect([today.json.views[noon], today.json.sessions[noon], today.json.visitors[noon]]).toEqual([3, 2, 2]);
    expect(today.json.views.reduce((a: number, b: number) => a + b, 0)).toBe(3);
    expect(today.json.totals).toEqual({ views: 3, visitors: 2, sessions: 2 });

    const week = await panel('traffic', '&range=7d');
    expect(week.json.range.grain).toBe('day');
    expect(week.json.buckets).toHaveLength(7);
    expect(week.json.buckets.at(-1)).toBe(NOON - 12 * 60 * MIN);
    expect(week.json.views.slice(-3)).toEqual([2, 0, 3]);
    expect(week.json.totals).toEqual({ views: 5, visitors: 3, sessions: 3 });
  });

  it('pages: the most viewed, grouped without their query', async () => {
    expect((await panel('pages', '&range=7d')).json.pages).toEqual([
      { url: 'https://acme.test/', views: 2 },
      { url: 'https://acme.test/pricing', views: 2 },
      { url: 'https://acme.test/blog', views: 1 },
    ]);
    expect((await panel('pages', '&range=today')).json.pages).toEqual([
      { url: 'https://acme.test/', views: 2 },
      { url: 'https://acme.test/pricing', views: 1 },
    ]);
  });

  it('sources: sessions and contacts made per source, the conversion rate, the details and the referrers', async () => {
    const { json } = await panel('sources', '&range=7d');
    expect(json.types).toEqual([
      { source: 'EMAIL_MARKETING', sessions: 1, contacts: 1, conversionRate: 1 },
      { source: 'ORGANIC_SEARCH', sessions: 1, contacts: 1, conversionRate: 1 },
      { source: 'REFERRALS', sessions: 1, contacts: 0, conversionRate: 0 },
      { source: 'OFFLINE', sessions: 0, contacts: 1, conversionRate: null },
    ]);
    expect(json.details).toEqual([
      { source: 'EMAIL_MARKETING', detail: 'spring', sessions: 1, contacts: 1, conversionRate: 1 },
      { source: 'ORGANIC_SEARCH', detail: 'Google', sessions: 1, contacts: 1, conversionRate: 1 },
      { source: 'REFERRALS', detail: 'blog.example.org', sessions: 1, contacts: 0, conversionRate: 0 },
    ]);
    expect(json.referrers).toEqual([
      { host: 'blog.example.org', sessions: 1 },
      { host: 'google.com', sessions: 1 },
    ]);
  });

  it('campaigns, countries, conversions and custom events', async () => {
    expect((await panel('campaigns', '&range=7d')).json.campaigns).toEqual([
      { campaign: 'spring', source: 'EMAIL_MARKETING', sessions: 1 },
    ]);
    expect((await panel('countries', '&range=7d')).json.countries).toEqual([{ country: 'United States', views: 1 }]);
    expect((await panel('conversions', '&range=7d')).json).toMatchObject({
      forms: [{ guid: formGuid, name: 'Demo request', submissions: 1 }],
      submissions: 1,
      contacts: 3,
    });
    expect((await panel('events', '&range=today')).json.events).toEqual([
      { name: 'buy', count: 2, revenue: 150 },
      { name: 'signup', count: 1, revenue: 0 },
    ]);
  });

  it('live: the visitors with a page view in the last 5 minutes, newest first', async () => {
    const { json } = await panel('live');
    expect(json.visitors).toBe(2);
    expect(
      json.sessions.map((s: { visitor: string; source: string; pageViews: number }) => [
        s.visitor,
        s.source,
        s.pageViews,
      ]),
    ).toEqual([
      [B.slice(0, 8), 'EMAIL_MARKETING', 1],
      [A.slice(0, 8), 'ORGANIC_SEARCH', 2],
    ]);
    t.clock.now = NOON + 10 * MIN;
    expect((await panel('live')).json).toMatchObject({ visitors: 0, sessions: [] });
    t.clock.now = NOON + MIN;
  });

  it('another portal sees none of it', async () => {
    const other = await t.call('GET', '/_inspector/api/dashboard/traffic?portal=99999&range=7d', {
      headers: { authorization: `Bearer ${KEY}` },
      portal: null,
    });
    expect(other.json.totals).toEqual({ views: 0, visitors: 0, sessions: 0 });
  });

  it('refuses without the key (401), a bad range (400 naming it) and an unknown panel (404)', async () => {
    expect((await panel('traffic', '&range=7d', '')).status).toBe(401);
    const bad = await panel('traffic', '&range=yesterday');
    expect([bad.status, bad.json.message]).toEqual([400, 'range must be one of today, 7d, 30d, 90d; got "yesterday"']);
    const twice = await t.call('GET', `/_inspector/api/dashboard/pages?portal=${PORTAL}&range=7d&range=30d`, {
      headers: { authorization: `Bearer ${KEY}` },
      portal: null,
    });
    expect(twice.status).toBe(400);
    const unknown = await panel('revenue', '&range=7d');
    expect([unknown.status, unknown.json.message]).toEqual([404, 'no inspector data at /dashboard/revenue']);
  });
});
