import { afterEach, describe, expect, it } from 'vitest';
import { openPage, type Page } from './harness';

let page: Page;
afterEach(() => page?.close());

describe('single-page apps', () => {
  it('tracks pushState, replaceState and popstate navigations with the previous page as referrer', async () => {
    page = openPage();
    const { history } = page.window;
    history.pushState({}, '', '/pricing');
    page.window.document.title = 'Pricing';
    history.replaceState({}, '', '/pricing?plan=pro');
    history.pushState({}, '', '/about');
    history.back();
    await new Promise((r) => setTimeout(r, 20)); // jsdom fires popstate asynchronously
    await page.tick(5000);
    expect(page.events().map((e) => [e.po, e.rpo, e.r])).toEqual([
      ['/start', undefined, 'https://search.example.org/?q=svc'],
      ['/pricing', '/start', 'https://www.example.com/start?x=1'],
      ['/pricing', '/pricing', 'https://www.example.com/pricing'],
      ['/about', '/pricing', 'https://www.example.com/pricing?plan=pro'],
      ['/pricing', '/about', 'https://www.example.com/about'],
    ]);
    expect(page.events()[3].pu).toBe('https://www.example.com/about');
  });

  it('collapses duplicate URLs and hash-only changes', async () => {
    page = openPage();
    const { history } = page.window;
    history.replaceState({ scroll: 1 }, '');
    history.pushState({}, '', '/start?x=1');
    history.pushState({}, '', '/start?x=1#section');
    history.pushState({}, '', '/next');
    history.pushState({}, '', '/next');
    await page.tick(5000);
    expect(page.events().map((e) => e.po)).toEqual(['/start', '/next']);
  });

  it('can be switched off with data-spa="false"', async () => {
    page = openPage({ attrs: { spa: 'false' } });
    page.window.history.pushState({}, '', '/elsewhere');
    await page.tick(5000);
    expect(page.events()).toHaveLength(1);
  });

  it('keeps the page’s history working even if tracking fails', () => {
    page = openPage();
    page.window.fetch = (() => {
      throw new Error('broken');
    }) as typeof fetch;
    Object.defineProperty(page.window, 'localStorage', { get: () => { throw new Error('denied'); } });
    page.window.history.pushState({ a: 1 }, '', '/ok');
    expect(page.window.location.pathname).toBe('/ok');
    expect(page.window.history.state).toEqual({ a: 1 });
    expect(page.errors).toEqual([]);
  });
});

/** jsdom fires popstate in a later task, and hashchange on a (fake) timer. */
const settle = async () => {
  await new Promise((r) => setTimeout(r, 20));
  await page.tick(0);
};

describe('hash routing', () => {
  it('without it, in-page anchors never count: fragment changes on the same path are not page views', async () => {
    page = openPage();
    page.window.location.hash = '#section';
    await settle();
    page.window.location.hash = '#other';
    await settle();
    page.window.history.pushState({}, '', '/start?x=1#more');
    await page.tick(5000);
    expect(page.events().map((e) => e.po)).toEqual(['/start']);
  });

  it('data-spa="hash": a hashchange to a new route is a page view; the fragment is in its path, URL and referrer', async () => {
    page = openPage({ url: 'https://www.example.com/app#/home', attrs: { spa: 'hash' } });
    page.window.location.hash = '#/pricing';
    await settle();
    page.window.location.hash = '#/pricing'; // the same route: nothing
    await settle();
    page.window.history.pushState({}, '', '/app#/about'); // routers that push fragments
    page.window.history.pushState({}, '', '/app#/about');
    page.window.location.hash = '';
    await settle();
    page.window.history.pushState({}, '', '/app#'); // an empty fragment is the same page
    page.window.history.pushState({}, '', '/other'); // history navigations still count
    await page.tick(5000);
    expect(page.events().map((e) => [e.po, e.rpo, e.r, e.pu])).toEqual([
      ['/app#/home', undefined, 'https://search.example.org/?q=svc', 'https://www.example.com/app#/home'],
      ['/app#/pricing', '/app#/home', 'https://www.example.com/app#/home', 'https://www.example.com/app#/pricing'],
      ['/app#/about', '/app#/pricing', 'https://www.example.com/app#/pricing', 'https://www.example.com/app#/about'],
      ['/app', '/app#/about', 'https://www.example.com/app#/about', 'https://www.example.com/app#'],
      ['/other', '/app', 'https://www.example.com/app', 'https://www.example.com/other'],
    ]);
  });

  it('the JS option spa: "hash" does the same', async () => {
    page = openPage({ url: 'https://www.example.com/#/', before: `window.svc = { config: { spa: 'hash' } }` });
    page.window.location.hash = '#/docs';
    await settle();
    await page.tick(5000);
    expect(page.events().map((e) => e.po)).toEqual(['/#/', '/#/docs']);
  });
});

describe('titles', () => {
  it('a page view carries the title the page set after loading, read when it is sent', async () => {
    page = openPage({ before: `document.title = ''` });
    page.window.document.title = 'Dashboard – Acme'; // the app renders after the tracker ran
    await page.tick(5000);
    expect(page.events()[0].t).toBe('Dashboard – Acme');
  });

  it('also when the page is left before the batch is due', async () => {
    page = openPage({ before: `document.title = 'Loading…'` });
    page.window.document.title = 'Pricing';
    page.hide();
    expect(page.events()[0]).toMatchObject({ k: '1', t: 'Pricing' });
  });

  it('SPA navigations carry the title the app sets for the new route after pushState; earlier views keep theirs', async () => {
    page = openPage();
    const { history, document } = page.window;
    history.pushState({}, '', '/pricing');
    document.title = 'Pricing';
    page.push(['trackEvent', { id: 'on-pricing' }]);
    history.pushState({}, '', '/about');
    document.title = 'About us';
    await page.tick(5000);
    expect(page.events().map((e) => [e.po || e.n, e.t])).toEqual([
      ['/start', 'Start'],
      ['/pricing', 'Pricing'],
      ['on-pricing', 'Pricing'],
      ['/about', 'About us'],
    ]);
  });

  it('going back keeps the left view’s title even when the app retitles in its own popstate listener', async () => {
    page = openPage({
      before: `addEventListener('popstate', () => (document.title = location.pathname == '/start' ? 'Start' : 'Other'))`,
    });
    const { history, document } = page.window;
    history.pushState({}, '', '/pricing');
    document.title = 'Pricing';
    history.back();
    await settle();
    await page.tick(5000);
    expect(page.events().map((e) => [e.po, e.t])).toEqual([
      ['/start', 'Start'],
      ['/pricing', 'Pricing'],
      ['/start', 'Start'],
    ]);
  });

  it('a title sent and retried stays what it was (the stored copy is plain data)', async () => {
    let answer = 503;
    page = openPage({ collector: () => answer });
    await page.tick(5000);
    page.window.document.title = 'Changed later';
    answer = 204;
    await page.tick(5000);
    expect(page.delivered()[0]).toMatchObject({ k: '1', t: 'Start' });
  });
});
