/** The router's own middleware: CORS allow-list with credentials (never `*`), the per-IP rate
 * limit, body size limits, JSON errors for broken bodies, and mounting in Express 4 as in 5. */
import { gzipSync } from 'node:zlib';
import express4 from 'express4';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompanion } from '../src';
import { call, identifiedVisitor, mount, mountOn, newUtk, startTestPlatform, tempDir, type Mounted, type TestPlatform } from './harness';

let t: TestPlatform;
let m: Mounted;
const ada = newUtk();

beforeAll(async () => {
  t = await startTestPlatform();
  await identifiedVisitor(t, ada, { email: 'ada@example.com', firstname: 'Ada' });
  m = await mountOn(t, { allowedOrigins: ['https://www.example.com'], rateLimit: { limit: 5, windowMs: 60_000 }, events: { secret: 'a-shared-secret-for-backends' } });
});
afterAll(async () => {
  await m.close();
  await t.close();
});

describe('CORS', () => {
  it('answers an allowed origin with credentials, never *', async () => {
    const r = await call(`${m.url}/healthz`, { headers: { origin: 'https://www.example.com' } });
    expect(r.headers.get('access-control-allow-origin')).toBe('https://www.example.com');
    expect(r.headers.get('access-control-allow-credentials')).toBe('true');
    const pre = await call(`${m.url}/subscriptions`, {
      method: 'OPTIONS',
      headers: { origin: 'https://www.example.com', 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type,x-csrf-token' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-headers')).toContain('x-csrf-token');
  });

  it('gives other origins no CORS headers', async () => {
    const r = await call(`${m.url}/healthz`, { headers: { origin: 'https://evil.example' } });
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses * and malformed origins in the options', () => {
    const base = { baseUrl: t.baseUrl, auth: { accessToken: 'x' }, logger: false as const, events: { outboxFile: `${tempDir()}/o.jsonl`, handleSigterm: false } };
    expect(() => createCompanion({ ...base, allowedOrigins: ['*'] })).toThrow(/cannot contain "\*"/);
    expect(() => createCompanion({ ...base, allowedOrigins: ['https://x.test/path'] })).toThrow(/without a path/);
    expect(() => createCompanion({ ...base, allowedOrigins: ['nonsense'] })).toThrow(/not an origin/);
  });
});

describe('limits and errors', () => {
  it('answers 413 for a body over the limit and 400 for broken JSON, as JSON', async () => {
    const auth = { authorization: 'Bearer a-shared-secret-for-backends' };
    const big = await call(`${m.url}/events`, { method: 'POST', headers: auth, body: JSON.stringify({ eventId: 'x', email: 'a@b.co', properties: { p: 'x'.repeat(70_000) } }) });
    expect(big.status).toBe(413);
    expect(big.json).toEqual({ status: 'error', message: 'the request body is too large' });
    const broken = await call(`${m.url}/events`, { method: 'POST', headers: auth, body: '{"eventId": ' });
    expect(broken.status).toBe(400);
    expect(broken.json).toEqual({ status: 'error', message: 'the request body is not valid JSON' });
  });

  it('rate-limits per IP with a JSON 429 and standard headers', async () => {
    let last;
    for (let i = 0; i < 8; i++) last = await call(`${m.url}/visitor`);
    expect(last!.status).toBe(429);
    expect(last!.json).toEqual({ status: 'error', message: 'too many requests from this address; slow down' });
    expect(last!.headers.get('ratelimit-policy')).toContain('5');
  });
});

describe('malformed requests get a JSON 400 saying what is wrong, never a 500', () => {
  let plain: Mounted;
  const auth = { authorization: 'Bearer a-shared-secret-for-backends', 'content-type': 'application/json' };
  beforeAll(async () => {
    plain = await mountOn(t, { events: { secret: 'a-shared-secret-for-backends' } });
  });
  afterAll(() => plain.close());

  it('a path parameter that is not valid percent-encoding', async () => {
    for (const path of ['/forms/%ZZ', '/forms/%E0%A4%A', '/tracker.%ZZ.js']) {
      const r = await call(`${plain.url}${path}`);
      expect(r.status, path).toBe(400);
      expect(r.json, path).toEqual({ status: 'error', message: 'a path parameter is not valid percent-encoding' });
    }
  });

  it('a body declared gzip that is not, on the events API and on the collector proxy', async () => {
    const events = await call(`${plain.url}/events`, { method: 'POST', headers: { ...auth, 'content-encoding': 'gzip' }, body: '{"eventId":"x"}' });
    expect(events.status).toBe(400);
    expect(events.json).toEqual({ status: 'error', message: 'the request body is not valid for its Content-Encoding' });
    const collect = await call(`${plain.url}/collect/e`, { method: 'POST', headers: { 'content-type': 'text/plain', 'content-encoding': 'gzip' }, body: '[{}]' });
    expect(collect.status).toBe(400);
    expect(collect.json).toEqual({ status: 'error', message: 'the request body is not valid for its Content-Encoding' });
    // A real gzip body is read: the event itself is what is wrong with it.
    const real = await fetch(`${plain.url}/events`, { method: 'POST', headers: { ...auth, 'content-encoding': 'gzip' }, body: gzipSync('{"eventId":"x"}') });
    expect(real.status).toBe(400);
    expect((await real.json()).message).toMatch(/email/);
  });

  it('JSON that is not an object (null, a number, a string)', async () => {
    for (const body of ['null', '42', '"event"']) {
      const r = await call(`${plain.url}/events`, { method: 'POST', headers: auth, body });
      expect(r.status, body).toBe(400);
      expect(r.json, body).toEqual({ status: 'error', message: 'the request body must be a JSON object' });
    }
  });
});

describe('mounting', () => {
  it('works mounted in an Express 4 app', async () => {
    const app4 = express4();
    const m4 = await mount({ baseUrl: t.baseUrl, auth: { accessToken: t.portals[0].privateAppToken } }, app4);
    try {
      const known = await call(`${m4.url}/visitor`, { cookie: `svcutk=${ada}` });
      expect(known.json).toMatchObject({ known: true, properties: { firstname: 'Ada' } });
      const notFound = await call(`${m4.url}/forms/00000000-0000-0000-0000-000000000000`);
      expect(notFound.status).toBe(404);
      expect(notFound.json).toEqual({ status: 'error', message: 'no form with this guid' });
      const broken = await call(`${m4.url}/subscriptions`, { method: 'PUT', body: '{', cookie: `svcutk=${ada}` });
      expect(broken.status).toBe(400);
      expect(broken.json).toEqual({ status: 'error', message: 'the request body is not valid JSON' });
    } finally {
      await m4.close();
    }
  });

  it('leaves the host app\u2019s other routes alone', async () => {
    const app = express();
    app.get('/hello', (_req, res) => void res.send('hi'));
    const h = await mount({ baseUrl: t.baseUrl, auth: { accessToken: t.portals[0].privateAppToken } }, app);
    try {
      const r = await fetch(h.url.replace('/svc', '/hello'));
      expect(await r.text()).toBe('hi');
      expect(r.headers.get('content-security-policy')).toBeNull();
    } finally {
      await h.close();
    }
  });
});
