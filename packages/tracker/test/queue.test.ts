import { afterEach, describe, expect, it } from 'vitest';
import { openPage, type Page } from './harness';

let page: Page;
afterEach(() => page?.close());

describe('the _svcq queue', () => {
  it('hoists configuration pushed before load onto the automatic first page view', async () => {
    page = openPage({
      before: `window._svcq = [
        ['trackEvent', { id: 'early' }],
        ['identify', { email: 'ada@example.com', firstname: 'Ada' }],
        ['setContentType', 'blog-post'],
        ['setPath', '/virtual/landing'],
      ];`,
    });
    await page.tick(5000);
    const [view, event] = page.events();
    expect(view).toMatchObject({ k: '1', po: '/virtual/landing', rpo: '/start', ct: 'blog-post', a: '62515' });
    expect(new URLSearchParams(view.i).get('email')).toBe('ada@example.com');
    expect(new URLSearchParams(view.i).get('firstname')).toBe('Ada');
    // identify travels once: with the next send only.
    expect(event).toMatchObject({ k: '3', n: 'early' });
    expect(event.i).toBeUndefined();
    expect(page.events()).toHaveLength(2);
  });

  it('runs function entries with the tracker, FIFO after the page view', async () => {
    page = openPage({
      before: `window.calls = [];
        window._svcq = [
          function (t) { calls.push(typeof t.trackEvent); t.trackEvent({ id: 'from-fn' }); },
          ['trackEvent', { id: 'second' }],
        ];`,
    });
    await page.tick(5000);
    expect((page.window as unknown as { calls: string[] }).calls).toEqual(['function']);
    expect(page.events().map((e) => e.n || 'view')).toEqual(['view', 'from-fn', 'second']);
  });

  it('executes pushes made after load at once', async () => {
    page = openPage();
    page.push(['setPath', '/after']);
    page.push(['trackPageView']);
    await page.tick(5000);
    expect(page.events().map((e) => e.po)).toEqual(['/start', '/after']);
    expect(page.events()[1].rpo).toBe('/start');
  });

  it('ignores unknown methods with a debug log and keeps going after a throwing command', async () => {
    page = openPage({
      attrs: { debug: 'true' },
      before: `window._svcq = [
        ['noSuchMethod', 1],
        function () { throw new Error('site bug'); },
        ['setPath'],
        ['trackEvent', null],
        null,
        42,
        ['trackEvent', { id: 'still-works' }],
      ];`,
    });
    await page.tick(5000);
    expect(page.events().map((e) => e.n || 'view')).toEqual(['view', 'still-works']);
    expect(page.debug.some((args) => args.includes('unknown command') && args.includes('noSuchMethod'))).toBe(true);
    expect(page.errors).toEqual([]);
  });

  it('adds no global but _svcq and runs once even if the tag is included twice', async () => {
    page = openPage();
    const added = Object.keys(page.window).filter((k) => !page.globalsBefore.has(k));
    expect(added).toEqual(['_svcq']);
    const again = page.window.document.createElement('script');
    again.setAttribute('data-portal-id', '62515');
    again.textContent = page.window.document.scripts[0].textContent!;
    page.window.document.body.appendChild(again);
    await page.tick(5000);
    expect(page.events()).toHaveLength(1);
  });

  it('carries the page, visitor and client parameters on every event', async () => {
    page = openPage();
    page.push(['trackEvent', { id: 'signup', value: 49, plan: 'pro', seats: 3 }]);
    await page.tick(5000);
    const [view, event] = page.events();
    expect(view).toMatchObject({
      k: '1',
      a: '62515',
      v: '1',
      pu: 'https://www.example.com/start?x=1',
      t: 'Start',
      r: 'https://search.example.org/?q=svc',
      po: '/start',
      nc: '1',
    });
    expect(view.eid).toMatch(/^[0-9a-f]{32}$/);
    expect(Number(view.cts)).toBeGreaterThan(1.7e12);
    expect(event).toMatchObject({ k: '3', n: 'signup', m: '49', _plan: 'pro', _seats: '3', vi: view.vi });
    expect(event.eid).not.toBe(view.eid);
  });

  it('takes configuration from window.svc.config as well as the tag', async () => {
    page = openPage({
      attrs: { 'portal-id': '1', collector: 'https://ignored.example/' },
      before: `window.svc = { config: { portalId: '777', collector: 'https://proxy.example.com/svc' } };`,
    });
    await page.tick(5000);
    expect(page.sent[0].url).toBe('https://proxy.example.com/svc/e');
    expect(page.events()[0].a).toBe('777');
  });
});
