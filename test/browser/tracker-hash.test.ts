/** The tracker's hash routing and send-time titles in real Chromium: the built dist/tracker.js on
 * a page served by request interception (./tracker-page.ts). */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveChromium, launchChromium } from './chromium';
import { openTrackedPage, SITE, trackerTag } from './tracker-page';

let browser: Browser;

beforeAll(async () => {
  if (haveChromium) browser = await launchChromium();
}, 30_000);
afterAll(() => browser?.close());

/** A page with the tracker tag (`spa` its data-spa, if any) and an app that titles each route
 * after the route changed; resolves to the page and the events the collector received. */
async function open(path: string, spa?: string) {
  const context = await browser.newContext();
  return openTrackedPage(
    context,
    path,
    `<!doctype html><title>Loading…</title>
      <a id="pricing" href="#/pricing">Pricing</a> <a id="anchor" href="#section">Section</a>
      ${trackerTag(spa ? `data-spa="${spa}"` : '')}
      <script>
        const title = () => (document.title = 'Route ' + (location.hash || 'home'));
        addEventListener('hashchange', title);
        setTimeout(title, 50); // the app titles the first route a little after loading
      </script>`,
  );
}

describe.skipIf(!haveChromium)('tracker in Chromium', () => {
  it('hash routing: link clicks, location.hash and back are page views with the fragment and the title the app sets', async () => {
    const { page, events } = await open('/app#/home', 'hash');
    await page.waitForTimeout(200);
    await page.click('#pricing');
    await page.evaluate(() => (location.hash = '#/about'));
    await page.goBack();
    await page.evaluate(() => (location.hash = '#/about')); // forward again, a new view
    await expect.poll(() => events.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(5);
    expect(events.map((e) => [e.po, e.t])).toEqual([
      ['/app#/home', 'Route #/home'],
      ['/app#/pricing', 'Route #/pricing'],
      ['/app#/about', 'Route #/about'],
      ['/app#/pricing', 'Route #/pricing'],
      ['/app#/about', 'Route #/about'],
    ]);
    expect(events[1]).toMatchObject({ rpo: '/app#/home', r: `${SITE}/app#/home`, pu: `${SITE}/app#/pricing` });
    await page.context().close();
  });

  it('without hash routing, in-page anchors and fragment changes are not page views', async () => {
    const { page, events } = await open('/docs');
    await page.click('#anchor');
    await page.click('#pricing');
    await page.evaluate(() => history.pushState({}, '', '/docs/next'));
    await expect.poll(() => events.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
    await page.waitForTimeout(500);
    expect(events.map((e) => e.po)).toEqual(['/docs', '/docs/next']);
    await page.context().close();
  });
});
