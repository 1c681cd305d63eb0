import { afterEach, describe, expect, it } from 'vitest';
import { openPage, type Page } from './harness';

let page: Page;
afterEach(() => page?.close());

const identityCookies = (page: Page) =>
  page.jar.getCookiesSync(page.window.location.href).filter((c) => /^(svcutk|__svctc|__svcsc|__svcsrc)$/.test(c.key));

describe('consent modes', () => {
  it('opt-in: no cookie and no send before consent; waiting events are sent once it is given', async () => {
    page = openPage({ attrs: { consent: 'opt-in' } });
    page.push(['trackEvent', { id: 'before-consent' }]);
    await page.tick(60_000);
    expect(page.sent).toEqual([]);
    expect(page.window.document.cookie).toBe('');
    expect(page.storage()).toEqual({});

    page.push(['setConsent', true]);
    await page.tick(5000);
    const utk = page.cookie('svcutk')!.value;
    expect(page.events().map((e) => [e.k, e.vi])).toEqual([
      ['1', utk],
      ['3', utk],
    ]);
    expect(page.cookie('__svc_opt_out')!.value).toBe('no');

    // The decision is remembered: the next page tracks at once.
    const next = page.next();
    await next.tick(5000);
    expect(next.events()[0]).toMatchObject({ k: '1', vi: utk });
    next.close();
  });

  it('opt-in declined: events are sent without identifiers and no identity cookie is written', async () => {
    page = openPage({ attrs: { consent: 'opt-in' } });
    page.push(['setConsent', false]);
    await page.tick(5000);
    expect(page.events()).toHaveLength(1);
    expect(page.events()[0]).toMatchObject({ k: '1', ce: 'false' });
    expect(page.events()[0].vi).toBeUndefined();
    expect(identityCookies(page)).toEqual([]);
    expect(page.cookie('__svc_opt_out')!.value).toBe('yes');
  });

  it('declining after consent removes the identity cookies', async () => {
    page = openPage({ attrs: { consent: 'opt-in' }, before: `_svcq = [['setConsent', true]]` });
    expect(page.cookie('svcutk')).toBeDefined();
    page.push(['setConsent', false]);
    expect(identityCookies(page)).toEqual([]);
  });

  it('cookieless: never a cookie or local storage, events carry no identifiers', async () => {
    page = openPage({ attrs: { consent: 'cookieless' }, collector: () => 503 });
    page.push(['identify', { email: 'ada@example.com' }], ['trackEvent', { id: 'x' }], ['setConsent', true]);
    await page.tick(5000);
    expect(page.window.document.cookie).toBe('');
    expect(page.storage()).toEqual({});
    expect(page.events().every((e) => e.ce == 'false' && !e.vi && !e.u && !e.b)).toBe(true);
    // Failed sends are retried from memory instead.
    const first = page.sent.length;
    await page.tick(2000);
    expect(page.sent.length).toBeGreaterThan(first);
  });

  it('privacy consent listeners fire at once when decided, else on the decision', async () => {
    page = openPage({
      attrs: { consent: 'opt-in' },
      before: `window.seen = []; _svcq = [['addPrivacyConsentListener', (c) => seen.push(c)]];`,
    });
    const seen = (page.window as unknown as { seen: unknown[] }).seen;
    expect(seen).toEqual([]);
    page.push(['setConsent', true]);
    expect(seen).toEqual([{ allowed: true, categories: { analytics: true } }]);

    const none = openPage({
      before: `window.seen = []; _svcq = [['addPrivacyConsentListener', (c) => seen.push(c)]];`,
    });
    expect((none.window as unknown as { seen: unknown[] }).seen).toEqual([
      { allowed: true, categories: { analytics: true } },
    ]);
    none.close();
  });
});

describe('doNotTrack', () => {
  it('stops every send, across pages, until {track: true}', async () => {
    page = openPage({ before: `_svcq = [['doNotTrack']]` });
    page.push(['trackEvent', { id: 'x' }]);
    await page.tick(60_000);
    page.pagehide();
    expect(page.sent).toEqual([]);
    expect(page.cookie('__svc_do_not_track')!.value).toBe('yes');

    const next = page.next();
    next.push(['trackEvent', { id: 'y' }]);
    await next.tick(10_000);
    expect(next.sent).toEqual([]);

    next.push(['doNotTrack', { track: true }], ['trackEvent', { id: 'z' }]);
    await next.tick(5000);
    expect(next.events().map((e) => e.n)).toEqual(['z']);
    expect(next.cookie('__svc_do_not_track')).toBeUndefined();
    next.close();
  });

  it('drops what was buffered or stored for retry when switched on', async () => {
    page = openPage({ collector: () => 503 });
    await page.tick(5000);
    expect(page.storage().svc_retry).toContain('"k":"1"');
    page.push(['trackEvent', { id: 'buffered' }], ['doNotTrack']);
    const before = page.sent.length;
    await page.tick(120_000);
    expect(page.sent.length).toBe(before);
    expect(JSON.parse(page.storage().svc_retry)).toEqual([]);
  });
});

