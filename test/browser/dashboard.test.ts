/** The inspector's dashboard in real Chromium: two visitors walk the demo site (one from a
 * campaign link, who buys and fills in the contact form; one from a search engine), then the
 * dashboard page shows their traffic. The numbers on screen equal the API's, the chart is drawn
 * by the locally served uPlot under the inspector's strict CSP (no console errors), and the
 * range picker and the contact page (source, readable dates) work. Screenshots in test-results/. */
import { copyFileSync, statSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { DEMO_PORTAL } from '@svc/platform';
import { haveChromium } from './chromium';
import { SHOTS, useSystem, watchPage } from './session';
import { INSPECTOR_KEY, type System } from './system';

/** The platform README's screenshot: replaced by this test's when UPDATE_README_SCREENSHOTS is
 * set (and it is small), so that an ordinary test run leaves the repository as it was. */
const README_SHOT = 'packages/platform/docs/dashboard.png';
let sys: System;
let browser: Browser;
const problems: string[] = [];

useSystem((s, b) => ((sys = s), (browser = b)));

const newPage = async (context: BrowserContext) => watchPage(await context.newPage(), problems);

/** The dashboard API's answer for a panel, with the inspector key. */
async function panel(name: string, range = 'today') {
  const res = await fetch(`${sys.baseUrl}/_inspector/api/dashboard/${name}?portal=${DEMO_PORTAL}&range=${range}`, {
    headers: { authorization: `Bearer ${INSPECTOR_KEY}` },
  });
  expect(res.status).toBe(200);
  return res.json();
}

/** The raw numbers of a table's numeric column `col` (0-based among the numeric cells of a row). */
const column = (page: Page, table: string, col: number) =>
  page.$$eval(
    `#${table} tbody tr`,
    (rows, i) => rows.map((r) => r.querySelectorAll('td.n')[i]?.getAttribute('data-value') ?? null),
    col,
  );
const firstCells = (page: Page, table: string) =>
  page.$$eval(`#${table} tbody tr`, (rows) => rows.map((r) => r.querySelector('td')?.textContent ?? ''));

describe.skipIf(!haveChromium)('the dashboard in Chromium', () => {
  it("shows the demo's traffic after a walk through the site: numbers equal the API's", async () => {
    // A visitor from a campaign: three pages, the buy button, the contact form.
    const ada = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await newPage(ada);
    await page.goto(`${sys.siteUrl}/?utm_source=newsletter&utm_medium=email&utm_campaign=autumn-launch`);
    await page.click('nav a[data-route="/pricing"]');
    await page.click('#buy');
    await expect
      .poll(() => page.textContent('#buy-status'), { timeout: 15_000 })
      .toBe('Thank you! Your purchase is recorded.');
    await page.click('nav >> text=Contact');
    await page.locator('#contact-form input[name=email]').fill('ada@acme.test');
    await page.locator('#contact-form input[name=firstname]').fill('Ada');
    await page.locator('#contact-form input[name=lastname]').fill('Lovelace');
    await page.locator('#contact-form input[name=svc-consent]').check();
    await page.waitForTimeout(1600);
    await page.locator('#contact-form button[type=submit], #contact-form input[type=submit]').click();
    await expect
      .poll(() => page.textContent('#contact-form'), { timeout: 15_000 })
      .toContain('Thanks! We will be in touch.');
    await page.goto(`${sys.siteUrl}/`);
    await page.close(); // leaving flushes what its tracker holds
    // A second visitor, from a search engine (the referrer the browser sends with the navigation).
    const bob = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const other = await newPage(bob);
    await other.goto(`${sys.siteUrl}/`, { referer: 'https://www.google.com/' });
    await other.click('nav a[data-route="/pricing"]');
    await other.close(); // leaving the page flushes what the tracker holds

    // Everything arrived: two visitors, at least five page views, the buy event, the submission.
    await expect
      .poll(async () => (await panel('traffic')).totals, { timeout: 15_000 })
      .toMatchObject({ visitors: 2, sessions: 2 });
    await expect.poll(async () => (await panel('traffic')).totals.views, { timeout: 15_000 }).toBeGreaterThanOrEqual(5);
    await expect.poll(async () => (await panel('conversions')).submissions, { timeout: 15_000 }).toBe(1);
    // The server-side purchase leaves the companion's outbox within a second or so.
    await expect
      .poll(async () => (await panel('events')).events.map((e: { name: string }) => e.name).sort(), { timeout: 15_000 })
      .toEqual(['buy-clicked', 'purchase-completed']);

    // Page views still on their way (the tracker flushes on leaving, and retries a send that a
    // navigation cut off) settle before the compare: the count stays the same for three seconds.
    const seen: number[] = [];
    await expect
      .poll(
        async () => (
          seen.push((await panel('traffic')).totals.views),
          seen.length > 3 && seen.slice(-4).every((v) => v == seen.at(-1))
        ),
        { timeout: 20_000, interval: 1_000 },
      )
      .toBe(true);

    const dash = await newPage(ada);
    await dash.goto(`${sys.baseUrl}/_inspector/dashboard.html?range=today#key=${INSPECTOR_KEY}`);
    await dash.waitForSelector('#chart canvas');
    await expect.poll(() => dash.getAttribute('#kpi-views', 'data-value')).not.toBeNull();
    const [traffic, pages, sources, campaigns, conversions, events, live] = await Promise.all(
      ['traffic', 'pages', 'sources', 'campaigns', 'conversions', 'events', 'live'].map((p) => panel(p)),
    );
    const kpi = (id: string) => dash.getAttribute(`#kpi-${id}`, 'data-value').then(Number);
    expect({ visitors: await kpi('visitors'), sessions: await kpi('sessions'), views: await kpi('views') }).toEqual(
      traffic.totals,
    );
    expect(await kpi('contacts')).toBe(conversions.contacts);
    expect(await kpi('submissions')).toBe(conversions.submissions);
    expect(await kpi('live')).toBe(live.visitors);
    expect(live.visitors).toBe(2);
    // The shown figure is the number, formatted.
    expect((await dash.textContent('#kpi-views'))!.replace(/\D/g, '')).toBe(String(traffic.totals.views));

    expect(await firstCells(dash, 'pages')).toEqual(pages.pages.map((p: { url: string }) => p.url));
    expect(await column(dash, 'pages', 0)).toEqual(pages.pages.map((p: { views: number }) => String(p.views)));
    expect(await column(dash, 'sources', 0)).toEqual(
      sources.types.map((s: { sessions: number }) => String(s.sessions)),
    );
    expect(await column(dash, 'sources', 1)).toEqual(
      sources.types.map((s: { contacts: number }) => String(s.contacts)),
    );
    expect(sources.types.map((s: { source: string }) => s.source).sort()).toEqual([
      'EMAIL_MARKETING',
      'ORGANIC_SEARCH',
    ]);
    expect(await firstCells(dash, 'campaigns')).toEqual(['autumn-launch']);
    expect(campaigns.campaigns).toEqual([{ campaign: 'autumn-launch', source: 'EMAIL_MARKETING', sessions: 1 }]);
    expect(await firstCells(dash, 'forms')).toEqual(['Contact us']);
    expect(await column(dash, 'events', 0)).toEqual(events.events.map((e: { count: number }) => String(e.count)));
    expect(await column(dash, 'events', 1)).toEqual(events.events.map((e: { revenue: number }) => String(e.revenue)));
    // One purchase, its revenue once: on the server's event, not on the click.
    expect(events.events.find((e: { name: string }) => e.name == 'buy-clicked')).toMatchObject({
      count: 1,
      revenue: 0,
    });
    expect(events.events.find((e: { name: string }) => e.name == 'purchase-completed')).toMatchObject({
      count: 1,
      revenue: 49,
    });
    expect(await dash.$$eval('#live tbody tr', (rows) => rows.length)).toBe(2);
    await dash.screenshot({ path: `${SHOTS}/dashboard.png`, fullPage: true });
    if (process.env.UPDATE_README_SCREENSHOTS && statSync(`${SHOTS}/dashboard.png`).size < 400_000)
      copyFileSync(`${SHOTS}/dashboard.png`, README_SHOT);

    // The range picker: 7 days by the day, the same totals (all of it happened today).
    await dash.click('#ranges button[data-range="7d"]');
    await expect.poll(() => dash.getAttribute('#ranges button[data-range="7d"]', 'aria-pressed')).toBe('true');
    const week = await panel('traffic', '7d');
    await expect.poll(() => kpi('views')).toBe(week.totals.views);
    expect(week.buckets).toHaveLength(7);

    // The contact page: where Ada came from, dates that read as dates.
    const inspector = await newPage(ada);
    await inspector.goto(`${sys.baseUrl}/_inspector/#key=${INSPECTOR_KEY}`);
    await inspector.getByText('Ada Lovelace').first().click();
    await inspector.waitForSelector('#contact .source');
    const source = await inspector.textContent('#contact .source');
    expect(source).toContain('Email marketing · autumn-launch');
    expect(
      await inspector.$$eval('#contact time.when', (ts) =>
        ts.every((t) => getComputedStyle(t).whiteSpace == 'nowrap' && !/^\d+$/.test(t.textContent ?? '')),
      ),
    ).toBe(true);
    await inspector.screenshot({ path: `${SHOTS}/inspector-contact.png`, fullPage: true });

    expect(problems).toEqual([]);
    await ada.close();
    await bob.close();
  }, 90_000);
});
