/** The first-party proxy: tracker.js and forms.js with ETags and versioned long-cache paths, and the
 * collector endpoints passed to the real platform, with `svcutk` re-issued as a server-set cookie
 * (not for opted-out or cookieless visitors). Collector faults keep the statuses the tracker acts on.
 * Through both doors. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import express from 'express';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  faultServer,
  forEachDoor,
  json,
  mount,
  mountOn,
  newUtk,
  sqliteOf,
  startTestPlatform,
  tempDir,
  type Mounted,
  type TestPlatform,
} from './harness';

forEachDoor((door) => {
  let t: TestPlatform;
  let m: Mounted;
  const hex = () => newUtk();

  beforeAll(async () => {
    t = await startTestPlatform();
    m = await mountOn(t, {}, { door });
  });
  afterAll(async () => {
    await m.close();
    await t.close();
  });

  const pageView = (utk?: string, extra: Record<string, string> = {}) => ({
    eid: hex(),
    k: '1',
    a: String(t.portals[0].portalId),
    v: '1',
    cts: String(t.clock.now),
    pu: 'https://www.example.com/pricing',
    t: 'Pricing',
    ln: 'en-GB',
    po: '/pricing',
    ...(utk ? { vi: utk, nc: '0' } : { ce: 'false' }),
    ...extra,
  });
  const post = (body: unknown, cookie?: string) =>
    call(`${m.url}/collect/e`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
      cookie,
    });
  const visits = (utk: string) =>
    (sqliteOf(t).prepare('SELECT count(*) AS n FROM tracking_events WHERE utk = ?').get(utk) as { n: number }).n;

  describe('scripts', () => {
    it('serves tracker.js with an ETag and a short cache, 304 when unchanged', async () => {
      const r = await fetch(`${m.url}/tracker.js`);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
      expect(r.headers.get('cache-control')).toBe('public, max-age=300');
      const etag = r.headers.get('etag')!;
      expect((await r.text()).length).toBeGreaterThan(1000);
      // undici's request, not fetch: fetch adds Cache-Control: no-cache to conditional requests.
      const again = await request(`${m.url}/tracker.js`, { headers: { 'if-none-match': etag } });
      expect(again.statusCode).toBe(304);
      await again.body.dump();
    });

    it('serves the versioned path with a year-long immutable cache, and 404s a stale version', async () => {
      const { tracker } = await m.companion.scripts();
      expect(tracker).toMatch(/^tracker\.[0-9a-f]{12}\.js$/);
      const r = await fetch(`${m.url}/${tracker}`);
      expect(r.status).toBe(200);
      expect(r.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      const stale = await call(`${m.url}/tracker.000000000000.js`);
      expect(stale.status).toBe(404);
      expect(stale.json.message).toContain(tracker);
    });

    it('answers a clear 404 for forms.js until the form embed is built, and serves it when it is', async () => {
      const without = await mountOn(t, { proxy: { formsFile: join(tempDir(), 'not-built.js') } }, { door });
      try {
        const missing = await call(`${without.url}/forms.js`);
        expect(missing.status).toBe(404);
        expect(missing.json.message).toMatch(/forms\.js is not available/);
      } finally {
        await without.close();
      }
      const file = join(tempDir(), 'forms.js');
      writeFileSync(file, 'window.svcForms = 1;');
      const withForms = await mountOn(t, { proxy: { formsFile: file } }, { door });
      try {
        const r = await call(`${withForms.url}/forms.js`);
        expect(r.status).toBe(200);
        expect(r.text).toBe('window.svcForms = 1;');
        expect((await withForms.companion.scripts()).forms).toMatch(/^forms\.[0-9a-f]{12}\.js$/);
      } finally {
        await withForms.close();
      }
    });
  });

  describe('collector', () => {
    it('passes a batch to the platform and re-issues svcutk as a server-set cookie', async () => {
      const utk = newUtk();
      const r = await post([pageView(utk)], `svcutk=${utk}`);
      expect(r.status).toBeLessThan(300);
      const cookie = r.headers.get('set-cookie')!;
      expect(cookie).toMatch(new RegExp(`^svcutk=${utk}; Max-Age=15552000; Path=/; SameSite=Lax$`));
      expect(cookie).not.toMatch(/HttpOnly/i); // the tracker reads it
      expect(visits(utk)).toBe(1);
    });

    it.runIf(door == 'express')(
      'marks the cookie Secure behind a TLS proxy when the host app trusts it (Express "trust proxy"), and only then',
      async () => {
        const behind = express().set('trust proxy', 'loopback');
        const proxied = await mount(
          { baseUrl: t.baseUrl, formsUrl: t.formsUrl, auth: { accessToken: t.portals[0].privateAppToken } },
          { app: behind },
        );
        const send = (url: string) =>
          call(`${url}/collect/e`, {
            method: 'POST',
            body: JSON.stringify([pageView(utk)]),
            headers: { 'content-type': 'text/plain', 'x-forwarded-proto': 'https' },
          });
        const utk = hex();
        try {
          expect((await send(proxied.url)).headers.get('set-cookie')).toMatch(/; Secure/);
          // Without trust proxy anyone could claim https: the header is ignored.
          expect((await send(m.url)).headers.get('set-cookie')).not.toMatch(/; Secure/);
        } finally {
          await proxied.close();
        }
      },
    );

    it.runIf(door == 'fetch')(
      'marks the cookie Secure when the request is https (as Next.js and Vercel hand it over)',
      async () => {
        const utk = hex();
        const send = (origin: string) =>
          m.companion.fetch(
            new Request(`${origin}/svc/collect/e`, {
              method: 'POST',
              body: JSON.stringify([pageView(utk)]),
              headers: { 'content-type': 'text/plain' },
            }),
          );
        expect((await send('https://www.example.com')).headers.get('set-cookie')).toMatch(/; Secure/);
        expect((await send('http://www.example.com')).headers.get('set-cookie')).not.toMatch(/Secure/);
      },
    );

    it('takes the utk from the batch when the cookie is missing (the first page view)', async () => {
      const utk = newUtk();
      const r = await post([pageView(utk), pageView(utk)]);
      expect(r.headers.get('set-cookie')).toMatch(new RegExp(`^svcutk=${utk};`));
      expect(visits(utk)).toBe(2);
    });

    it('sets no cookie for an opted-out visitor, a cookieless batch, a forged cookie, or mixed visitors', async () => {
      const utk = newUtk();
      expect((await post([pageView(utk)], `svcutk=${utk}; __svc_opt_out=yes`)).headers.get('set-cookie')).toBeNull();
      expect((await post([pageView()])).headers.get('set-cookie')).toBeNull();
      expect((await post([pageView(undefined)], 'svcutk=../../evil')).headers.get('set-cookie')).toBeNull();
      expect((await post([pageView(newUtk()), pageView(newUtk())])).headers.get('set-cookie')).toBeNull();
    });

    it('answers at <mount>/e too, where the tracker sends with data-collector="<mount>"', async () => {
      const utk = newUtk();
      const r = await call(`${m.url}/e`, {
        method: 'POST',
        body: JSON.stringify([pageView(utk)]),
        headers: { 'content-type': 'text/plain;charset=UTF-8' },
      });
      expect(r.status).toBeLessThan(300);
      expect(r.headers.get('set-cookie')).toMatch(new RegExp(`^svcutk=${utk};`));
      expect(visits(utk)).toBe(1);
    });

    it('answers the pixel with a GIF and the cookie', async () => {
      const utk = newUtk();
      const res = await fetch(`${m.url}/collect/p.gif?${new URLSearchParams(pageView(utk))}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/gif');
      expect(res.headers.get('set-cookie')).toMatch(new RegExp(`^svcutk=${utk};`));
      expect(visits(utk)).toBe(1);
    });

    it('answers an invalid batch 400 with its own message and no cookie', async () => {
      const r = await post({ not: 'an array' }, `svcutk=${newUtk()}`);
      expect(r.status).toBe(400);
      expect(r.json).toEqual({ status: 'error', message: 'the collector refused the events as invalid' });
      expect(r.headers.get('set-cookie')).toBeNull();
      const big = await post([pageView(newUtk(), { t: 'x'.repeat(70_000) })]);
      expect(big.status).toBe(413);
    });

    it('keeps 429 and Retry-After, turns 5xx and a dead collector into 502', async () => {
      let answer = (res: Parameters<Parameters<typeof faultServer>[0]>[1]) =>
        json(res, 429, { message: 'slow down, internal detail' }, { 'retry-after': '7' });
      const upstream = await faultServer((_req, res) => answer(res));
      const f = await mount({ baseUrl: upstream.url, auth: { accessToken: 'x' } }, { door });
      try {
        const busy = await call(`${f.url}/collect/e`, {
          method: 'POST',
          body: '[]',
          headers: { 'content-type': 'text/plain' },
        });
        expect(busy.status).toBe(429);
        expect(busy.headers.get('retry-after')).toBe('7');
        expect(busy.text).not.toContain('internal detail');
        answer = (res) => json(res, 500, { message: 'stack trace' });
        const broken = await call(`${f.url}/collect/e`, {
          method: 'POST',
          body: '[]',
          headers: { 'content-type': 'text/plain' },
        });
        expect(broken.status).toBe(502);
        expect(broken.text).not.toContain('stack trace');
      } finally {
        await f.close();
        await upstream.close();
      }
      const dead = await mount({ baseUrl: 'http://127.0.0.1:9', auth: { accessToken: 'x' } }, { door });
      try {
        const r = await call(`${dead.url}/collect/e`, {
          method: 'POST',
          body: '[]',
          headers: { 'content-type': 'text/plain' },
        });
        expect(r.status).toBe(502);
        expect(r.json.message).toBe('the collector could not be reached');
      } finally {
        await dead.close();
      }
    });
  });
});
