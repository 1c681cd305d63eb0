import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../src/db/engine';
import { startPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
beforeAll(async () => {
  t = await startPlatform({ portals: [{ id: 62515 }, { id: 777, tier: 'professional' }] });
});
afterAll(() => t.close());

let n = 0;
const hex = () => (++n).toString(16).padStart(32, '0');
const utk = (c: string) => c.repeat(32);
const view = (vi: string, pu: string, extra: Record<string, string> = {}) => ({
  eid: hex(),
  k: '1',
  a: '62515',
  v: '1',
  cts: String(t.clock.now),
  pu,
  t: 'Page',
  po: new URL(pu).pathname,
  vi,
  ...extra,
});
const event = (vi: string, n: string, m?: string, extra: Record<string, string> = {}) => ({
  eid: hex(),
  k: '3',
  a: '62515',
  v: '1',
  cts: String(t.clock.now),
  pu: 'https://acme.test/pricing',
  n,
  vi,
  ...(m ? { m } : {}),
  ...extra,
});
const collect = (batch: unknown, contentType = 'text/plain;charset=UTF-8') =>
  t.call('POST', '/collect/e', { body: JSON.stringify(batch), headers: { 'content-type': contentType }, portal: null });
const analytics = async (email: string) => {
  const res = await t.call('GET', `/contacts/v1/contact/email/${email}/profile?propertyMode=value_only`);
  return Object.fromEntries(
    Object.entries(res.json.properties as Record<string, { value: string }>).map(([k, v]) => [k, v.value]),
  );
};

describe('collector', () => {
  it('records page views and events once per eid, and links identify to the contact', async () => {
    const ada = utk('a');
    const first = view(ada, 'https://acme.test/');
    const res = await collect([first, view(ada, 'https://acme.test/pricing'), event(ada, 'buy', '49')]);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.json).toEqual({ accepted: 3, duplicates: 0, rejected: [] });
    expect((await collect([first])).json).toEqual({ accepted: 0, duplicates: 1, rejected: [] });

    // Identify later: the earlier anonymous activity is attributed to the contact.
    t.clock.now += 60_000;
    await collect([view(ada, 'https://acme.test/thanks', { i: 'email=ada%40acme.test&firstname=Ada' })]);
    const p = await analytics('ada@acme.test');
    expect(p).toMatchObject({
      firstname: 'Ada',
      svc_analytics_num_page_views: '3',
      svc_analytics_first_url: 'https://acme.test/',
      svc_analytics_last_url: 'https://acme.test/thanks',
      svc_analytics_num_event_completions: '1',
      svc_analytics_revenue: '49',
    });
    expect(+p.svc_analytics_last_visit_timestamp - +p.svc_analytics_first_visit_timestamp).toBe(60_000);
    const byUtk = await t.call('GET', `/contacts/v1/contact/utk/${ada}/profile`);
    expect(byUtk.json.properties.email.value).toBe('ada@acme.test');

    // Known visitor: later activity counts at once.
    await collect([event(ada, 'buy', '10.5')]);
    expect(await analytics('ada@acme.test')).toMatchObject({
      svc_analytics_num_event_completions: '2',
      svc_analytics_revenue: '59.5',
    });
  });

  it('stores an id repeated within a batch once, per visitor, and counts it once for a known visitor', async () => {
    const known = '1234'.repeat(8);
    await collect([view(known, 'https://acme.test/', { i: 'email=dup%40acme.test' })]);
    const before = await analytics('dup@acme.test');
    const again = view(known, 'https://acme.test/again');
    // The same id from another visitor is another event.
    const other = { ...again, vi: '5678'.repeat(8) };
    expect((await collect([again, { ...again }, other, event(known, 'buy', '5'), { ...again }])).json).toEqual({
      accepted: 3,
      duplicates: 2,
      rejected: [],
    });
    expect((await collect([again, other])).json).toEqual({ accepted: 0, duplicates: 2, rejected: [] });
    const after = await analytics('dup@acme.test');
    expect(+after.svc_analytics_num_page_views - +before.svc_analytics_num_page_views).toBe(1);
    expect(+after.svc_analytics_num_event_completions - +(before.svc_analytics_num_event_completions ?? 0)).toBe(1);
  });

  it('counts the events after an identify in the same batch for the contact, and those before it once linked', async () => {
    const bo = utk('b');
    const res = await collect([
      view(bo, 'https://acme.test/a'),
      event(bo, 'clicked', '5'),
      view(bo, 'https://acme.test/b', { i: 'email=bo%40acme.test' }),
      view(bo, 'https://acme.test/c'),
      event(bo, 'clicked', '7'),
    ]);
    expect(res.json).toMatchObject({ accepted: 5 });
    expect(await analytics('bo@acme.test')).toMatchObject({
      svc_analytics_num_page_views: '3',
      svc_analytics_num_event_completions: '2',
      svc_analytics_revenue: '12',
      svc_analytics_first_url: 'https://acme.test/a',
      svc_analytics_last_url: 'https://acme.test/c',
    });
  });

  it("dates an event by the browser's clock only as far as believable: none after it arrived, none before the tracker keeps events", async () => {
    const vi = utk('d');
    const now = t.clock.now;
    const DAY = 86_400_000;
    const dated = [now + 365 * DAY, now + 1, now - 30 * DAY, now - 8 * DAY - 1, now - 8 * DAY, now - 2 * DAY, now];
    const batch = dated.map((at, i) => view(vi, `https://acme.test/dated-${i}`, { cts: String(at) }));
    expect((await collect(batch)).json).toEqual({ accepted: dated.length, duplicates: 0, rejected: [] });
    const rows = await t.platform.services.engine.all(
      sql<[string], { url: string; timestamp: number }>(
        'SELECT url, timestamp FROM tracking_events WHERE portal_id = 62515 AND utk = ? ORDER BY url',
      ),
      vi,
    );
    expect(rows.map((r) => Number(r.timestamp))).toEqual([now, now, now, now, now - 8 * DAY, now - 2 * DAY, now]);
    // What the browser said is kept with an event dated otherwise.
    const said = await t.platform.services.engine.all(
      sql<[string], { data: string }>('SELECT data FROM tracking_events WHERE utk = ? ORDER BY url'),
      vi,
    );
    expect(said.map((r) => JSON.parse(r.data).cts)).toEqual([
      String(now + 365 * DAY),
      String(now + 1),
      String(now - 30 * DAY),
      String(now - 8 * DAY - 1),
      undefined,
      undefined,
      undefined,
    ]);
    // A visitor dated in the future would be "live" for good: the dashboard's live view counts it now only.
    const live = await t.platform.services.engine.value(
      sql<[string], { last: number }>('SELECT max(last_at) AS last FROM sessions WHERE utk = ?'),
      vi,
    );
    expect(Number(live)).toBe(now);
  });

  it('keeps the valid events of a partly invalid batch and names the problems', async () => {
    const ok = view(utk('b'), 'https://acme.test/');
    const res = await collect([
      ok,
      { ...view(utk('b'), 'https://acme.test/'), eid: 'nope' },
      { ...ok, eid: hex(), k: '7' },
      42,
    ]);
    expect(res.json.accepted).toBe(1);
    expect(res.json.rejected.map((r: { message: string }) => r.message)).toEqual([
      'event 1: "eid" must be 32 lower-case hex characters',
      'event 2: "k" must be "1" (page view) or "3" (custom event)',
      'event 3: must be an object',
    ]);
    for (const [body, message] of [
      ['{', 'body is not a JSON array of events (text/plain or application/json)'],
      ['[]', 'body must be a JSON array of 1 to 50 events'],
    ]) {
      const bad = await t.call('POST', '/collect/e', { body, headers: { 'content-type': 'text/plain' }, portal: null });
      expect(bad.status).toBe(400);
      expect(bad.json.message).toBe(message);
    }
  });

  it('answers 403 to custom events of a non-Enterprise portal, but takes its page views', async () => {
    const custom = { ...event(utk('c'), 'buy'), a: '777' };
    const res = await collect([custom]);
    expect(res.status).toBe(403);
    expect(res.json.message).toBe('Custom events need an Enterprise portal; portal 777 is professional.');
    expect((await collect([{ ...view(utk('c'), 'https://x.test/'), a: '777' }])).json.accepted).toBe(1);
  });

  it("sums a known visitor's batch into one update of the analytics properties", async () => {
    const eve = utk('e');
    await collect([view(eve, 'https://acme.test/', { i: 'email=eve%40acme.test' })]);
    const before = await analytics('eve@acme.test');
    t.clock.now += 1000;
    const at = t.clock.now - 10; // the batch arrives after its events
    const batch = [
      view(eve, 'https://acme.test/a', { cts: String(at + 1) }),
      event(eve, 'buy', '20', { cts: String(at + 2) }),
      view(eve, 'https://acme.test/c', { cts: String(at + 3) }),
      view(eve, 'https://acme.test/b', { cts: String(at + 2) }),
      event(eve, 'buy', '2.5', { cts: String(at + 1) }),
    ];
    expect((await collect(batch)).json).toEqual({ accepted: 5, duplicates: 0, rejected: [] });
    const after = await analytics('eve@acme.test');
    expect(after).toMatchObject({
      svc_analytics_num_page_views: String(+before.svc_analytics_num_page_views + 3),
      svc_analytics_num_event_completions: '2',
      svc_analytics_revenue: '22.5',
      svc_analytics_first_url: 'https://acme.test/',
      svc_analytics_last_url: 'https://acme.test/c',
      svc_analytics_last_visit_timestamp: String(at + 3),
    });
    // The same batch again: all duplicates, nothing counted twice.
    expect((await collect(batch)).json).toEqual({ accepted: 0, duplicates: 5, rejected: [] });
    expect(await analytics('eve@acme.test')).toEqual(after);
  });

  it('answers preflights, refuses other types, encodings, oversized bodies and other methods (405), and leaves other paths to the API', async () => {
    const pre = await fetch(`${t.baseUrl}/collect/e`, { method: 'OPTIONS' });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-methods')).toBe('GET, POST, OPTIONS');
    const form = await collect([view(utk('f'), 'https://acme.test/')], 'application/x-www-form-urlencoded');
    expect([form.status, form.json.message]).toEqual([415, 'send the events as text/plain or application/json']);
    const gzip = await t.call('POST', '/collect/e', {
      body: '[]',
      headers: { 'content-type': 'text/plain', 'content-encoding': 'gzip' },
      portal: null,
    });
    expect([gzip.status, gzip.json.message]).toEqual([415, 'content-encoding gzip is not supported']);
    const big = await collect([{ ...view(utk('f'), 'https://acme.test/'), pu: 'x'.repeat(70_000) }]);
    expect([big.status, big.json.message]).toEqual([413, 'request body exceeds 65536 bytes']);
    const wrongMethod = await t.call('GET', '/collect/e', { portal: null });
    expect([wrongMethod.status, wrongMethod.headers.get('allow'), wrongMethod.json.message]).toEqual([
      405,
      'POST, OPTIONS',
      'GET is not allowed here; use POST',
    ]);
    const post = await t.call('POST', '/collect/p.gif', { body: '{}', portal: null });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, OPTIONS']);
    expect((await t.call('GET', '/collect/elsewhere', { portal: null })).status).toBe(404);
  });

  it('takes the GET pixel with the same parameters', async () => {
    const res = await fetch(`${t.baseUrl}/collect/p.gif?${new URLSearchParams(view(utk('d'), 'https://acme.test/'))}`);
    expect(res.headers.get('content-type')).toBe('image/gif');
    expect(
      Buffer.from(await res.arrayBuffer())
        .subarray(0, 6)
        .toString(),
    ).toBe('GIF89a');
    const bad = await fetch(`${t.baseUrl}/collect/p.gif?k=1`);
    expect(bad.status).toBe(400);
  });
});

