/** The browser's privacy signals in real Chromium: the built tracker in opt-in mode, on a page
 * whose cookie banner says yes at once, sends nothing and stores nothing when the browser sends
 * Do-Not-Track (Chromium's own setting, in a profile) or Global Privacy Control. Chromium has no
 * GPC of its own (Firefox and Brave have), so that signal is exposed the way those browsers do
 * it, `navigator.globalPrivacyControl === true`, by an init script. The same pages without the
 * signal, or with the option off, do send: the test would see a send. */
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveChromium, launchChromium, launchChromiumWithDoNotTrack } from './chromium';
import { openTrackedPage, trackerTag } from './tracker-page';

let browser: Browser;

beforeAll(async () => {
  if (haveChromium) browser = await launchChromium();
}, 30_000);
afterAll(() => browser?.close());

/** A page with the tracker (these attributes) and a banner that consents, a custom event, and a
 * consent listener that writes what it was told into the page. */
const page = (attributes: string) => `<!doctype html><title>Shop</title><p id="consent">unknown</p>
  ${trackerTag(attributes)}
  <script>
    _svcq.push(['addPrivacyConsentListener', (c) => (document.getElementById('consent').textContent = 'allowed ' + c.allowed)]);
    _svcq.push(['setConsent', true]);
    _svcq.push(['trackEvent', { id: 'signup', plan: 'pro' }]);
  </script>`;

/** The tracker sends a batch 5 s after its first event at the latest: this is longer. */
const BATCH_DUE_MS = 6000;

/** A visit of one page, long enough for its batch to be due: what the collector received, the
 * consent the page was told, and what was stored. */
async function visit(context: BrowserContext, attributes: string) {
  const { page: tab, events, sent } = await openTrackedPage(context, '/', page(attributes));
  await tab.waitForTimeout(BATCH_DUE_MS);
  const consent = await tab.locator('#consent').textContent();
  const storage = await tab.evaluate(() => Object.keys(localStorage));
  return { events, sent, consent, storage, cookies: (await context.cookies()).map((c) => c.name), tab };
}

/** Global Privacy Control as Firefox and Brave expose it. */
const withGpc = (context: BrowserContext) =>
  context.addInitScript(() =>
    Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', { get: () => true, configurable: true }),
  );

// Concurrent: each test has a browser context of its own, and most of a test is waiting for a
// batch that must not come (BATCH_DUE_MS).
describe.skipIf(!haveChromium).concurrent('tracker privacy signals in Chromium', () => {
  it('without a signal, the opt-in page sends its page view and the event once the banner consents (the control)', async () => {
    const context = await browser.newContext();
    const { events, consent, cookies } = await visit(context, 'data-consent="opt-in"');
    expect(consent).toBe('allowed true');
    expect(events.map((e) => e.n ?? e.po)).toEqual(['/', 'signup']);
    expect(events[1]).toMatchObject({ k: '3', _plan: 'pro' });
    expect(cookies).toContain('svcutk');
    await context.close();
  }, 30_000);

  it('Global Privacy Control in opt-in mode: nothing sent, no cookie, no storage, the consent listener told "declined"', async () => {
    const context = await browser.newContext();
    await withGpc(context);
    const { sent, consent, storage, cookies, tab } = await visit(context, 'data-consent="opt-in"');
    expect(await tab.evaluate(() => (navigator as { globalPrivacyControl?: boolean }).globalPrivacyControl)).toBe(true);
    expect(sent.requests).toBe(0);
    expect(consent).toBe('allowed false');
    expect(storage).toEqual([]);
    expect(cookies).toEqual([]);
    await context.close();
  }, 30_000);

  it('Global Privacy Control with data-respect-privacy-signals="false": sent as without the signal', async () => {
    const context = await browser.newContext();
    await withGpc(context);
    const { events, consent } = await visit(context, 'data-consent="opt-in" data-respect-privacy-signals="false"');
    expect(events.map((e) => e.n ?? e.po)).toEqual(['/', 'signup']);
    expect(consent).toBe('allowed true');
    await context.close();
  }, 30_000);

  it("Chromium's Do-Not-Track setting: declined in opt-in mode; in the default mode only when the option asks", async () => {
    const context = await launchChromiumWithDoNotTrack();
    try {
      // Side by side: neither stores a cookie (the plain visit after them does).
      const [optIn, asked] = await Promise.all([
        visit(context, 'data-consent="opt-in"'),
        visit(context, 'data-respect-privacy-signals="true"'),
      ]);
      expect(await optIn.tab.evaluate(() => navigator.doNotTrack)).toBe('1');
      expect(optIn.sent.requests).toBe(0);
      expect(optIn.consent).toBe('allowed false');
      expect(optIn.cookies).toEqual([]);
      expect(asked.sent.requests).toBe(0);
      expect(asked.cookies).toEqual([]);
      await Promise.all([optIn.tab.close(), asked.tab.close()]);

      // The default mode (no banner) leaves the signals to the site, as documented.
      const plain = await visit(context, '');
      expect(plain.events.map((e) => e.n ?? e.po)).toEqual(['/', 'signup']);
    } finally {
      await context.close();
    }
  }, 60_000);
});
