/** Platform faults seen from the browser: down, slow, 429, 5xx, 401/403 — each answered within a
 * bounded time with the right status, a neutral message (never the platform's body or a
 * credential), and no unhandled rejection, through both doors. Backoff waits run on a moved clock. */
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, faultServer, forEachDoor, json, mount, movedClock, newUtk, type Mounted } from './harness';

type Fault = (res: ServerResponse) => void;

forEachDoor((door) => {
  let fault: Fault = (res) => json(res, 500, {});
  let upstream: Awaited<ReturnType<typeof faultServer>>;
  let m: Mounted;
  const SECRET_TOKEN = 'svc-pat-very-secret-token';
  const LEAK = 'internal-detail-from-the-platform';

  beforeAll(async () => {
    upstream = await faultServer((_req, res) => fault(res));
    m = await mount(
      {
        baseUrl: upstream.url,
        auth: { accessToken: SECRET_TOKEN },
        client: { rateLimit: { max: Infinity }, clock: movedClock().clock },
        visitor: { cacheTtlMs: 0 },
      },
      { door },
    );
  });
  afterAll(async () => {
    await m.close();
    await upstream.close();
  });

  const lookup = () => call(`${m.url}/visitor`, { cookie: `svcutk=${newUtk()}` });

  describe('platform faults', () => {
    it('5xx → 502 with a neutral message, after the client\u2019s retries', async () => {
      fault = (res) => json(res, 503, { status: 'error', message: LEAK });
      const before = upstream.seen.length;
      const r = await lookup();
      expect(r.status).toBe(502);
      expect(r.json).toEqual({ status: 'error', message: 'the platform could not answer' });
      expect(upstream.seen.length - before).toBe(3); // one try and two retries
    });

    it('401 and 403 → 502, never the platform\u2019s words', async () => {
      for (const status of [401, 403]) {
        fault = (res) =>
          json(res, status, {
            status: 'error',
            category: 'EXPIRED_AUTHENTICATION',
            message: `${LEAK} ${SECRET_TOKEN}`,
          });
        const r = await lookup();
        expect(r.status).toBe(502);
        expect(r.text).not.toContain(LEAK);
        expect(r.text).not.toContain('AUTHENTICATION');
      }
    });

    it('429 → 503 with Retry-After', async () => {
      fault = (res) => json(res, 429, { status: 'error', message: LEAK }, { 'retry-after': '30' });
      const r = await lookup();
      expect(r.status).toBe(503);
      expect(r.headers.get('retry-after')).toBe('30');
      expect(r.text).not.toContain(LEAK);
    });

    it('a platform that never answers → 504 within the upstream timeout', async () => {
      fault = () => undefined; // holds the request open
      const quick = await mount(
        {
          baseUrl: upstream.url,
          auth: { accessToken: SECRET_TOKEN },
          upstreamTimeoutMs: 300,
          client: { clock: movedClock().clock },
        },
        { door },
      );
      try {
        const r = await call(`${quick.url}/visitor`, { cookie: `svcutk=${newUtk()}` });
        expect(r.status).toBe(504);
        expect(r.json.message).toBe('the platform did not answer in time');
      } finally {
        await quick.close();
      }
    });

    it('a reset connection → 502', async () => {
      fault = (res) => res.socket?.destroy();
      const r = await lookup();
      expect(r.status).toBe(502);
    });

    it('a platform that is down → 502 on /visitor and on forms', async () => {
      const down = await mount(
        { baseUrl: 'http://127.0.0.1:9', auth: { accessToken: SECRET_TOKEN }, client: { clock: movedClock().clock } },
        { door },
      );
      try {
        expect((await call(`${down.url}/visitor`, { cookie: `svcutk=${newUtk()}` })).status).toBe(502);
        expect((await call(`${down.url}/forms/abc`)).status).toBe(502);
      } finally {
        await down.close();
      }
    });

    it('a success body that is not JSON → 502', async () => {
      fault = (res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>oops</html>');
      const r = await lookup();
      expect(r.status).toBe(502);
      expect(r.json).toEqual({ status: 'error', message: 'the platform could not answer' });
    });

    it('every platform-backed route answers neutrally: forms, subscriptions, healthz', async () => {
      const link = await mount(
        {
          baseUrl: upstream.url,
          auth: { accessToken: SECRET_TOKEN },
          publicUrl: 'https://x.test/svc',
          client: { clock: movedClock().clock },
        },
        { door },
      );
      try {
        const token = new URL(link.companion.links.preferences('ada@example.com')).searchParams.get('token');
        for (const [status, expected] of [
          [500, 502],
          [429, 503],
          [403, 502],
        ] as const) {
          fault = (res) => json(res, status, { status: 'error', message: `${LEAK} ada@example.com` });
          for (const path of ['/forms/abc', `/subscriptions?token=${token}`]) {
            const r = await call(`${link.url}${path}`);
            expect(r.status, `${status} ${path}`).toBe(expected);
            expect(r.text).not.toContain(LEAK);
            expect(r.text).not.toContain('ada@example.com');
          }
        }
        fault = (res) => json(res, 500, { message: LEAK });
        const health = await call(`${link.url}/healthz`);
        expect(health.status).toBe(503);
        expect(health.json).toEqual({ status: 'degraded', upstream: 'error', pendingEvents: 0 });
        expect(link.logs.text()).not.toContain('ada@example.com');
      } finally {
        await link.close();
      }
    });

    it('logs statuses and categories, never the token, the utk or the platform\u2019s body', () => {
      const logs = m.logs.text();
      expect(logs).toContain('"status":503');
      expect(logs).not.toContain(SECRET_TOKEN);
      expect(logs).not.toContain(LEAK);
      expect(logs).not.toMatch(/[0-9a-f]{32}/);
    });
  });
});