describe('revokeCookieConsent', () => {
  it('removes the identity cookies; the next visit is a fresh identity', async () => {
    page = openPage();
    const utk = page.cookie('svcutk')!.value;
    page.push(['revokeCookieConsent']);
    expect(identityCookies(page)).toEqual([]);
    const next = page.next();
    const fresh = next.cookie('svcutk')!.value;
    expect(fresh).toMatch(/^[0-9a-f]{32}$/);
    expect(fresh).not.toBe(utk);
    await next.tick(5000);
    expect(next.events()[0]).toMatchObject({ vi: fresh, nc: '1' });
    next.close();
  });

  it('in opt-in mode, asks again: nothing is stored or sent until a new decision', async () => {
    page = openPage({ attrs: { consent: 'opt-in' }, before: `_svcq = [['setConsent', true]]` });
    await page.tick(5000);
    page.push(['revokeCookieConsent'], ['trackEvent', { id: 'after-revoke' }]);
    await page.tick(10_000);
    expect(page.events().map((e) => e.k)).toEqual(['1']);
    expect(page.window.document.cookie).toBe('');
    const next = page.next();
    await next.tick(10_000);
    expect(next.sent).toEqual([]);
    next.close();
  });
});

/** Page code that turns on a browser privacy signal before the tracker loads. */
const GPC = `Object.defineProperty(navigator, 'globalPrivacyControl', { value: true, configurable: true });`;
const DNT = `Object.defineProperty(navigator, 'doNotTrack', { value: '1', configurable: true });`;
const WINDOW_DNT = `window.doNotTrack = '1';`;
const LISTEN = `window.seen = []; _svcq = [['addPrivacyConsentListener', (c) => seen.push(c)]];`;

describe('browser privacy signals', () => {
  const nothingHappens = async (page: Page) => {
    page.push(
      ['identify', { email: 'ada@example.com' }],
      ['trackEvent', { id: 'x' }],
      ['setConsent', true],
      ['trackPageView'],
    );
    await page.tick(60_000);
    page.hide();
    expect(page.sent).toEqual([]);
    expect(page.window.document.cookie).toBe('');
    expect(page.storage()).toEqual({});
  };

  for (const [name, signal] of [
    ['Global Privacy Control', GPC],
    ['navigator.doNotTrack', DNT],
    ['window.doNotTrack', WINDOW_DNT],
  ])
    it(`opt-in mode honours ${name} by default: a decline that sends nothing and stores nothing, whatever setConsent says`, async () => {
      page = openPage({ attrs: { consent: 'opt-in' }, before: signal + LISTEN });
      expect((page.window as unknown as { seen: unknown[] }).seen).toEqual([
        { allowed: false, categories: { analytics: false } },
      ]);
      await nothingHappens(page);
    });

  it('an earlier consent and stored retries are not used while the signal is on', async () => {
    const first = openPage({
      attrs: { consent: 'opt-in' },
      before: `_svcq = [['setConsent', true]]`,
      collector: () => 503,
    });
    await first.tick(5000);
    expect(first.storage().svc_retry).toContain('"k":"1"');
    const cookies = first.window.document.cookie;
    page = first.next({ before: GPC });
    first.window.close();
    await page.tick(60_000);
    expect(page.sent).toEqual([]);
    expect(page.window.document.cookie).toBe(cookies); // left as they were, not renewed
  });

  it('is off by default without opt-in: the signals change nothing', async () => {
    page = openPage({ before: GPC + DNT });
    await page.tick(5000);
    expect(page.events()).toHaveLength(1);
    expect(page.cookie('svcutk')).toBeDefined();
  });

  it('data-respect-privacy-signals="true" switches it on in any mode', async () => {
    page = openPage({ attrs: { 'respect-privacy-signals': 'true' }, before: DNT });
    await nothingHappens(page);
  });

  it('the JS option respectPrivacySignals: true does the same', async () => {
    page = openPage({ before: GPC + `window.svc = { config: { respectPrivacySignals: true } }` });
    await nothingHappens(page);
  });

  it('an explicit "false" wins over the opt-in default', async () => {
    page = openPage({ attrs: { consent: 'opt-in', 'respect-privacy-signals': 'false' }, before: GPC + DNT });
    page.push(['setConsent', true]);
    await page.tick(5000);
    expect(page.events()[0].vi).toBe(page.cookie('svcutk')!.value);
  });

  it('only "1" (DNT) and true (GPC) are signals', async () => {
    page = openPage({
      attrs: { consent: 'opt-in' },
      before: `Object.defineProperty(navigator, 'doNotTrack', { value: '0' }); window.doNotTrack = 'unspecified';
        Object.defineProperty(navigator, 'globalPrivacyControl', { value: false });`,
    });
    page.push(['setConsent', true]);
    await page.tick(5000);
    expect(page.events()).toHaveLength(1);
  });
});
