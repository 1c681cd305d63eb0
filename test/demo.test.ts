/** The demo website over HTTP, in front of the real platform (the browser flow is in
 * test/browser/demo.test.ts): its pages, its strict CSP, its config and its server-side event. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSystem, type System } from './browser/system';

let sys: System;
beforeAll(async () => {
  sys = await startSystem();
}, 30_000);
afterAll(() => sys.close());

const get = (path: string, init?: RequestInit) => fetch(sys.siteUrl + path, { redirect: 'manual', ...init });

describe('demo website', () => {
  it('serves its pages under a strict Content-Security-Policy, the SPA route included', async () => {
    for (const path of ['/', '/pricing', '/contact']) {
      const res = await get(path);
      expect(res.status).toBe(200);
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain(`connect-src 'self' ${new URL(sys.formsUrl).origin}`);
      const html = await res.text();
      expect(html).not.toMatch(/<script>|<style|style=|onclick=/); // nothing inline for the CSP to allow
      expect(html).toContain('<script async src="/svc/tracker.js" data-portal-id="62515" data-collector="/svc"');
    }
    expect((await get('/preferences')).headers.get('location')).toBe('/svc/preferences');
    const missing = await get('/nope');
    expect([missing.status, await missing.text()]).toEqual([404, 'Not found: /nope\n']);
  });

  it('tells the pages the portal, the contact form and {forms_url}', async () => {
    const config = await (await get('/demo-config.json')).json();
    const form = (await sys.api(`/contacts/v1/forms/${config.contactFormId}`)).json;
    expect(config).toEqual({ portalId: 62515, contactFormId: form.guid, formsUrl: sys.formsUrl });
    expect(form.name).toBe('Contact us');
  });

  it('serves the bundles and the companion first-party', async () => {
    const tracker = await get('/svc/tracker.js');
    expect([tracker.status, tracker.headers.get('content-type')]).toEqual([
      200,
      'application/javascript; charset=utf-8',
    ]);
    expect((await get('/svc/forms.js')).status).toBe(200);
    expect(await (await get('/svc/healthz')).json()).toMatchObject({ status: 'ok', upstream: 'ok' });
    expect(await (await get('/svc/visitor')).json()).toEqual({ known: false });
  });

  it('records the purchase as a server-side event for the visitor of the cookie', async () => {
    const buy = (cookie?: string) =>
      get('/api/buy', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
        body: '{"plan":"pro"}',
      });
    const anonymous = await buy();
    expect([anonymous.status, (await anonymous.json()).message]).toEqual([
      400,
      'no visitor cookie (svcutk): accept cookies first',
    ]);
    expect((await buy('svcutk=../../etc')).status).toBe(400);

    // A known visitor: the event lands on their contact.
    const utk = 'fe'.repeat(16);
    const { contacts, visitors, write } = sys.platform.services;
    const vid = await write(async (t) => {
      const made = await contacts.upsertByEmail(t, 62515, 'buyer@acme.test', [{ property: 'firstname', value: 'Bea' }]);
      await visitors.link(t, 62515, utk, made.vid);
      return made.vid;
    });
    const ok = await buy(`svcutk=${utk}`);
    expect(ok.status).toBe(202);
    await sys.companion.events.flush();
    await expect
      .poll(
        async () =>
          (await sys.api(`/contacts/v1/contact/vid/${vid}/profile`)).json.properties.svc_analytics_revenue?.value,
        { timeout: 10_000 },
      )
      .toBe('49');
  });
});
