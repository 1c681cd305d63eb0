/** Fault rules over real HTTP: each effect answered as the real API would fail (429 with its
 * rate-limit headers and body, 5xx, a wait, a dropped connection), repeatable by seed, counted
 * by `times`, matched by route, method, path and portal; the one-request header only with the
 * admin key; and the clients' retries against them. */
import { createRequire } from 'node:module';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type RetryEvent } from '@svc/client';
import { fetchJson, startPlatform, type TestPlatform } from './harness';

const KEY = 'admin-key-for-the-fault-tests';
let t: TestPlatform;
let vid: number;
beforeAll(async () => {
  t = await startPlatform({ adminKey: KEY, rateLimit: { max: 1000, windowMs: 10_000 } });
  vid = (
    await t.call('POST', '/contacts/v1/contact', {
      body: { properties: [{ property: 'email', value: 'ada@faults.test' }] },
    })
  ).json.vid;
});
afterAll(() => t.close());
afterEach(() => admin('DELETE', '/faults'));

const admin = (method: string, path: string, body?: unknown) =>
  fetchJson(`${t.baseUrl}/_admin${path}`, { method, body, headers: { authorization: `Bearer ${KEY}` } });
const addRule = async (rule: object) => {
  const res = await admin('POST', '/faults', rule);
  expect(res.status).toBe(201);
  return res.json.id as string;
};
const profile = (portal = t.portals[0], headers: Record<string, string> = {}) =>
  t.call('GET', `/contacts/v1/contact/vid/${vid}/profile`, { portal, headers });

