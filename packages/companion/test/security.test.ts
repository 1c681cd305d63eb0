/** What every route sits behind, through both doors: the CORS allow-list with credentials (never
 * `*`), the per-IP rate limit, body size limits, JSON errors for broken bodies and bad path
 * parameters; and for the Express door, mounting in Express 4 as in 5 and leaving the host app's
 * own routes alone. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import express4 from 'express4';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompanion } from '../src';
import {
  call,
  forEachDoor,
  identifiedVisitor,
  mount,
  mountOn,
  newUtk,
  startTestPlatform,
  tempDir,
  type Mounted,
  type TestPlatform,
} from './harness';

forEachDoor((door) => {
  let t: TestPlatform;
  let m: Mounted;
  const ada = newUtk();

  beforeAll(async () => {
    t = await startTestPlatform();
    await identifiedVisitor(t, ada, { email: 'ada@example.com', firstname: 'Ada' });
    m = await mountOn(
      t,
      {
        allowedOrigins: ['https://www.example.com'],
        rateLimit: { limit: 5, windowMs: 60_000 },
        events: { secret: 'a-shared-secret-for-backends' },
      },
      { door },
    );
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
        headers: {
          origin: 'https://www.example.com',
          'access-control-request-method': 'PUT',
          'access-control-request-headers': 'content-type,x-csrf-token',
        },
      });
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-headers')).toContain('x-csrf-token');
      expect(pre.headers.get('access-control-allow-origin')).toBe('https://www.example.com');
      expect(pre.headers.get('access-control-allow-methods')).toBe('GET,HEAD,PUT,POST');
      expect(pre.headers.get('access-control-max-age')).toBe('600');
      expect(pre.headers.get('vary')).toContain('Origin');
    });

    it('gives other origins no CORS headers', async () => {
      const r = await call(`${m.url}/healthz`, { headers: { origin: 'https://evil.example' } });
      expect(r.headers.get('access-control-allow-origin')).toBeNull();
      const pre = await call(`${m.url}/subscriptions`, {
        method: 'OPTIONS',
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'PUT' },
      });
      expect(pre.status).toBe(404);
      expect(pre.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('refuses * and malformed origins in the options', () => {
      const base = {
        baseUrl: t.baseUrl,
        auth: { accessToken: 'x' },
        logger: false as const,
        events: { outboxFile: `${tempDir()}/o.jsonl`, handleSigterm: false },
      };
      expect(() => createCompanion({ ...base, allowedOrigins: ['*'] })).toThrow(/cannot contain "\*"/);
      expect(() => createCompanion({ ...base, allowedOrigins: ['https://x.test/path'] })).toThrow(/without a path/);
      expect(() => createCompanion({ ...base, allowedOrigins: ['nonsense'] })).toThrow(/not an origin/);
    });
  });

  describe('limits and errors', () => {
    it('answers 413 for a body over the limit and 400 for broken JSON, as JSON', async () => {
      const auth = { authorization: 'Bearer a-shared-secret-for-backends' };
      const big = await call(`${m.url}/events`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ eventId: 'x', email: 'a@b.co', properties: { p: 'x'.repeat(70_000) } }),
      });
      expect(big.status).toBe(413);
      expect(big.json).toEqual({ status: 'error', message: 'the request body is too large' });
      const broken = await call(`${m.url}/events`, { method: 'POST', headers: auth, body: '{"eventId": ' });
      expect(broken.status).toBe(400);
      expect(broken.json).toEqual({ status: 'error', message: 'the request body is not valid JSON' });
    });

    it('rate-limits per IP with a JSON 429 and standard headers', async () => {
      const answers = [];
      for (let i = 0; i < 8; i++) answers.push(await call(`${m.url}/visitor`));
      const last = answers[7];
      expect(last.status).toBe(429);
      expect(last.json).toEqual({ status: 'error', message: 'too many requests from this address; slow down' });
      expect(last.headers.get('ratelimit-policy')).toBe('5;w=60');
      expect(last.headers.get('ratelimit')).toMatch(/^limit=5, remaining=0, reset=\d+$/);
      expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
      // Errors carry the security headers too.
      expect(last.headers.get('x-content-type-options')).toBe('nosniff');
    });
  });

  describe('malformed requests get a JSON 400 saying what is wrong, never a 500', () => {
    let plain: Mounted;
    const auth = { authorization: 'Bearer a-shared-secret-for-backends', 'content-type': 'application/json' };
    beforeAll(async () => {
      plain = await mountOn(t, { events: { secret: 'a-shared-secret-for-backends' } }, { door });
    });
    afterAll(() => plain.close());

    it('a path parameter that is not valid percent-encoding, named', async () => {
      for (const [path, name] of [
        ['/forms/%ZZ', 'guid'],
        ['/forms/%E0%A4%A', 'guid'],
        ['/forms/%E0%A4%A/visitor', 'guid'],
        ['/tracker.%ZZ.js', 'hash'],
        ['/%ZZ.abc.js', 'script'],
      ]) {
        const r = await call(`${plain.url}${path}`);
        expect(r.status, path).toBe(400);
        expect(r.json, path).toEqual({
          status: 'error',
          message: `the path parameter ${name} is not valid percent-encoding`,
        });
      }
    });

    it('a body in an encoding the companion does not read, or in another charset than UTF', async () => {
      const br = await call(`${plain.url}/events`, {
        method: 'POST',
        headers: { ...auth, 'content-encoding': 'compress' },
        body: '{}',
      });
      expect(br.status).toBe(415);
      expect(br.json).toEqual({ status: 'error', message: 'the request body has an unsupported encoding' });
      const latin = await call(`${plain.url}/events`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json; charset=latin1' },
        body: '{}',
      });
      expect(latin.status).toBe(415);
      expect(latin.json).toEqual({ status: 'error', message: 'the request body has an unsupported charset' });
    });

    it('a small gzip body that inflates past the limit is a 413, not a 500', async () => {
      const bomb = gzipSync(
        JSON.stringify({ eventId: 'x', email: 'a@b.co', properties: { p: 'x'.repeat(5_000_000) } }),
      );
      expect(bomb.length).toBeLessThan(64 * 1024);
      const r = await fetch(`${plain.url}/events`, {
        method: 'POST',
        headers: { ...auth, 'content-encoding': 'gzip' },
        body: bomb,
      });
      expect(r.status).toBe(413);
      expect(await r.json()).toEqual({ status: 'error', message: 'the request body is too large' });
    });

    it('a body declared gzip that is not, on the events API and on the collector proxy', async () => {
      const events = await call(`${plain.url}/events`, {
        method: 'POST',
        headers: { ...auth, 'content-encoding': 'gzip' },
        body: '{"eventId":"x"}',
      });
      expect(events.status).toBe(400);
      expect(events.json).toEqual({
        status: 'error',
        message: 'the request body is not valid for its Content-Encoding',
      });
      const collect = await call(`${plain.url}/collect/e`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', 'content-encoding': 'gzip' },
        body: '[{}]',
      });
      expect(collect.status).toBe(400);
      expect(collect.json).toEqual({
        status: 'error',
        message: 'the request body is not valid for its Content-Encoding',
      });
      // A real gzip body is read: the event itself is what is wrong with it.
      const real = await fetch(`${plain.url}/events`, {
        method: 'POST',
        headers: { ...auth, 'content-encoding': 'gzip' },
        body: gzipSync('{"eventId":"x"}'),
      });
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

  describe.runIf(door == 'express')('mounting', () => {
    it('works mounted in an Express 4 app', async () => {
      const app4 = express4();
      const m4 = await mount(
        { baseUrl: t.baseUrl, auth: { accessToken: t.portals[0].privateAppToken } },
        { app: app4 },
      );
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

    it('works as a plain node:http handler, at the root, without Express', async () => {
      const companion = createCompanion({
        baseUrl: t.baseUrl,
        auth: { accessToken: t.portals[0].privateAppToken },
        logger: false,
        events: { outboxFile: `${tempDir()}/o.jsonl`, handleSigterm: false },
      });
      const server = createServer((req, res) => companion(req, res));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        expect((await call(`${url}/visitor`, { cookie: `svcutk=${ada}` })).json).toMatchObject({ known: true });
        expect((await call(`${url}/forms/%ZZ`)).json.message).toBe(
          'the path parameter guid is not valid percent-encoding',
        );
      } finally {
        await companion.close();
        server.closeAllConnections();
        server.close();
      }
    });

    it('leaves the host app\u2019s other routes alone', async () => {
      const app = express();
      app.get('/hello', (_req, res) => void res.send('hi'));
      const h = await mount({ baseUrl: t.baseUrl, auth: { accessToken: t.portals[0].privateAppToken } }, { app });
      try {
        const r = await fetch(h.url.replace('/svc', '/hello'));
        expect(await r.text()).toBe('hi');
        expect(r.headers.get('content-security-policy')).toBeNull();
      } finally {
        await h.close();
      }
    });
  });
});
