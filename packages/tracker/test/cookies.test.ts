import { afterEach, describe, expect, it } from 'vitest';
import { expireCookies, openPage, type Page } from './harness';

let page: Page;
afterEach(() => page?.close());

const DAY = 864e5;
const visitorFields = (page: Page) => {
  const [hash, utk, first, previous, current, session] = page.cookie('__svctc')!.value.split('.');
  return { hash, utk, first: +first, previous: +previous, current: +current, session: +session };
};
const sessionFields = (page: Page) => {
  const [hash, views, start] = page.cookie('__svcsc')!.value.split('.');
  return { hash, views: +views, start: +start };
};

describe('identity cookies', () => {
  it('creates svcutk (32 lower-case hex), the visitor and session cookies with the documented format', async () => {
    page = openPage({ now: 1_800_000_000_000 });
    const utk = page.cookie('svcutk')!;
    expect(utk.value).toMatch(/^[0-9a-f]{32}$/);
    expect(visitorFields(page)).toMatchObject({
      utk: utk.value,
      first: 1_800_000_000_000,
      previous: 1_800_000_000_000,
      current: 1_800_000_000_000,
      session: 1,
    });
    expect(sessionFields(page)).toMatchObject({ views: 1, start: 1_800_000_000_000 });
    expect(visitorFields(page).hash).toMatch(/^\d+$/);
    expect(sessionFields(page).hash).toBe(visitorFields(page).hash);
    expect(page.cookie('__svcsrc')!.value).toBe('1');
    await page.tick(5000);
    expect(page.events()[0]).toMatchObject({
      vi: utk.value,
      u: page.cookie('__svctc')!.value,
      b: page.cookie('__svcsc')!.value,
      nc: '1',
    });
  });

  it('writes SameSite=Lax, Secure on https, path /, 180 days by default and 30 min for the session', () => {
    const now = Date.now();
    page = openPage({ now });
    for (const name of ['svcutk', '__svctc', '__svcsc', '__svcsrc']) {
      const c = page.cookie(name)!;
      expect(c.sameSite).toBe('lax');
      expect(c.secure).toBe(true);
      expect(c.path).toBe('/');
      expect(c.hostOnly).toBe(true);
    }
    expect(page.cookie('svcutk')!.expiryTime()! - now).toBeCloseTo(180 * DAY, -4);
    expect(page.cookie('__svcsc')!.expiryTime()! - now).toBeCloseTo(30 * 60e3, -4);
    expect(page.cookie('__svcsrc')!.isPersistent()).toBe(false);
  });

  it('is not Secure on plain http and honours a configured lifetime', () => {
    const now = Date.now();
    page = openPage({ url: 'http://shop.example.com/', now, attrs: { 'cookie-days': '30' } });
    expect(page.cookie('svcutk')!.secure).toBe(false);
    expect(page.cookie('svcutk')!.expiryTime()! - now).toBeCloseTo(30 * DAY, -4);
  });

  it('shares cookies across subdomains with a cookie domain, host-only when the browser refuses it', () => {
    page = openPage({ url: 'https://www.example.com/', attrs: { 'cookie-domain': '.example.com' } });
    expect(page.cookie('svcutk')!).toMatchObject({ domain: 'example.com', hostOnly: false });
    const sibling = page.next({ url: 'https://blog.example.com/' });
    expect(sibling.cookie('svcutk')!.value).toBe(page.cookie('svcutk')!.value);
    sibling.close();

    const other = openPage({ url: 'https://www.example.com/', attrs: { 'cookie-domain': '.other.org' } });
    expect(other.cookie('svcutk')!.hostOnly).toBe(true);
    expect(other.cookie('__svctc')!.hostOnly).toBe(true);
    other.close();
  });

  it('reuses the identity on the next page and counts page views within the session', async () => {
    page = openPage();
    const utk = page.cookie('svcutk')!.value;
    const second = page.next({ url: 'https://www.example.com/pricing' });
    await second.tick(5000);
    expect(second.cookie('svcutk')!.value).toBe(utk);
    expect(sessionFields(second).views).toBe(2);
    expect(visitorFields(second).session).toBe(1);
    expect(second.events()[0]).toMatchObject({ vi: utk, nc: '0' });
    second.close();
  });

  it('rolls the session over after 30 minutes without a send', () => {
    const t0 = Date.now();
    page = openPage({ now: t0 });
    const utk = page.cookie('svcutk')!.value;
    page.clock.tick(10 * 60e3);
    page.push(['trackEvent', { id: 'x' }]); // a send refreshes the 30-minute window
    const tEvent = page.clock.now;
    const later = tEvent + 31 * 60e3;
    expireCookies(page.jar, page.window.location.href, later);
    const next = page.next({ now: later });
    expect(next.cookie('svcutk')!.value).toBe(utk);
    expect(visitorFields(next)).toMatchObject({ first: t0, previous: t0, current: later, session: 2 });
    expect(sessionFields(next)).toMatchObject({ views: 1, start: later });
    next.close();
  });

  it('keeps the session when the next send comes within 30 minutes', () => {
    const t0 = Date.now();
    page = openPage({ now: t0 });
    const later = t0 + 29 * 60e3;
    expireCookies(page.jar, page.window.location.href, later);
    const next = page.next({ now: later });
    expect(visitorFields(next)).toMatchObject({ session: 1, current: t0 });
    expect(sessionFields(next)).toMatchObject({ views: 2, start: t0 });
    next.close();
  });

  it('starts a new session after a browser restart even when the session cookie is alive', () => {
    const t0 = Date.now();
    page = openPage({ now: t0 });
    const later = t0 + 5 * 60e3;
    expireCookies(page.jar, page.window.location.href, later, true);
    const next = page.next({ now: later });
    expect(visitorFields(next)).toMatchObject({ session: 2, previous: t0, current: later });
    next.close();
  });

  it('restores svcutk from a visitor cookie in the anchor format, and keeps its history', () => {
    const now = Date.now();
    page = openPage({
      now,
      before: `document.cookie = '__svctc=230861184.df1bf384582f91d9b9c9359cd69bb4f3.1526298447715.1526298447715.1526298447715.1; path=/';`,
    });
    expect(page.cookie('svcutk')!.value).toBe('df1bf384582f91d9b9c9359cd69bb4f3');
    expect(visitorFields(page)).toMatchObject({
      utk: 'df1bf384582f91d9b9c9359cd69bb4f3',
      first: 1526298447715,
      previous: 1526298447715,
      current: now,
      session: 2,
    });
  });

  it('keeps an existing svcutk set by another tool and ignores malformed values', () => {
    page = openPage({ before: `document.cookie = 'svcutk=0123456789abcdef0123456789abcdef; path=/';` });
    expect(page.cookie('svcutk')!.value).toBe('0123456789abcdef0123456789abcdef');
    page.close();
    page = openPage({
      before: `document.cookie = 'svcutk=<script>; path=/'; document.cookie = '__svctc=x.y.z; path=/';`,
    });
    expect(page.cookie('svcutk')!.value).toMatch(/^[0-9a-f]{32}$/);
    expect(visitorFields(page).session).toBe(1);
  });
});
