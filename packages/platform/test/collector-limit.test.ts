/** The collector's per-address limit (http/collector.ts through http/rate-limit.ts's limiter):
 * per address and route, a batch counting once; 429 with `Retry-After` and the error body of every
 * public route past it; other addresses, the CORS preflight and the window's end unaffected; off
 * with `false`. And its answer to another method: 405 with `Allow`. Runs on both engines (on
 * PostgreSQL the counts are in the database). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../src/db/engine';
import { startPlatform, type TestPlatform } from './harness';

let n = 0;
const hex = () => (++n).toString(16).padStart(32, 'c');
const view = (t: TestPlatform, vi: string) => ({
  eid: hex(),
  k: '1',
  a: '62515',
  v: '1',
  cts: String(t.clock.now),
  pu: 'https://acme.test/',
  t: 'Page',
  po: '/',
  vi,
});
/** A batch of `size` page views of one visitor, from `address` (the forwarded address: the test
 * is on loopback, a trusted proxy). */
const batch = (t: TestPlatform, address: string, vi: string, size = 10, body?: string) =>
  t.call('POST', '/collect/e', {
    body: body ?? JSON.stringify(Array.from({ length: size }, () => view(t, vi))),
    headers: { 'content-type': 'text/plain;charset=UTF-8', 'x-forwarded-for': address },
    portal: null,
  });
const pixel = (t: TestPlatform, address: string, vi: string) =>
  fetch(`${t.baseUrl}/collect/p.gif?${new URLSearchParams(view(t, vi))}`, { headers: { 'x-forwarded-for': address } });
/** Events stored for visitor `vi`. */
const stored = (t: TestPlatform, vi: string) =>
  t.platform.services.engine
    .value(sql<[string], { n: number }>('SELECT count(*) AS n FROM tracking_events WHERE utk = ?'), vi)
    .then(Number);

/** A 429 of the per-address limit, as every public route answers it, readable cross-origin. */
function expectLimited(res: { status: number; headers: Headers }, json: Record<string, unknown>, max: number) {
  const wait = res.headers.get('retry-after')!;
  expect(res.status).toBe(429);
  expect(Number(wait)).toBeGreaterThan(0);
  expect(Number(wait)).toBeLessThanOrEqual(60);
  expect(res.headers.get('access-control-allow-origin')).toBe('*');
  expect(res.headers.get('access-control-expose-headers')).toBe('Retry-After');
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(json).toEqual({
    status: 'error',
    message: `Too many requests from this address: at most ${max} in 60 s; try again in ${wait} s.`,
    correlationId: expect.any(String),
    requestId: expect.any(String),
    errorType: 'RATE_LIMIT',
    policyName: 'PER_ADDRESS',
  });
}

