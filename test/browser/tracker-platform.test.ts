/** The tracker README's script tag as written (its "Script tag" example, the platform's address put
 * in), on a page of another origin in real Chromium: the platform serves the tracker with the
 * portal and its collector set, and the visit arrives at the platform's collector. */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteOf, startPlatform, type TestPlatform } from '../../packages/platform/test/harness';
import { haveChromium, launchChromium } from './chromium';

const README = readFileSync(new URL('../../packages/tracker/README.md', import.meta.url), 'utf8');
/** The README's first html block under "### Script tag". */
const EXAMPLE = /### Script tag\s+```html\n([\s\S]*?)```/.exec(README)![1];

let t: TestPlatform;
let browser: Browser;
let site: Server;
let siteUrl: string;

beforeAll(async () => {
  if (!haveChromium) return;
  t = await startPlatform({ portals: [{ id: 62515 }] });
  const html = `<!doctype html><html><head><title>A site of its own</title>${EXAMPLE.replaceAll('https://platform.example.com', t.baseUrl)}</head><body><h1>Hello</h1></body></html>`;
  site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html)).listen(
    0,
    'localhost',
  );
  await new Promise((resolve) => site.once('listening', resolve));
  siteUrl = `http://localhost:${(site.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 30_000);
afterAll(async () => {
  await browser?.close();
  site?.close();
  await t?.close();
});

describe.skipIf(!haveChromium)("the tracker README's script tag", () => {
  it('loads the tracker from the platform and records the page view at its collector', async () => {
    expect(EXAMPLE).toContain('<script async src="https://platform.example.com/js/62515.js"></script>');
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(String(e)));
    page.on('console', (m) => m.type() == 'error' && problems.push(m.text()));
    await page.goto(`${siteUrl}/welcome`);
    await expect
      .poll(async () => (await context.cookies()).find((c) => c.name == 'svcutk')?.value ?? '')
      .toMatch(/^[0-9a-f]{32}$/);
    const utk = (await context.cookies()).find((c) => c.name == 'svcutk')!.value;
    await page.close({ runBeforeUnload: true }); // leaving flushes the batch
    const db = sqliteOf(t);
    const rows = () =>
      db.prepare('SELECT portal_id, kind, title, data FROM tracking_events WHERE utk = ? ORDER BY seq').all(utk) as {
        portal_id: number;
        kind: number;
        title: string;
        data: string;
      }[];
    await expect.poll(() => rows().length, { timeout: 15_000 }).toBeGreaterThanOrEqual(1);
    const [view] = rows();
    expect(view.portal_id).toBe(62515);
    expect(view.title).toBe('A site of its own');
    expect(JSON.parse(view.data)).toMatchObject({ po: '/welcome' });
    await context.close();
    expect(problems).toEqual([]);
  });
});
