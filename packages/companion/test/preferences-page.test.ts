/** The ready-made preference centre in real Chromium (Debian's `chromium`, driven by
 * playwright-core; CI installs it): opened from a signed link, under the companion's own CSP,
 * a change saved and an unsubscribe from all recorded on the real platform, no console errors.
 * Without the browser it is skipped locally and fails under CI=true, like the end-to-end tests.
 * Through both doors. */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveChromium, launchChromium } from '../../../test/browser/chromium';
import { seedEmailDefaults } from '../../platform/src/store/email-seed';
import { forEachDoor, mountOn, startTestPlatform, type Mounted, type TestPlatform } from './harness';

// Skipped as a whole without the browser (test/browser-skip.test.ts checks every browser test so).
describe.skipIf(!haveChromium)('the preference centre in Chromium', () => {
  forEachDoor((door) => {
    let t: TestPlatform;
    let m: Mounted;
    let browser: Browser;

    beforeAll(async () => {
      if (!haveChromium) return;
      t = await startTestPlatform();
      await seedEmailDefaults(t.platform.services.engine, t.portals[0].portalId, t.clock.now);
      m = await mountOn(t, { subscriptions: { linkSecret: 'link-signing-key-of-the-site-0123456789' } }, { door });
      browser = await launchChromium();
    }, 30_000);
    afterAll(async () => {
      await browser?.close();
      await m?.close();
      await t?.close();
    });

    const status = async (email: string) =>
      (await t.call('GET', `/email/public/v1/subscriptions/${encodeURIComponent(email)}`)).json;

    describe.skipIf(!haveChromium)('the preference page', () => {
      it('shows the types, saves a change and unsubscribes from all', async () => {
        const linked = await mountOn(
          t,
          { publicUrl: 'http://placeholder', subscriptions: { linkSecret: 'link-signing-key-of-the-site-0123456789' } },
          { door },
        );
        const token = new URL(linked.companion.links.preferences('page@example.com')).searchParams.get('token')!;
        await linked.close();
        const page = await browser.newPage();
        const problems: string[] = [];
        page.on('console', (msg) => msg.type() == 'error' && problems.push(msg.text()));
        page.on('pageerror', (e) => problems.push(String(e)));
        try {
          await page.goto(`${m.url}/preferences?token=${token}`);
          const boxes = page.locator('input[type=checkbox]');
          await boxes.first().waitFor({ timeout: 10_000 });
          expect(await page.textContent('.svc-who')).toBe('Preferences for p•••@example.com');
          expect(await boxes.count()).toBeGreaterThan(1);
          const firstId = Number(await boxes.first().getAttribute('value'));

          await boxes.first().uncheck();
          await page.click('.svc-submit');
          await expect
            .poll(() => page.textContent('.svc-status'), { timeout: 10_000 })
            .toBe('Your preferences are saved.');
          expect((await status('page@example.com')).subscriptionStatuses).toContainEqual(
            expect.objectContaining({ id: firstId, subscribed: false }),
          );

          page.once('dialog', (d) => void d.accept());
          await page.click('.svc-unsubscribe-all');
          await expect
            .poll(() => page.textContent('.svc-status'), { timeout: 10_000 })
            .toBe('You are unsubscribed from all emails.');
          expect((await status('page@example.com')).unsubscribeFromPortal).toBe(true);
          expect(await boxes.first().isDisabled()).toBe(true);
          expect(problems).toEqual([]);
        } finally {
          await page.close();
        }
      });

      it('says so when the link is not valid', async () => {
        const page = await browser.newPage();
        try {
          await page.goto(`${m.url}/preferences?token=forged.token`);
          await expect
            .poll(() => page.textContent('.svc-status'), { timeout: 10_000 })
            .toBe('this preference link is not valid');
          expect(await page.locator('form.svc-form').isHidden()).toBe(true);
        } finally {
          await page.close();
        }
      });
      it('tells a visitor the site does not know what to do, with a way there and a way back', async () => {
        const site = await mountOn(
          t,
          { subscriptions: { linkSecret: 'link-signing-key-of-the-site-0123456789', signUpUrl: '/contact' } },
          { door },
        );
        const page = await browser.newPage();
        const problems: string[] = [];
        page.on('pageerror', (e) => problems.push(String(e)));
        try {
          await page.goto(`${site.url}/preferences`);
          const unknown = page.locator('.svc-unknown');
          await unknown.waitFor({ state: 'visible', timeout: 10_000 });
          expect(await unknown.textContent()).toMatch(
            /does not know who you are yet.*link at the bottom of one of our emails, or tell us who you are first and come back\./s,
          );
          expect(await page.getAttribute('.svc-sign-up', 'href')).toBe('/contact');
          expect(await page.getAttribute('.svc-back a', 'href')).toBe('/');
          expect(await page.isVisible('.svc-form')).toBe(false);
          expect(await page.textContent('.svc-status')).toBe('');
          // A link that has expired or was changed is still told as such, not as an unknown visitor.
          await page.goto(`${site.url}/preferences?token=abc`);
          await expect
            .poll(() => page.textContent('.svc-status'), { timeout: 10_000 })
            .toBe('this preference link is not valid');
          expect(await page.isVisible('.svc-unknown')).toBe(false);
          expect(problems).toEqual([]);
        } finally {
          await page.close();
          await site.close();
        }
      });
    });
  });
});
