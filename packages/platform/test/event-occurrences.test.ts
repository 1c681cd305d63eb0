/** The events on a contact's timeline (GET /events/v3/events) over HTTP: the tracker's page views
 * and custom events with their properties, and the events API's, newest first, filtered, paged. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../src/db/engine';
import { startPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
let vid: number;
const UTK = 'c0'.repeat(16);
const T0 = Date.UTC(2026, 10, 20, 9, 0, 0);
let n = 0;
const eid = () => (++n).toString(16).padStart(32, 'e');
const wire = (at: number, fields: Record<string, string>) => ({
  eid: eid(),
  a: '62515',
  v: '1',
  cts: String(at),
  vi: UTK,
  ln: 'en-GB',
  ...fields,
});
const list = (query: string, portal = t.portals[0]) => t.call('GET', `/events/v3/events?${query}`, { portal });

beforeAll(async () => {
  t = await startPlatform();
  // The platform's clock just after the events: the collector dates a browser's event by its
  // arrival when the browser's clock is days behind.
  t.clock.now = T0 + 3500;
  const batch = [
    wire(T0, { k: '1', pu: 'https://acme.test/', t: 'Home', po: '/', r: 'https://www.google.com/' }),
    wire(T0 + 1000, {
      k: '3',
      pu: 'https://acme.test/pricing',
      t: 'Pricing',
      n: 'signup',
      m: '49',
      _plan: 'pro',
      _seats: '3',
    }),
    wire(T0 + 2000, {
      k: '1',
      pu: 'https://acme.test/thanks',
      t: 'Thanks',
      po: '/thanks',
      r: 'https://acme.test/pricing',
      i: 'email=ada%40acme.test',
    }),
  ];
  const collected = await t.call('POST', '/collect/e', {
    body: JSON.stringify(batch),
    headers: { 'content-type': 'text/plain' },
    portal: null,
  });
  expect(collected.json).toEqual({ accepted: 3, duplicates: 0, rejected: [] });
  // The events API: a server's JSON event, and the public GET form with a parameter of its own.
  const sent = await t.call('POST', '/v1/event', {
    body: {
      eventName: 'trial-started',
      email: 'ada@acme.test',
      occurredAt: T0 + 3000,
      properties: { plan: 'team', seats: 5 },
    },
  });
  expect(sent.status).toBe(204);
  t.clock.now = T0 + 4000;
  const pixel = await t.call('GET', `/v1/event?_n=webinar&_a=62515&email=ada%40acme.test&topic=growth`, {
    portal: null,
  });
  expect(pixel.status).toBe(200);
  vid = (await t.call('GET', '/contacts/v1/contact/email/ada@acme.test/profile')).json.vid;
});
afterAll(() => t.close());

describe('GET /events/v3/events', () => {
  it("is read from rows that keep what arrived beyond their columns: a tracker event's other wire fields, an events API call whole", async () => {
    const rows = await t.platform.services.engine.all(
      sql<[], { source: string; url: string | null; data: string }>(
        'SELECT source, url, data FROM tracking_events ORDER BY timestamp',
      ),
    );
    expect(rows.map((r) => [r.source, r.url, JSON.parse(r.data)])).toEqual([
      ['tracker', 'https://acme.test/', { v: '1', ln: 'en-GB', po: '/', r: 'https://www.google.com/' }],
      ['tracker', 'https://acme.test/pricing', { v: '1', ln: 'en-GB', _plan: 'pro', _seats: '3' }],
      [
        'tracker',
        'https://acme.test/thanks',
        { v: '1', ln: 'en-GB', po: '/thanks', r: 'https://acme.test/pricing', i: 'email=ada%40acme.test' },
      ],
      [
        'events-post',
        null,
        {
          eventName: 'trial-started',
          email: 'ada@acme.test',
          occurredAt: T0 + 3000,
          properties: { plan: 'team', seats: 5 },
        },
      ],
      ['events-get', null, { _n: 'webinar', _a: 62515, email: 'ada@acme.test', topic: 'growth' }],
    ]);
  });

  it("lists a contact's page views and custom events with their properties, newest first", async () => {
    const res = await list(`objectType=contact&objectId=${vid}`);
    expect(res.status).toBe(200);
    expect(res.json.paging).toBeUndefined();
    expect(res.json.results).toEqual([
      {
        objectType: 'CONTACT',
        objectId: String(vid),
        eventType: 'webinar',
        occurredAt: new Date(T0 + 4000).toISOString(),
        id: expect.any(String),
        properties: { topic: 'growth' },
      },
      {
        objectType: 'CONTACT',
        objectId: String(vid),
        eventType: 'trial-started',
        occurredAt: new Date(T0 + 3000).toISOString(),
        id: expect.any(String),
        properties: { plan: 'team', seats: '5' },
      },
      {
        objectType: 'CONTACT',
        objectId: String(vid),
        eventType: 'e_visited_page',
        occurredAt: new Date(T0 + 2000).toISOString(),
        id: expect.any(String),
        properties: {
          svc_url: 'https://acme.test/thanks',
          svc_title: 'Thanks',
          svc_referrer: 'https://acme.test/pricing',
        },
      },
      {
        objectType: 'CONTACT',
        objectId: String(vid),
        eventType: 'signup',
        occurredAt: new Date(T0 + 1000).toISOString(),
        id: expect.any(String),
        properties: {
          svc_url: 'https://acme.test/pricing',
          svc_title: 'Pricing',
          svc_value: '49',
          plan: 'pro',
          seats: '3',
        },
      },
      {
        objectType: 'CONTACT',
        objectId: String(vid),
        eventType: 'e_visited_page',
        occurredAt: new Date(T0).toISOString(),
        id: expect.any(String),
        properties: { svc_url: 'https://acme.test/', svc_title: 'Home', svc_referrer: 'https://www.google.com/' },
      },
    ]);
    // The tracker's events keep their eid as id.
    expect(res.json.results[3].id).toBe((2).toString(16).padStart(32, 'e'));
    // By email instead of vid: the same.
    expect((await list('objectType=CONTACT&objectProperty.email=ada%40acme.test')).json.results).toEqual(
      res.json.results,
    );
  });

  it('filters by event type and time, and sorts oldest first on request', async () => {
    const types = async (query: string) =>
      (await list(`objectType=contact&objectId=${vid}&${query}`)).json.results.map(
        (e: { eventType: string }) => e.eventType,
      );
    expect(await types('eventType=e_visited_page')).toEqual(['e_visited_page', 'e_visited_page']);
    expect(await types('eventType=signup')).toEqual(['signup']);
    expect(await types('eventType=nothing')).toEqual([]);
    const after = new Date(T0 + 1000).toISOString();
    expect(await types(`occurredAfter=${after}&occurredBefore=${T0 + 4000}`)).toEqual([
      'trial-started',
      'e_visited_page',
    ]);
    expect(await types('sort=ASCENDING')).toEqual([
      'e_visited_page',
      'signup',
      'e_visited_page',
      'trial-started',
      'webinar',
    ]);
  });

  it('pages with paging.next.after (and its link) until the last page', async () => {
    for (const sort of ['DESCENDING', 'ASCENDING']) {
      const all = (await list(`objectType=contact&objectId=${vid}&sort=${sort}`)).json.results;
      const seen: unknown[] = [];
      let query = `objectType=contact&objectId=${vid}&sort=${sort}&limit=2`;
      for (let pages = 0; pages < 10; pages++) {
        const page = (await list(query)).json;
        seen.push(...page.results);
        if (!page.paging) break;
        expect(page.paging.next.link).toBe(
          `/events/v3/events?${query.replace(/&after=[^&]*/, '')}&after=${page.paging.next.after}`,
        );
        query = page.paging.next.link.split('?')[1];
      }
      expect(seen).toEqual(all);
    }
  });

  it('answers 400 naming the problem, 404 for a contact not in the portal, 401 without a token', async () => {
    const problems: [string, RegExp][] = [
      [`objectId=${vid}`, /objectType/],
      [`objectType=deal&objectId=${vid}`, /objectType: must be contact/],
      ['objectType=contact', /give objectId \(the contact vid\) or objectProperty\.email/],
      [`objectType=contact&objectId=${vid}&after=zzz`, /after: must be the paging\.next\.after of an earlier page/],
      [`objectType=contact&objectId=${vid}&occurredAfter=yesterday`, /occurredAfter: must be an ISO 8601 date-time/],
      [`objectType=contact&objectId=${vid}&sort=up`, /sort: must be DESCENDING or ASCENDING/],
      [`objectType=contact&objectId=${vid}&limit=0`, /limit: must be at least 1/],
    ];
    for (const [query, message] of problems) {
      const res = await list(query);
      expect([res.status, res.json.message], query).toEqual([400, expect.stringMatching(message)]);
    }
    expect((await list('objectType=contact&objectId=999999')).status).toBe(404);
    expect((await list('objectType=contact&objectProperty.email=nobody%40acme.test')).json.message).toBe(
      'no contact with email nobody@acme.test',
    );
    // Another portal's token: the contact is not there.
    expect((await list(`objectType=contact&objectId=${vid}`, t.portals[1])).status).toBe(404);
    expect((await list(`objectType=contact&objectId=${vid}`, null as never)).status).toBe(401);
  });
});
