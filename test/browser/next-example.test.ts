/** examples/next, the Next.js App Router site of docs/own-site.md, built with `next build` and run
 * with `next start` against the real platform, in real Chromium: <SvcTracker> in the root layout
 * makes one page view per client-side navigation, <SvcForm> makes a contact, a server component
 * greets that visitor on the next request (getVisitor(cookies())), and the companion's preference
 * centre works through the route handler app/svc/[...path]/route.ts. */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveChromium, launchChromium } from './chromium';
import { startNextSite, type NextSite } from './next-site';
import { SHOTS, watchPage } from './session';

let site: NextSite;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const problems: string[] = [];

const utkOf = async () => (await context.cookies()).find((c) => c.name == 'svcutk')?.value ?? '';
/** The greeting as the server rendered it: the <h1> of the HTML answer, before any script ran. */
async function greetingOnRequest() {
  const res = await page.goto(`${site.siteUrl}/`);
  return /<h1 id="greeting">([^<]*)<\/h1>/.exec(await res!.text())?.[1];
}

describe.skipIf(!haveChromium)('examples/next in Chromium', () => {
  beforeAll(async () => {
    // `next build` takes most of this: about 40 s on two busy cores with a cold cache.
    site = await startNextSite();
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = watchPage(await context.newPage(), problems);
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  it('counts a page view per client-side navigation', async () => {
    await page.goto(`${site.siteUrl}/`);
    expect(await page.textContent('#greeting')).toBe('Welcome');
    await expect.poll(utkOf).toMatch(/^[0-9a-f]{32}$/);
    const utk = await utkOf();
    // next/link navigates in the page: what this document holds survives both clicks.
    await page.evaluate(() => ((window as unknown as { marker: string }).marker = 'same document'));
    await page.click('nav >> text=Pricing');
    await page.locator('h1', { hasText: 'Pricing' }).waitFor();
    await page.click('nav >> text=Contact');
    await page.locator('h1', { hasText: 'Contact us' }).waitFor();
    expect(await page.evaluate(() => (window as unknown as { marker?: string }).marker)).toBe('same document');

    await expect.poll(() => site.pageViews(utk).length, { timeout: 15_000 }).toBeGreaterThanOrEqual(3);
    expect(site.pageViews(utk)).toEqual([
      { path: '/', title: 'Acme Widgets' },
      { path: '/pricing', title: 'Pricing · Acme Widgets' },
      { path: '/contact', title: 'Contact · Acme Widgets' },
    ]);
    expect(problems).toEqual([]);
  });

  it('makes a contact from the form, whom the server greets on the next request', async () => {
    const utk = await utkOf();
    const form = page.locator('.contact-form form');
    await form.locator('input[name=email]').fill('ada@acme.test');
    await form.locator('input[name=firstname]').fill('Ada');
    await form.locator('input[name=lastname]').fill('Lovelace');
    await form.locator('input[name=svc-consent]').check();
    // A person takes a moment: faster than the form's minimum fill time is spam.
    await page.waitForTimeout(1600);
    await form.locator('button[type=submit], input[type=submit]').click();
    await expect
      .poll(() => page.textContent('.contact-form'), { timeout: 15_000 })
      .toContain('Thanks! We will be in touch.');
    await page.locator('#sent a').waitFor(); // onSubmitted, the client component's callback
    await page.screenshot({ path: `${SHOTS}/next-contact.png` });

    // The submission made the contact and linked this visitor's token to it.
    const profile = await site.api(`/contacts/v1/contact/utk/${utk}/profile`);
    expect(profile.status).toBe(200);
    expect(profile.json.properties).toMatchObject({ email: { value: 'ada@acme.test' }, firstname: { value: 'Ada' } });
    expect(profile.json['form-submissions']).toHaveLength(1);

    // The home page's server component knows them now, in the HTML itself (an unknown visitor is
    // remembered for 2 s, so the greeting may take one more request).
    await expect.poll(greetingOnRequest, { timeout: 15_000 }).toBe('Welcome back, Ada');
    expect(await page.textContent('#greeting')).toBe('Welcome back, Ada');
    await page.screenshot({ path: `${SHOTS}/next-home-known.png` });
    // Still one page view per page: the three navigations, then the home page's loads.
    expect(
      site
        .pageViews(utk)
        .slice(0, 3)
        .map((v) => v.path),
    ).toEqual(['/', '/pricing', '/contact']);
    expect(problems).toEqual([]);
  });

  it('serves the preference centre through the route handler, where a change is saved', async () => {
    await page.goto(`${site.siteUrl}/`);
    await page.click('nav >> text=Email preferences');
    expect(new URL(page.url()).pathname).toBe('/svc/preferences');
    const boxes = page.locator('input[type=checkbox]');
    await boxes.first().waitFor({ timeout: 15_000 });
    expect(await page.textContent('.svc-who')).toBe('Preferences for a•••@acme.test');
    const id = Number(await boxes.first().getAttribute('value'));
    await boxes.first().uncheck();
    await page.click('.svc-submit'); // PUT /svc/subscriptions, with the page's CSRF token
    await expect.poll(() => page.textContent('.svc-status'), { timeout: 15_000 }).toBe('Your preferences are saved.');
    await page.screenshot({ path: `${SHOTS}/next-preferences.png` });
    const status = await site.api('/email/public/v1/subscriptions/ada%40acme.test');
    expect(status.json.subscriptionStatuses).toContainEqual(expect.objectContaining({ id, subscribed: false }));
    expect(problems).toEqual([]);
  });
});
