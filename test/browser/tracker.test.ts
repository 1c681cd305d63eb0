/** The tracker in real Chromium on the demo site (strict CSP), against the demo's collector. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
// @ts-expect-error plain ESM script without types
import { createDemoServer } from '../../demo/server.mjs';
import { haveChromium, launchChromium } from './chromium';

type WireEvent = Record<string, string>;

let server: Server;
let base: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: string[];

beforeAll(async () => {
  if (!haveChromium) return;
  vi.spyOn(console, 'log').mockImplementation(() => {});
  server = createDemoServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

beforeEach(async () => {
  if (!haveChromium) return;
  await context?.close();
  context = await browser.newContext();
  page = await context.newPage();
  problems = [];
  // CSP violations and uncaught errors show up here.
  page.on('console', (m) => m.type() == 'error' && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(String(e)));
});

const received = async (): Promise<WireEvent[]> => (await fetch(`${base}/collect/recent`)).json();
/** Waits until the collector has the events of this visitor that `match` selects. */
async function waitFor(utk: string, match: (e: WireEvent) => boolean, count: number) {
  let found: WireEvent[] = [];
  await expect
    .poll(async () => (found = (await received()).filter((e) => e.vi == utk && match(e))).length, { timeout: 15_000 })
    .toBeGreaterThanOrEqual(count);
  return found;
}
const utkOf = async () => (await context.cookies()).find((c) => c.name == 'svcutk')?.value ?? '';

describe.skipIf(!haveChromium)('tracker in Chromium', () => {
  it('identifies the visitor, tracks SPA navigations and delivers events on page exit by beacon', async () => {
    await page.goto(`${base}/`);
    await expect.poll(utkOf).toMatch(/^[0-9a-f]{32}$/);
    const utk = await utkOf();
    const cookie = (await context.cookies()).find((c) => c.name == 'svcutk')!;
    expect(cookie).toMatchObject({ sameSite: 'Lax', path: '/' });

    await page.click('nav a[data-route="/pricing"]');
    await page.click('text=Buy');
    // Leave at once: the SPA view and the event are still in the 5-second buffer.
    await page.goto(`${base}/about.html`);

    const views = await waitFor(utk, (e) => e.k == '1', 3);
    expect(views.map((e) => e.po)).toEqual(['/', '/pricing', '/about.html']);
    expect(views[0]).toMatchObject({ ct: 'landing-page', nc: '1' });
    expect(views[1]).toMatchObject({ rpo: '/', r: `${base}/` });
    const [buy] = await waitFor(utk, (e) => e.k == '3', 1);
    expect(buy).toMatchObject({ n: 'buy-clicked', m: '49', _plan: 'pro' });
    const all = (await received()).filter((e) => e.vi == utk);
    expect(new Set(all.map((e) => e.eid)).size).toBe(all.length);
    expect(problems).toEqual([]);
  });

  it('keeps events while the collector is unreachable and delivers them once after it returns', async () => {
    await page.goto(`${base}/`);
    await expect.poll(utkOf).toMatch(/^[0-9a-f]{32}$/);
    const utk = await utkOf();
    await page.route('**/collect/e', (route) => route.abort('connectionrefused'));
    await page.evaluate(() => {
      for (let i = 0; i < 10; i++) window._svcq!.push(['trackEvent', { id: 'offline-' + i }]);
    });
    await expect
      .poll(() => page.evaluate(() => JSON.parse(localStorage.svc_retry || '[]').length))
      .toBeGreaterThanOrEqual(10);
    await page.unroute('**/collect/e');
    await page.reload();
    const events = await waitFor(utk, (e) => /^offline-/.test(e.n), 10);
    expect(events.map((e) => e.n).sort()).toEqual(Array.from({ length: 10 }, (_, i) => 'offline-' + i).sort());
    await expect.poll(() => page.evaluate(() => localStorage.svc_retry)).toBe('[]');
    // Chromium logs the refused requests themselves as console errors; nothing else may appear.
    expect(problems.filter((p) => !/ERR_CONNECTION_REFUSED|Failed to load resource/.test(p))).toEqual([]);
  });
});