describe('the collector limit per address', () => {
  let t: TestPlatform;
  beforeAll(async () => {
    // The other public routes' limit is lower still: the collector has its own.
    t = await startPlatform({
      portals: [{ id: 62515 }],
      collectorRateLimit: { max: 3, windowMs: 60_000 },
      publicRateLimit: { max: 1, windowMs: 60_000 },
    });
  });
  afterAll(() => t.close());

  it('counts a batch once, whatever it holds, and answers 429 with Retry-After past the limit, recording nothing of it', async () => {
    const vi = 'a'.repeat(32);
    for (let i = 0; i < 3; i++)
      expect([(await batch(t, '203.0.113.1', vi, 10)).json]).toEqual([{ accepted: 10, duplicates: 0, rejected: [] }]);
    const over = await batch(t, '203.0.113.1', vi, 10);
    expectLimited(over, over.json, 3);
    expect(await stored(t, vi)).toBe(30);
    // Refused before its body is read: a broken one is a 429 too.
    expect((await batch(t, '203.0.113.1', vi, 0, '{')).status).toBe(429);
  });

  it('counts the pixel on its own, to the same limit', async () => {
    const vi = 'b'.repeat(32);
    for (let i = 0; i < 3; i++) {
      const res = await pixel(t, '203.0.113.1', vi);
      expect([res.status, res.headers.get('content-type')]).toEqual([200, 'image/gif']);
    }
    const over = await pixel(t, '203.0.113.1', vi);
    expectLimited(over, await over.json(), 3);
    expect(await stored(t, vi)).toBe(3);
  });

  it('leaves other addresses, the preflight and wrong methods alone, and lets the address in again as the window rolls on', async () => {
    const vi = 'd'.repeat(32);
    expect((await batch(t, '203.0.113.2', vi, 1)).status).toBe(200);
    expect((await pixel(t, '203.0.113.2', vi)).status).toBe(200);
    expect((await batch(t, '203.0.113.1', vi, 1)).status).toBe(429);
    const preflight = await fetch(`${t.baseUrl}/collect/e`, {
      method: 'OPTIONS',
      headers: { 'x-forwarded-for': '203.0.113.1' },
    });
    expect(preflight.status).toBe(204);
    expect((await fetch(`${t.baseUrl}/collect/e`, { headers: { 'x-forwarded-for': '203.0.113.1' } })).status).toBe(405);
    t.clock.now += 61_000;
    expect((await batch(t, '203.0.113.1', vi, 1)).status).toBe(200);
    expect((await pixel(t, '203.0.113.1', vi)).status).toBe(200);
  });

  it('lets exactly the limit through of a burst from one address', async () => {
    t.clock.now += 61_000;
    const vi = 'e'.repeat(32);
    const statuses = await Promise.all(
      Array.from({ length: 12 }, () => batch(t, '203.0.113.3', vi, 2).then((r) => r.status)),
    );
    expect(statuses.sort()).toEqual([200, 200, 200, ...Array(9).fill(429)]);
    expect(await stored(t, vi)).toBe(6);
  });

  it('answers another method 405 with Allow, as the catalog routes do (HEAD on the pixel too: it would record)', async () => {
    const cases: [string, string, string][] = [
      ['GET', '/collect/e', 'POST, OPTIONS'],
      ['PUT', '/collect/e', 'POST, OPTIONS'],
      ['DELETE', '/collect/e', 'POST, OPTIONS'],
      ['POST', '/collect/p.gif', 'GET, OPTIONS'],
      ['PUT', '/collect/p.gif?k=1', 'GET, OPTIONS'],
    ];
    for (const [method, path, allow] of cases) {
      const res = await t.call(method, path, {
        portal: null,
        ...(method == 'GET' || method == 'DELETE' ? {} : { body: '[]', headers: { 'content-type': 'text/plain' } }),
      });
      const use = allow.split(',')[0];
      expect([res.status, res.headers.get('allow'), res.headers.get('access-control-allow-origin')]).toEqual([
        405,
        allow,
        '*',
      ]);
      expect(res.json).toEqual({
        status: 'error',
        message: `${method} is not allowed here; use ${use}`,
        correlationId: expect.any(String),
        requestId: expect.any(String),
      });
    }
    const vi = 'f'.repeat(32);
    const head = await fetch(`${t.baseUrl}/collect/p.gif?${new URLSearchParams(view(t, vi))}`, { method: 'HEAD' });
    expect([head.status, head.headers.get('allow'), await head.text()]).toEqual([405, 'GET, OPTIONS', '']);
    expect(await stored(t, vi)).toBe(0);
  });
});

describe('the collector limit by default, and off', () => {
  let byDefault: TestPlatform;
  let off: TestPlatform;
  beforeAll(async () => {
    [byDefault, off] = await Promise.all([
      startPlatform({ portals: [] }),
      startPlatform({ portals: [], collectorRateLimit: false, publicRateLimit: { max: 1, windowMs: 60_000 } }),
    ]);
  });
  afterAll(async () => {
    await byDefault?.close();
    await off?.close();
  });

  /** `count` batches from one address, 20 at a time (empty ones: the limit counts them before the
   * body is read, and they write nothing); their statuses. */
  async function emptyBatches(t: TestPlatform, count: number) {
    const statuses: number[] = [];
    for (let i = 0; i < count; i += 20)
      statuses.push(
        ...(await Promise.all(
          Array.from({ length: Math.min(20, count - i) }, () =>
            batch(t, '198.51.100.7', '', 0, '[]').then((r) => r.status),
          ),
        )),
      );
    return statuses;
  }

  it('lets 1,000 requests a minute from one address through, far beyond the other public routes\u2019 60', async () => {
    expect(new Set(await emptyBatches(byDefault, 1000))).toEqual(new Set([400]));
    const over = await batch(byDefault, '198.51.100.7', '', 0, '[]');
    expectLimited(over, over.json, 1000);
  });

  it('limits nothing when off', async () => {
    expect(new Set(await emptyBatches(off, 1010))).toEqual(new Set([400]));
  });
});
