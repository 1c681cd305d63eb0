/** GET /visitor against the real platform, through both doors: known and unknown visitors, the
 * allow-list, forged and malformed cookies, opt-out, and the per-utk cache (misses included) on the
 * platform's moved clock. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  forEachDoor,
  identifiedVisitor,
  mountOn,
  newUtk,
  startTestPlatform,
  type Mounted,
  type TestPlatform,
} from './harness';

forEachDoor((door) => {
  let t: TestPlatform;
  let m: Mounted;
  const ada = newUtk();
  let lookups = 0;

  beforeAll(async () => {
    t = await startTestPlatform();
    await identifiedVisitor(t, ada, {
      email: 'ada@example.com',
      firstname: 'Ada',
      lastname: 'Lovelace',
      company: 'Analytical',
      phone: '555',
    });
    m = await mountOn(t, {}, { door });
    // Counts the platform lookups the route makes.
    const original = m.companion.client.contacts.getByUtk;
    m.companion.client.contacts.getByUtk = (...args: Parameters<typeof original>) => (lookups++, original(...args));
  });
  afterAll(async () => {
    await m.close();
    await t.close();
  });

  describe('GET /visitor', () => {
    it('answers a known visitor with the allow-listed properties only', async () => {
      const r = await call(`${m.url}/visitor`, { cookie: `svcutk=${ada}` });
      expect(r.status).toBe(200);
      expect(r.json).toEqual({
        known: true,
        vid: expect.any(Number),
        properties: { firstname: 'Ada', lastname: 'Lovelace', company: 'Analytical' },
      });
      expect(r.text).not.toContain('ada@example.com');
      expect(r.text).not.toContain('555');
      expect(r.headers.get('cache-control')).toBe('private, no-store');
      expect(r.headers.get('vary')).toBe('Cookie');
      expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    });

    it('answers {known:false} for an unknown, missing, forged or malformed cookie, without a platform call for bad ones', async () => {
      const before = lookups;
      for (const cookie of [
        '',
        'svcutk=',
        `svcutk=${ada.toUpperCase()}`,
        `svcutk=${ada}0`,
        'svcutk=../../contacts',
        `svcutk=${ada.slice(1)}`,
        'svcutk=%zz',
        'svcutk="x"',
      ]) {
        const r = await call(`${m.url}/visitor`, { cookie });
        expect(r.status, cookie).toBe(200);
        expect(r.json, cookie).toEqual({ known: false });
      }
      expect(lookups).toBe(before);
      const r = await call(`${m.url}/visitor`, { cookie: `svcutk=${newUtk()}` });
      expect(r.json).toEqual({ known: false });
      expect(lookups).toBe(before + 1);
    });

    it('does not look up a visitor who opted out', async () => {
      const before = lookups;
      const r = await call(`${m.url}/visitor`, { cookie: `svcutk=${ada}; __svc_opt_out=yes` });
      expect(r.json).toEqual({ known: false });
      expect(lookups).toBe(before);
    });

    it('caches per utk, misses included, until the TTL passes on the moved clock', async () => {
      const stranger = newUtk();
      const known = newUtk();
      await identifiedVisitor(t, known, { email: 'grace@example.com', firstname: 'Grace' });
      const before = lookups;
      await Promise.all(Array.from({ length: 20 }, () => call(`${m.url}/visitor`, { cookie: `svcutk=${stranger}` })));
      await Promise.all(Array.from({ length: 20 }, () => call(`${m.url}/visitor`, { cookie: `svcutk=${known}` })));
      expect(lookups).toBe(before + 2);
      t.clock.now += 31_000;
      const r = await call(`${m.url}/visitor`, { cookie: `svcutk=${known}` });
      expect(r.json.properties).toEqual({ firstname: 'Grace' });
      expect(lookups).toBe(before + 3);
    });

    it('keeps "not known" only briefly: a visitor who just filled in a form is greeted within seconds', async () => {
      const newcomer = newUtk();
      expect((await call(`${m.url}/visitor`, { cookie: `svcutk=${newcomer}` })).json).toEqual({ known: false });
      // The form submission goes to {forms_url}, past the companion.
      await identifiedVisitor(t, newcomer, { email: 'newcomer@example.com', firstname: 'Nia' });
      expect((await call(`${m.url}/visitor`, { cookie: `svcutk=${newcomer}` })).json).toEqual({ known: false }); // still cached
      t.clock.now += 2_001;
      expect((await call(`${m.url}/visitor`, { cookie: `svcutk=${newcomer}` })).json).toMatchObject({
        known: true,
        properties: { firstname: 'Nia' },
      });
    });

    it('uses a configured allow-list', async () => {
      const other = await mountOn(t, { visitor: { properties: ['phone'] } }, { door });
      try {
        const r = await call(`${other.url}/visitor`, { cookie: `svcutk=${ada}` });
        expect(r.json.properties).toEqual({ phone: '555' });
      } finally {
        await other.close();
      }
    });

    it('never answers another portal\u2019s contact', async () => {
      const other = await mountOn(t, {}, { door, portal: t.portals[1] });
      try {
        const r = await call(`${other.url}/visitor`, { cookie: `svcutk=${ada}` });
        expect(r.json).toEqual({ known: false });
      } finally {
        await other.close();
      }
    });

    it('answers HEAD with the headers alone, and a trailing slash or other case like the route', async () => {
      const head = await fetch(`${m.url}/visitor`, { method: 'HEAD', headers: { cookie: `svcutk=${ada}` } });
      expect(head.status).toBe(200);
      expect(head.headers.get('cache-control')).toBe('private, no-store');
      expect(await head.text()).toBe('');
      expect((await call(`${m.url}/visitor/`, { cookie: `svcutk=${ada}` })).json.known).toBe(true);
      expect((await call(`${m.url}/Visitor`, { cookie: `svcutk=${ada}` })).json.known).toBe(true);
    });

    it('sends security headers and a JSON 404 for unknown routes and methods', async () => {
      const r = await call(`${m.url}/nope`);
      expect(r.status).toBe(404);
      expect(r.json).toEqual({ status: 'error', message: 'no companion route GET /nope' });
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('content-security-policy')).toContain("default-src 'self'");
      const post = await call(`${m.url}/visitor`, { method: 'POST', body: {} });
      expect(post.status).toBe(404);
      expect(post.json).toEqual({ status: 'error', message: 'no companion route POST /visitor' });
      expect((await call(`${m.url}/visitor`, { method: 'DELETE' })).status).toBe(404);
    });

    it('logs no personal data or credentials', () => {
      const logs = m.logs.text();
      for (const secret of [ada, 'ada@example.com', t.portals[0].privateAppToken]) expect(logs).not.toContain(secret);
    });
  });
});
