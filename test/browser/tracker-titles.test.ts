/** Page-view titles in real Chromium whatever order the app and the tracker listen to popstate in
 * (issue 38). On window, Chromium runs popstate listeners in the order they were added, capture or
 * not: an app that adds its own before the tracker loads retitles the page before the tracker hears
 * of the navigation. The built dist/tracker.js on a page served by request interception
 * (./tracker-page.ts). */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveChromium, launchChromium } from './chromium';
import { openTrackedPage, SITE, trackerTag } from './tracker-page';

let browser: Browser;

beforeAll(async () => {
  if (haveChromium) browser = await launchChromium();
}, 30_000);
afterAll(() => browser?.close());

const TITLES: Record<string, string> = { '/': 'Acme Widgets', '/pricing': 'Pricing · Acme Widgets' };

/** The demo's router: Home and Pricing are sections of one page, titled when shown; it navigates,
 * then renders, and renders again in its own popstate listener. */
const ROUTER = `<script>
  const TITLES = ${JSON.stringify(TITLES)};
  const render = () => (document.title = TITLES[location.pathname]);
  window.go = (path) => (history.pushState(null, '', path), render());
  addEventListener('popstate', render);
  render();
</script>`;

/** One visit: `/`, then Pricing, back, forward, back. Resolves to each page view's path, title and
 * URL, and where the app's listener ran (first or not). */
async function visit(appFirst: boolean) {
  const context = await browser.newContext();
  const body =
    `<!doctype html><meta charset="utf-8"><title>Loading…</title>` +
    (appFirst ? ROUTER + trackerTag() : trackerTag() + ROUTER);
  const { page, events } = await openTrackedPage(context, '/', body);
  await page.evaluate(() => (window as unknown as { go: (path: string) => void }).go('/pricing'));
  await page.goBack();
  await page.goForward();
  await page.goBack();
  await expect.poll(() => events.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(5);
  await page.waitForTimeout(200); // nothing more comes
  await context.close();
  return events.map((e) => [e.po, e.t, e.pu]);
}

const expected = ['/', '/pricing', '/', '/pricing', '/'].map((path) => [path, TITLES[path], SITE + path]);

// Concurrent: most of a visit is waiting for its batch (5 s).
describe.skipIf(!haveChromium).concurrent('tracker page-view titles in Chromium', () => {
  it('the app’s popstate listener added before the tracker loads: every view has its own URL’s title, 7 visits out of 7', async () => {
    const visits = await Promise.all(Array.from({ length: 7 }, () => visit(true)));
    for (const views of visits) expect(views).toEqual(expected);
  }, 60_000);

  it('the app’s listener added after the tracker: the same', async () => {
    expect(await visit(false)).toEqual(expected);
  }, 30_000);
});