describe('effects', () => {
  it('answers a 429 as the rate limit does: body, X-Svc-RateLimit-* and Retry-After', async () => {
    const id = await addRule({ route: 'contacts.getByVid', status: 429, retryAfter: 3 });
    const res = await profile();
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('3');
    expect(res.headers.get('x-svc-ratelimit-max')).toBe('1000');
    expect(res.headers.get('x-svc-ratelimit-interval-milliseconds')).toBe('10000');
    expect(res.headers.get('x-svc-ratelimit-remaining')).toBe('0');
    expect(res.json).toMatchObject({
      status: 'error',
      message: 'You have reached your ten_secondly_rolling limit.',
      errorType: 'RATE_LIMIT',
      policyName: 'TEN_SECONDLY_ROLLING',
      correlationId: expect.any(String),
      requestId: expect.any(String),
    });
    expect(res.headers.get('x-svc-fault')).toBe(id);
  });

  it('answers 500, 502 and 503 with the API error body', async () => {
    for (const status of [500, 502, 503]) {
      await admin('DELETE', '/faults');
      await addRule({ method: 'GET', path: '/contacts/v1/contact/vid/:vid/profile', status });
      const res = await profile();
      expect(res.status).toBe(status);
      expect(res.json).toMatchObject({
        status: 'error',
        message: expect.any(String),
        correlationId: expect.any(String),
      });
    }
    await admin('DELETE', '/faults');
    await addRule({ route: 'contacts.getByVid', status: 503, retryAfter: 7 });
    expect((await profile()).headers.get('retry-after')).toBe('7');
  });

  it('waits latencyMs, fixed or drawn from a range, then answers as usual', async () => {
    await addRule({ route: 'contacts.getByVid', latencyMs: 300, times: 1 });
    let started = performance.now();
    const slow = await profile();
    expect(slow.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(280);
    await addRule({ route: 'contacts.getByVid', latencyMs: [200, 250], times: 1 });
    started = performance.now();
    expect((await profile()).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(180);
    expect((await admin('GET', '/faults')).json.faults).toEqual([]); // both rules are spent
  });

  it('drops the connection with no answer', async () => {
    await addRule({ route: 'contacts.getByVid', drop: true });
    await expect(profile()).rejects.toThrow(/fetch failed/);
    const journal = await admin('GET', '/journal?route=contacts.getByVid&limit=1');
    expect(journal.json.requests[0]).toMatchObject({ status: null, fault: expect.stringMatching(/^fault-/) });
  });
});

describe('matching', () => {
  it('repeats a run for the same seed, and fires about as often as the probability says', async () => {
    const run = async () => {
      await admin('DELETE', '/faults');
      await addRule({ route: 'contacts.getByVid', probability: 0.5, seed: 42, status: 503 });
      const statuses: number[] = [];
      for (let i = 0; i < 24; i++) statuses.push((await profile()).status);
      return statuses;
    };
    const first = await run();
    expect(await run()).toEqual(first);
    const fired = first.filter((s) => s == 503).length;
    expect(fired).toBeGreaterThan(3);
    expect(fired).toBeLessThan(21);
  });

  it('counts times down, then the rule is gone', async () => {
    const id = await addRule({ route: 'contacts.getByVid', status: 500, times: 2 });
    expect((await admin('GET', '/faults')).json.faults[0]).toMatchObject({ id, remaining: 2, fired: 0 });
    expect((await profile()).status).toBe(500);
    expect((await admin('GET', '/faults')).json.faults[0]).toMatchObject({ id, remaining: 1, fired: 1 });
    expect((await profile()).status).toBe(500);
    expect((await profile()).status).toBe(200);
    expect((await admin('GET', '/faults')).json.faults).toEqual([]);
  });

  it('matches by route, method, path and portal; the first matching rule decides', async () => {
    const [a, b] = t.portals;
    await addRule({ portalId: b.portalId, status: 502 });
    await addRule({ route: 'contacts.getByVid', method: 'POST', status: 500 });
    await addRule({ path: '/contacts/v1/lists*', status: 503 });
    const first = await addRule({ route: 'properties.list', status: 429 });
    await addRule({ route: 'properties.list', status: 500 });
    expect((await profile(a)).status).toBe(200); // the POST rule does not take a GET
    expect((await profile(b)).status).toBe(502); // b's own
    expect((await t.call('GET', '/contacts/v1/lists')).status).toBe(503);
    expect((await t.call('GET', '/contacts/v1/lists/static')).status).toBe(503);
    const props = await t.call('GET', '/contacts/v1/properties');
    expect([props.status, props.headers.get('x-svc-fault')]).toEqual([429, first]);
    // The forms server too: the portal is read from the path.
    await admin('DELETE', '/faults');
    await addRule({ portalId: a.portalId, route: 'forms.submit', status: 503 });
    const submitted = await fetchJson(`${t.formsUrl}/uploads/form/v2/${a.portalId}/nope`, {
      method: 'POST',
      body: { fields: [] },
    });
    expect(submitted.status).toBe(503);
  });

  it('never faults the admin API itself', async () => {
    await addRule({ path: '/*', status: 503 });
    expect((await admin('GET', '/faults')).status).toBe(200);
    expect((await profile()).status).toBe(503);
  });
});

describe('the X-Svc-Fault header', () => {
  it('picks a fault for one request with the admin key, and is refused without it', async () => {
    const without = await profile(undefined, { 'x-svc-fault': 'status=503' });
    expect(without.status).toBe(403);
    expect(without.json.message).toMatch(/X-Svc-Admin-Key/);
    const portalKey = await profile(undefined, {
      'x-svc-fault': 'status=503',
      'x-svc-admin-key': t.portals[0].privateAppToken,
    });
    expect(portalKey.status).toBe(403);
    const withKey = await profile(undefined, { 'x-svc-fault': 'status=503', 'x-svc-admin-key': KEY });
    expect(withKey.status).toBe(503);
    const json = await profile(undefined, { 'x-svc-fault': '{"status":429,"retryAfter":2}', 'x-svc-admin-key': KEY });
    expect([json.status, json.headers.get('retry-after')]).toEqual([429, '2']);
    await expect(profile(undefined, { 'x-svc-fault': 'drop', 'x-svc-admin-key': KEY })).rejects.toThrow();
    expect((await profile()).status).toBe(200); // one request only
    for (const bad of ['status=200', 'colour=red', '{"status":', 'latencyMs=-1', 'retryAfter=2', 'status=500;drop'])
      expect((await profile(undefined, { 'x-svc-fault': bad, 'x-svc-admin-key': KEY })).status).toBe(400);
  });
});

describe('rules: bad input', () => {
  it('answers a 4xx naming the problem', async () => {
    const cases: [unknown, RegExp][] = [
      [{}, /needs an effect/],
      [{ route: 'contacts.nope', status: 500 }, /body\.route/],
      [{ status: 200 }, /body\.status/],
      [{ status: 500, drop: true }, /two answers/],
      [{ latencyMs: [300, 100] }, /body\.latencyMs/],
      [{ latencyMs: 600_000 }, /body\.latencyMs/],
      [{ probability: 2, status: 500 }, /body\.probability/],
      [{ times: 0, status: 500 }, /body\.times/],
      [{ path: 'no-slash', status: 500 }, /body\.path/],
      [{ method: 'BREW', status: 500 }, /body\.method/],
      [{ status: 500, retryAfter: 3 }, /retryAfter/],
      [{ status: 500, extra: 1 }, /extra/],
      ['[1', /not valid JSON/],
    ];
    for (const [body, message] of cases) {
      const res = await admin('POST', '/faults', body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
      expect(res.json.message).toMatch(message);
    }
    const missing = await admin('DELETE', '/faults/fault-999');
    expect([missing.status, missing.json.message]).toEqual([404, 'no fault rule fault-999']);
  });
});

describe('clients against fault rules', () => {
  // The client's JavaScript without its typings (see legacy-client.test.ts).
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const Hubspot: new (options: object) => any = createRequire(import.meta.url)('hubspot');

  it('hubspot@2: a 429 carries Retry-After, and the call made again after it succeeds', async () => {
    await addRule({ route: 'contacts.getByVid', status: 429, retryAfter: 1, times: 1 });
    const legacy = new Hubspot({
      baseUrl: t.baseUrl,
      accessToken: t.portals[0].privateAppToken,
      limiter: { minTime: 0 },
    });
    // The legacy client has no retry of its own: what its users wrap it in reads the answer's
    // Retry-After, as here.
    const refused = (await legacy.contacts.getById(vid).catch((e: unknown) => e)) as {
      statusCode: number;
      response: { headers: Record<string, string> };
      error: { errorType: string };
    };
    expect(refused.statusCode).toBe(429);
    expect(refused.error.errorType).toBe('RATE_LIMIT');
    const waitMs = Number(refused.response.headers['retry-after']) * 1000;
    expect(waitMs).toBe(1000);
    await new Promise((resolve) => setTimeout(resolve, waitMs));
    expect((await legacy.contacts.getById(vid)).vid).toBe(vid);
  });

  it('@svc/client: retries a 429 after Retry-After, and a dropped safe GET, and succeeds', async () => {
    const retries: RetryEvent[] = [];
    const slept: number[] = [];
    const client = createClient({
      baseUrl: t.baseUrl,
      auth: { accessToken: t.portals[0].privateAppToken },
      onRetry: (e) => retries.push(e),
      // The waits it decides are recorded, not slept through.
      clock: { now: () => Date.now(), sleep: (ms) => Promise.resolve(void slept.push(ms)) },
    });
    await addRule({ route: 'contacts.getByVid', status: 429, retryAfter: 2, times: 1 });
    expect((await client.contacts.getByVid(vid)).vid).toBe(vid);
    expect(retries.map((r) => r.status)).toEqual([429]);
    expect(slept[0]).toBeGreaterThanOrEqual(2000);

    await addRule({ route: 'contacts.getByVid', drop: true, times: 1 });
    expect((await client.contacts.getByVid(vid)).vid).toBe(vid);
    expect(retries.map((r) => r.status)).toEqual([429, 0]);
  });
});
