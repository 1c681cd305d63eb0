/** The built tracker on a page of a made-up site, served by request interception (no server):
 * the tracker's batches are caught the same way, so a test reads exactly what left the browser. */
import { readFileSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';

const TRACKER = readFileSync(new URL('../../packages/tracker/dist/tracker.js', import.meta.url), 'utf8');
export const SITE = 'https://site.test';

/** Opens `path` in `context` on a page whose HTML is `body` (it loads the tracker from
 * `/tracker.js`, collector `/c`); `events` fills with every event the tracker sends, and `sends`
 * counts every request to the collector (batches, beacons and pixels alike). */
export async function openTrackedPage(context: BrowserContext, path: string, body: string) {
  const page: Page = await context.newPage();
  const events: Record<string, string>[] = [];
  const sent = { requests: 0 };
  await page.route(`${SITE}/**`, async (route) => {
    const url = new URL(route.request().url());
    if (url.pathname == '/tracker.js') return route.fulfill({ contentType: 'text/javascript', body: TRACKER });
    if (url.pathname.startsWith('/c/')) {
      sent.requests++;
      if (url.pathname == '/c/e') events.push(...JSON.parse(route.request().postData() || '[]'));
      else events.push(Object.fromEntries(url.searchParams));
      return route.fulfill({ status: 204, headers: { 'Access-Control-Allow-Origin': '*' } });
    }
    return route.fulfill({ contentType: 'text/html', body });
  });
  await page.goto(SITE + path);
  return { page, events, sent };
}

/** The tracker's script tag with these `data-*` attributes (portal 62515, collector `/c`). */
export const trackerTag = (attributes = '') =>
  `<script src="/tracker.js" data-portal-id="62515" data-collector="/c" ${attributes}></script>`;