describe('HTTP events API', () => {
  it('GET /v1/event records an event for an email and sets contact properties, public like a pixel', async () => {
    const res = await t.call(
      'GET',
      '/v1/event?_n=webinar-joined&_a=62515&_m=5&email=grace%40acme.test&lastname=Hopper',
      { portal: null },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/gif');
    expect(await analytics('grace@acme.test')).toMatchObject({
      lastname: 'Hopper',
      svc_analytics_num_event_completions: '1',
      svc_analytics_revenue: '5',
    });
    const tier = await t.call('GET', '/v1/event?_n=x&_a=777&email=a%40b.test', { portal: null });
    expect(tier.status).toBe(403);
    const missing = await t.call('GET', '/v1/event?_a=62515&email=a%40b.test', { portal: null });
    expect(missing.status).toBe(400);
    expect(missing.json.message).toBe('query._n: is required (the event id or name)');
  });

  it('POST /v1/event needs auth, and the same id counts once', async () => {
    const body = {
      eventName: 'renewed',
      email: 'grace@acme.test',
      value: 100,
      id: 'order-17',
      properties: { company: 'Navy' },
    };
    expect((await t.call('POST', '/v1/event', { body, portal: null })).status).toBe(401);
    expect((await t.call('POST', '/v1/event', { body })).status).toBe(204);
    expect((await t.call('POST', '/v1/event', { body })).status).toBe(204);
    expect(await analytics('grace@acme.test')).toMatchObject({
      company: 'Navy',
      svc_analytics_num_event_completions: '2',
      svc_analytics_revenue: '105',
    });
    const nobody = await t.call('POST', '/v1/event', { body: { eventName: 'x' } });
    expect(nobody.status).toBe(400);
    expect(nobody.json.message).toBe('give email or utk to say whom the event is about');
  });

  it("keeps the revenue of an anonymous visitor's events, GET pixel and POST alike, when the visitor is identified later", async () => {
    const [viaGet, viaPost] = [utk('7'), utk('8')];
    const pixel = await t.call('GET', `/v1/event?_n=quote&_a=62515&_m=12.5&utk=${viaGet}`, { portal: null });
    expect(pixel.status).toBe(200);
    expect(
      (await t.call('POST', '/v1/event', { body: { eventName: 'quote', utk: viaPost, value: 12.5 } })).status,
    ).toBe(204);
    // Identified afterwards, each by the tracker's identify.
    await collect([view(viaGet, 'https://acme.test/', { i: 'email=kay%40acme.test' })]);
    await collect([view(viaPost, 'https://acme.test/', { i: 'email=lin%40acme.test' })]);
    for (const email of ['kay@acme.test', 'lin@acme.test'])
      expect(await analytics(email), email).toMatchObject({
        svc_analytics_num_event_completions: '1',
        svc_analytics_revenue: '12.5',
      });
    // And by a later GET naming both the visitor and the email: the earlier revenue is added to.
    const later = utk('9');
    await t.call('GET', `/v1/event?_n=quote&_a=62515&_m=7&utk=${later}`, { portal: null });
    await t.call('GET', `/v1/event?_n=signed&_a=62515&_m=3&utk=${later}&email=mo%40acme.test`, { portal: null });
    expect(await analytics('mo@acme.test')).toMatchObject({
      svc_analytics_num_event_completions: '2',
      svc_analytics_revenue: '10',
    });
    // And by a form submission carrying the visitor's token, or a POST naming both.
    const [viaForm, viaPost2] = [utk('6'), utk('5')];
    await t.call('GET', `/v1/event?_n=quote&_a=62515&_m=4&utk=${viaForm}&portalId=62515`, { portal: null });
    await t.call('GET', `/v1/event?_n=quote&_a=62515&_m=6&utk=${viaPost2}`, { portal: null });
    const form = (
      await t.call('POST', '/contacts/v1/forms', { body: { name: 'Revenue check', fields: [{ name: 'email' }] } })
    ).json;
    const submitted = await t.call('POST', `${t.formsUrl}/uploads/form/v2/62515/${form.guid}`, {
      body: new URLSearchParams({
        email: 'ned@acme.test',
        svc_context: JSON.stringify({ svcutk: viaForm }),
      }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      portal: null,
    });
    expect(submitted.status).toBe(204);
    expect(await analytics('ned@acme.test')).toMatchObject({
      svc_analytics_num_event_completions: '1',
      svc_analytics_revenue: '4',
    });
    expect(
      (await t.call('POST', '/v1/event', { body: { eventName: 'signed', utk: viaPost2, email: 'oz@acme.test' } }))
        .status,
    ).toBe(204);
    expect(await analytics('oz@acme.test')).toMatchObject({
      svc_analytics_num_event_completions: '2',
      svc_analytics_revenue: '6',
    });
  });
});
