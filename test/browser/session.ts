/** What the end-to-end browser tests share: the whole system and one Chromium per test file, a
 * fresh page per test, and the page's console errors and uncaught errors collected (CSP
 * violations show up there). Nothing starts when Chromium is missing: the files' suites are
 * skipped then (test/browser/chromium.ts). */
import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { haveChromium, launchChromium } from './chromium';
import { startSystem, type System } from './system';

/** Where the tests' screenshots go (git-ignored). */
export const SHOTS = 'test-results/screenshots';

/** Collects `page`'s console errors and uncaught errors into `problems`. */
export function watchPage(page: Page, problems: string[]) {
  page.on('console', (m) => m.type() == 'error' && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(String(e)));
  return page;
}

/** Starts the system and Chromium before the file's tests and stops them after; `ready` is given both. */
export function useSystem(ready: (sys: System, browser: Browser) => void) {
  let sys: System | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    if (!haveChromium) return;
    mkdirSync(SHOTS, { recursive: true });
    sys = await startSystem();
    browser = await launchChromium();
    ready(sys, browser);
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await sys?.close();
  });
}

/** Before each test, a new context of `browser()` (1280×800) with a page whose problems are
 * collected; `ready` is given them (the previous test's context is closed). */
export function usePage(
  browser: () => Browser,
  ready: (context: BrowserContext, page: Page, problems: string[]) => void,
) {
  let context: BrowserContext | undefined;
  beforeEach(async () => {
    if (!haveChromium) return;
    await context?.close();
    context = await browser().newContext({ viewport: { width: 1280, height: 800 } });
    const problems: string[] = [];
    ready(context, watchPage(await context.newPage(), problems), problems);
  });
}

/** Both of the above as one object, filled in before each test: `s.sys`, `s.browser`, and the
 * test's `s.context`, `s.page` and `s.problems`. */
export function useSession() {
  const s = {} as { sys: System; browser: Browser; context: BrowserContext; page: Page; problems: string[] };
  useSystem((sys, browser) => Object.assign(s, { sys, browser }));
  usePage(
    () => s.browser,
    (context, page, problems) => Object.assign(s, { context, page, problems }),
  );
  return s;
}
