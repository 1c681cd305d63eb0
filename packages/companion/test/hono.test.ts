/** The fetch handler mounted in a Hono app served by @hono/node-server, over real HTTP, the way the
 * README shows it: `app.all('/svc/*', (c) => companion.fetch(c.req.raw, { clientAddress }))`. The
 * routes answer through Hono as through the other doors (a known visitor, a form's 400 naming its
 * parameter, a preference change with its CSRF token, events, the collector's cookie, scripts with
 * their ETag, CORS and the rate limit per address), and the app's own routes are left alone. */
import { serve, type ServerType } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompanion, type Companion } from '../src/fetch';
import { seedEmailDefaults } from '../../platform/src/store/email-seed';
import { call, identifiedVisitor, logCapture, newUtk, startTestPlatform, tempDir, type TestPlatform } from './harness';

const SECRET = 'shared-secret-of-the-backends-0123';
let t: TestPlatform;
let companion: Companion;
let server: ServerType;
let origin: string;
const ada = newUtk();
const logs = logCapture();

beforeAll(async () => {
  t = await startTestPlatform();
  await seedEmailDefaults(t.platform.services.engine, t.portals[0].portalId, t.clock.now);
  await identifiedVisitor(t, ada, { email: 'ada@example.com', firstname: 'Ada' });
  companion = createCompanion({
    baseUrl: t.baseUrl,
    formsUrl: t.formsUrl,
    auth: { accessToken: t.portals[0].privateAppToken },
    now: () => t.clock.now,
    logger: logs.logger,
    allowedOrigins: ['https://shop.example.com'],
    rateLimit: { limit: 40, windowMs: 60_000 },
    subscriptions: { linkSecret: 'link-signing-key-of-the-site-0123456789' },
    events: { secret: SECRET, outboxFile: `${tempDir()}/outbox.jsonl`, handleSigterm: false },
  });

  const app = new Hono();
  app.get('/', (c) => c.text('the site'));
  app.all('/svc/*', (c) => companion.fetch(c.req.raw, { clientAddress: getConnInfo(c).remote.address }));
  server = await new Promise<ServerType>((resolve) => {
    // overrideGlobalObjects would swap this test worker's global Request and Response for Hono's own,
    // under every test file that runs after this one in the worker.
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1', overrideGlobalObjects: false }, () =>
      resolve(s),
    );
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await companion?.close();
  await new Promise((resolve) => server?.close(resolve));
  await t?.close();
});

describe('the fetch handler on Hono', () => {
  it('answers /visitor, with the security headers', async () => {
    const r = await call(`${origin}/svc/visitor`, { cookie: `svcutk=${ada}` });
    expect(r.json).toMatchObject({ known: true, properties: { firstname: 'Ada' } });
    expect(r.headers.get('cache-control')).toBe('private, no-store');
    expect(r.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(r.headers.get('ratelimit-policy')).toBe('40;w=60');
  });

  it('answers a form guid that does not percent-decode with a 400 naming it, and an unknown form 404', async () => {
    const bad = await call(`${origin}/svc/forms/%E0%A4%A`);
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ status: 'error', message: 'the path parameter guid is not valid percent-encoding' });
    expect((await call(`${origin}/svc/forms/00000000-0000-0000-0000-000000000000`)).status).toBe(404);
  });

  it('changes preferences with the CSRF token, and refuses a forged one', async () => {
    const got = await call(`${origin}/svc/subscriptions`, { cookie: `svcutk=${ada}` });
    expect(got.json.email).toBe('a•••@example.com');
    const id = got.json.types[0].id;
    const put = (csrf: string) =>
      call(`${origin}/svc/subscriptions`, {
        method: 'PUT',
        cookie: `svcutk=${ada}`,
        headers: { 'x-csrf-token': csrf },
        body: { subscriptions: [{ id, subscribed: false }] },
      });
    expect((await put('forged.token')).status).toBe(403);
    const changed = await put(got.json.csrfToken);
    expect(changed.status).toBe(200);
    expect(changed.json.types[0].subscribed).toBe(false);
  });

  it('takes server-side events, and refuses a wrong secret', async () => {
    const event = { eventId: 'hono-event', email: 'ada@example.com' };
    expect(
      (await call(`${origin}/svc/events`, { method: 'POST', body: event, headers: { authorization: 'Bearer nope' } }))
        .status,
    ).toBe(401);
    const ok = await call(`${origin}/svc/events`, {
      method: 'POST',
      body: event,
      headers: { authorization: `Bearer ${SECRET}` },
    });
    expect(ok.status).toBe(202);
    expect(ok.json).toEqual({ accepted: 1, ids: [expect.any(String)] });
  });

  it('passes page views to the collector and re-issues the visitor cookie', async () => {
    const utk = newUtk();
    const view = {
      eid: newUtk(),
      k: '1',
      a: String(t.portals[0].portalId),
      v: '1',
      cts: String(t.clock.now),
      vi: utk,
      pu: 'https://site.test/',
    };
    const r = await call(`${origin}/svc/e`, {
      method: 'POST',
      body: JSON.stringify([view]),
      headers: { 'content-type': 'text/plain' },
    });
    expect(r.status).toBeLessThan(300);
    expect(r.headers.get('set-cookie')).toMatch(new RegExp(`^svcutk=${utk}; Max-Age=15552000; Path=/; SameSite=Lax$`));
  });

  it('serves tracker.js with its ETag, 304 when unchanged', async () => {
    const first = await fetch(`${origin}/svc/tracker.js`);
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('public, max-age=300');
    const again = await request(`${origin}/svc/tracker.js`, {
      headers: { 'if-none-match': first.headers.get('etag')! },
    });
    expect(again.statusCode).toBe(304);
    await again.body.dump();
  });

  it('answers a CORS preflight from an allowed origin', async () => {
    const pre = await call(`${origin}/svc/subscriptions`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://shop.example.com',
        'access-control-request-method': 'PUT',
        'access-control-request-headers': 'content-type,x-csrf-token',
      },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('https://shop.example.com');
    expect(pre.headers.get('access-control-allow-credentials')).toBe('true');
  });

  it('leaves the app\u2019s own routes alone', async () => {
    const r = await fetch(`${origin}/`);
    expect(await r.text()).toBe('the site');
    expect(r.headers.get('content-security-policy')).toBeNull();
  });

  it('limits each address, counted by the socket Hono saw', async () => {
    let last = 0;
    for (let i = 0; i < 45 && last != 429; i++) last = (await fetch(`${origin}/svc/healthz`)).status;
    expect(last).toBe(429);
    const r = await call(`${origin}/svc/visitor`);
    expect(r.json).toEqual({ status: 'error', message: 'too many requests from this address; slow down' });
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('logs no personal data or credentials', () => {
    for (const secret of [ada, 'ada@example.com', t.portals[0].privateAppToken, SECRET])
      expect(logs.text()).not.toContain(secret);
  });
});
