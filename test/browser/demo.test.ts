/** The whole system in real Chromium: the demo website (strict CSP) with the tracker, the form
 * embed and the companion, in front of the real platform — the flow of DESIGN.md, step by step.
 * Screenshots go to test-results/ (git-ignored). */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { haveChromium } from './chromium';
import { SHOTS, usePage, useSystem } from './session';
import { type System, type WireEvent } from './system';

let sys: System;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: string[];

useSystem((s, b) => ((sys = s), (browser = b)));
usePage(
  () => browser,
  (c, p, found) => ((context = c), (page = p), (problems = found)),
);

const utkOf = async () => (await context.cookies()).find((c) => c.name == 'svcutk')?.value ?? '';
/** Waits until the platform holds `count` events of this visitor that `match` selects. */
async function waitFor(utk: string, match: (e: WireEvent) => boolean, count: number) {
  let found: WireEvent[] = [];
  await expect
    .poll(() => (found = sys.received(utk).filter(match)).length, { timeout: 15_000 })
    .toBeGreaterThanOrEqual(count);
  return found;
}
/** The contrast ratio (WCAG 2) of an element's text colour against its own background colour. */
async function contrast(selector: string) {
  const [fg, bg] = await page.$eval(selector, (e) => [getComputedStyle(e).color, getComputedStyle(e).backgroundColor]);
  const luminance = (css: string) => {
    const [r, g, b] = css
      .match(/[\d.]+/g)!
      .slice(0, 3)
      .map((v) => {
        const c = Number(v) / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [a, b] = [luminance(fg), luminance(bg)].sort((x, y) => y - x);
  return (a + 0.05) / (b + 0.05);
}
async function newVisitor() {
  await page.goto(`${sys.siteUrl}/`);
  await expect.poll(utkOf).toMatch(/^[0-9a-f]{32}$/);
  return utkOf();
}

describe.skipIf(!haveChromium)('the demo in Chromium', () => {
  it('tracks a new visitor, turns them into a contact by the form, greets them, and records both kinds of events', async () => {
    const utk = await newVisitor();
    const cookie = (await context.cookies()).find((c) => c.name == 'svcutk')!;
    expect(cookie).toMatchObject({ sameSite: 'Lax', path: '/' });

    // A client-side navigation is a page view; the buy button fires a JavaScript custom event
    // and, through the demo's server, a server-side event.
    await page.click('nav a[data-route="/pricing"]');
    await page.click('#buy');
    await expect
      .poll(() => page.textContent('#buy-status'), { timeout: 15_000 })
      .toBe('Thank you! Your purchase is recorded.');
    await page.screenshot({ path: `${SHOTS}/demo-pricing.png` });

    // The contact form, rendered by the embed; leaving the page flushes what the tracker holds.
    await page.click('nav >> text=Contact');
    await page.locator('#contact-form input[name=email]').fill('ada@acme.test');
    await page.locator('#contact-form input[name=firstname]').fill('Ada');
    await page.locator('#contact-form input[name=lastname]').fill('Lovelace');
    // The dependent question appears once a widget is picked.
    const seats = page.locator('#contact-form select[name=numemployees]');
    expect(await seats.isVisible()).toBe(false);
    await page.locator('#contact-form select[name=favorite_widget]').selectOption('gizmo');
    await seats.waitFor({ state: 'visible' });
    await seats.selectOption('5-25');
    // The form asks for consent to store the details (legalConsentOptions) ...
    await page.locator('#contact-form input[name=svc-consent]').check();
    await page.screenshot({ path: `${SHOTS}/demo-contact.png` });
    // ... and a person takes a moment: faster than its minimum fill time is spam.
    await page.waitForTimeout(1600);
    await page.locator('#contact-form button[type=submit], #contact-form input[type=submit]').click();
    await expect
      .poll(() => page.textContent('#contact-form'), { timeout: 15_000 })
      .toContain('Thanks! We will be in touch.');

    const views = await waitFor(utk, (e) => e.k == '1', 3);
    expect(views.map((e) => e.po)).toEqual(['/', '/pricing', '/contact']);
    // Each view with its own page's title (the last one at its URL), never the next page's.
    expect(views.slice(0, 2).map((e) => e.t)).toEqual(['Acme Widgets', 'Pricing · Acme Widgets']);
    expect(views[1]).toMatchObject({ rpo: '/' });
    const [buy] = await waitFor(utk, (e) => e.k == '3' && e.n == 'buy-clicked', 1);
    expect(buy.m).toBeUndefined(); // the revenue is the server's purchase event's, counted once

    // The form submission created the contact and linked the visitor token to it.
    const byUtk = await sys.api(`/contacts/v1/contact/utk/${utk}/profile`);
    expect(byUtk.status).toBe(200);
    expect(byUtk.json.properties).toMatchObject({
      email: { value: 'ada@acme.test' },
      firstname: { value: 'Ada' },
      favorite_widget: { value: 'gizmo' },
      numemployees: { value: '5-25' },
    });
    expect(byUtk.json['form-submissions']).toHaveLength(1);

    // Back home: the companion knows the visitor now.
    await page.goto(`${sys.siteUrl}/`);
    await expect.poll(() => page.textContent('#greeting'), { timeout: 15_000 }).toBe('Welcome back, Ada!');
    await page.screenshot({ path: `${SHOTS}/demo-home-known.png` });
    // Readable: WCAG AA contrast (4.5:1) between the greeting's text and its background.
    expect(await contrast('#greeting')).toBeGreaterThanOrEqual(4.5);

    // Both events count on the contact: the JavaScript one and the server-side purchase.
    await expect
      .poll(
        async () =>
          (await sys.api(`/contacts/v1/contact/utk/${utk}/profile`)).json.properties.svc_analytics_num_event_completions
            ?.value,
        { timeout: 15_000 },
      )
      .toBe('2');
    expect(
      (await sys.api(`/contacts/v1/contact/utk/${utk}/profile`)).json.properties.svc_analytics_revenue?.value,
    ).toBe('49');
    // The server-side purchase came through the HTTP events API, for the same visitor token.
    await expect
      .poll(() => sys.received(utk).filter((e) => e.n == 'purchase-completed').length, { timeout: 15_000 })
      .toBe(1);
    expect(sys.received(utk).filter((e) => e.n == 'buy-clicked')).toHaveLength(1);

    // The tracker's event carries its properties onto the contact's timeline (the events API read).
    const timeline = await sys.api(
      `/events/v3/events?objectType=contact&objectId=${byUtk.json.vid}&eventType=buy-clicked`,
    );
    expect(timeline.json.results).toEqual([
      expect.objectContaining({ eventType: 'buy-clicked', properties: expect.objectContaining({ plan: 'pro' }) }),
    ]);
    expect(timeline.json.results[0].properties.svc_value).toBeUndefined();

    // Every event exactly once.
    const all = sys.received(utk);
    expect(new Set(all.map((e) => e.eid)).size).toBe(all.length);
    expect(problems).toEqual([]);
  });

  it('records a page loaded directly with its own title, which the page sets after loading', async () => {
    await page.goto(`${sys.siteUrl}/pricing`);
    await expect.poll(utkOf).toMatch(/^[0-9a-f]{32}$/);
    const utk = await utkOf();
    expect(await page.title()).toBe('Pricing · Acme Widgets');
    await page.close({ runBeforeUnload: true }); // leaving flushes the batch
    const [view] = await waitFor(utk, (e) => e.k == '1', 1);
    expect(view).toMatchObject({ po: '/pricing', t: 'Pricing · Acme Widgets' });
  });

  it('records an unsubscribe made in the preference centre', async () => {
    // A visitor the platform knows: identified through the form embed on the contact page.
    const utk = await newVisitor();
    await page.goto(`${sys.siteUrl}/contact`);
    await page.locator('#contact-form input[name=email]').fill('grace@acme.test');
    await page.locator('#contact-form input[name=firstname]').fill('Grace');
    await page.locator('#contact-form input[name=svc-consent]').check();
    await page.waitForTimeout(1600);
    await page.locator('#contact-form button[type=submit], #contact-form input[type=submit]').click();
    await expect.poll(() => page.textContent('#contact-form'), { timeout: 15_000 }).toContain('Thanks!');
    expect((await sys.api(`/contacts/v1/contact/utk/${utk}/profile`)).status).toBe(200);

    // The companion keeps "not known" for 2 s: the page knows the visitor once that has passed.
    await expect
      .poll(
        async () => (
          await page.goto(`${sys.siteUrl}/svc/preferences`),
          page.getByText('Unsubscribe from all emails').isVisible()
        ),
        { timeout: 15_000, interval: 500 },
      )
      .toBe(true);
    problems = []; // the tries before it answered 401, which Chromium logs
    await page.screenshot({ path: `${SHOTS}/demo-preferences.png` });
    page.once('dialog', (d) => d.accept());
    await page.getByText('Unsubscribe from all emails').click();
    await expect
      .poll(async () => (await sys.api('/email/public/v1/subscriptions/grace%40acme.test')).json, { timeout: 15_000 })
      .toMatchObject({ subscribed: false });
    expect(problems).toEqual([]);
  });

  it('sends a visitor it does not know from the preference centre to the contact form, and back home', async () => {
    await newVisitor();
    await page.click('nav >> text=Email preferences');
    await page.locator('.svc-unknown').waitFor({ state: 'visible', timeout: 15_000 });
    await page.screenshot({ path: `${SHOTS}/demo-preferences-unknown.png` });
    await page.click('.svc-sign-up');
    await page.waitForURL(`${sys.siteUrl}/contact`);
    await page.locator('#contact-form input[name=email]').waitFor();
    await page.goBack();
    await page.click('.svc-back a');
    await page.waitForURL(`${sys.siteUrl}/`);
    expect(await page.title()).toBe('Acme Widgets');
    // Chromium logs the page's own 401 (the companion does not know the visitor); nothing else.
    expect(problems.filter((p) => !/status of 401/.test(p))).toEqual([]);
  });

  it('delivers events fired right before the tab closes (beacon), once', async () => {
    const utk = await newVisitor();
    await page.evaluate(() => window._svcq!.push(['trackEvent', { id: 'last-words' }]));
    await page.close({ runBeforeUnload: true });
    const events = await waitFor(utk, (e) => e.n == 'last-words', 1);
    expect(events).toHaveLength(1);
  });

  it('keeps events while the collector is unreachable and delivers them once after it returns', async () => {
    const utk = await newVisitor();
    await page.route('**/svc/e', (route) => route.abort('connectionrefused'));
    await page.evaluate(() => {
      for (let i = 0; i < 10; i++) window._svcq!.push(['trackEvent', { id: 'offline-' + i }]);
    });
    await expect
      .poll(() => page.evaluate(() => JSON.parse(localStorage.svc_retry || '[]').length), { timeout: 15_000 })
      .toBeGreaterThanOrEqual(10);
    await page.unroute('**/svc/e');
    await page.reload();
    const events = await waitFor(utk, (e) => /^offline-/.test(e.n ?? ''), 10);
    expect(events.map((e) => e.n).sort()).toEqual(Array.from({ length: 10 }, (_, i) => 'offline-' + i).sort());
    await expect.poll(() => page.evaluate(() => localStorage.svc_retry)).toBe('[]');
    expect(sys.received(utk).filter((e) => /^offline-/.test(e.n ?? ''))).toHaveLength(10);
    // Chromium logs the refused requests themselves as console errors; nothing else may appear.
    expect(problems.filter((p) => !/ERR_CONNECTION_REFUSED|Failed to load resource/.test(p))).toEqual([]);
  });

  it('shows it all in the platform inspector', async () => {
    await page.goto(sys.inspectorUrl);
    await page.getByText('Ada Lovelace').first().click();
    await page.getByText('form submission').first().waitFor();
    // The custom event shows its properties under it.
    const buy = page.locator('.timeline li').filter({ hasText: 'buy-clicked' });
    await expect.poll(() => buy.locator('dl.props').textContent()).toBe('planpro');
    await page.locator('#feed li').first().waitFor();
    await page.screenshot({ path: `${SHOTS}/inspector.png` });
    expect(problems).toEqual([]);
  });
});
