import { afterEach, describe, expect, it } from 'vitest';
import { openPage, type Page } from './harness';

let page: Page;
afterEach(() => page?.close());

/** Everything a hostile or broken environment can do to the tracker; none of it may reach the page. */
describe('nothing escapes to the host page', () => {
  it('survives garbage commands, broken storage, throwing fetch and throwing beacons', async () => {
    page = openPage({
      before: `
        Object.defineProperty(window, 'localStorage', { get() { throw new Error('SecurityError'); } });
        window.fetch = () => { throw new TypeError('fetch exploded'); };
        navigator.sendBeacon = () => { throw new Error('beacon exploded'); };
        window._svcq = [undefined, 'trackEvent', {}, [], [null], ['trackEvent', { id: { toString: null } }],
                        ['identify', 'not an object'], ['setPath', 42], ['doNotTrack', { track: true }]];`,
    });
    page.push(null, ['trackEvent'], ['addPrivacyConsentListener', 'not a function'], ['setConsent', true]);
    page.push(
      ['trackEvent', { id: 'x' }],
      [
        'addPrivacyConsentListener',
        () => {
          throw new Error('site bug');
        },
      ],
    );
    await page.tick(10_000);
    page.push(['trackEvent', { id: 'y' }]);
    page.hide();
    page.pagehide();
    page.setOnline(false);
    page.setOnline(true);
    page.window.history.pushState({}, '', '/still-fine');
    await page.tick(120_000);
    expect(page.errors).toEqual([]);
    expect(page.window.location.pathname).toBe('/still-fine');
  });

  it('survives a collector that answers garbage and a missing crypto', async () => {
    page = openPage({
      before: `Object.defineProperty(window, 'crypto', { value: undefined });`,
      collector: () => ({ status: 503, headers: { 'Retry-After': 'soon-ish' } }),
    });
    page.push(['trackEvent', { id: 'x' }]);
    // No page view could be made: navigations and new titles still run as usual.
    page.window.history.pushState({}, '', '/next');
    page.window.document.title = 'Next';
    await page.tick(60_000);
    expect(page.errors).toEqual([]);
    expect(page.window.location.pathname).toBe('/next');
  });

  it('starts without a portal id or collector attribute without throwing', async () => {
    page = openPage({ attrs: { 'portal-id': '', collector: '' } });
    await page.tick(10_000);
    expect(page.errors).toEqual([]);
  });
});
