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
    page.window.fetch = () => {
      throw new Error('broken');
    };
    Object.defineProperty(page.window, 'localStorage', {
      get: () => {
        throw new Error('denied');
      },
    });
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
  it('a page view carries the title the page set after loading', async () => {
    page = openPage({ before: `document.title = ''` });
    page.window.document.title = 'Dashboard – Acme'; // the app renders after the tracker ran
    await page.tick(5000);
    expect(page.events()[0].t).toBe('Dashboard – Acme');
  });

  it('also when the page is left before the batch is due', async () => {
    page = openPage({ before: `document.title = 'Loading…'` });
    page.window.document.title = 'Pricing';
    await Promise.resolve(); // a page is hidden in a task of its own: the tracker has seen the title by then
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

/** The demo's router: Home, Pricing and About are sections of one page, titled when shown. Its
 * popstate listener is a capturing one: jsdom, as the DOM standard now has it, runs those first on
 * the target, so that the app's, added before the tracker's, runs before it as Chromium runs them
 * on window whatever the phase (in the order added). */
const ROUTER = `
  const TITLES = { '/start': 'Acme Widgets', '/pricing': 'Pricing · Acme Widgets', '/about': 'About · Acme Widgets' };
  const render = () => (document.title = TITLES[location.pathname]);
  window.go = (path) => (history.pushState({}, '', path), render()); // navigate, then render
  addEventListener('popstate', render, true);
  render();`;
const TITLES: Record<string, string> = {
  '/start': 'Acme Widgets',
  '/pricing': 'Pricing · Acme Widgets',
  '/about': 'About · Acme Widgets',
};

/** Each page view's path, title and URL. */
const views = () => page.events().map((e) => [e.po, e.t, e.pu]);
/** What each view of `path` should carry. */
const own = (path: string) => [path, TITLES[path], 'https://www.example.com' + path];
/** The app's navigation (pushState, then render), and back or forward: jsdom traverses in two
 * (fake) timer steps and fires popstate in the second. */
const go = (path: string) => (page.window as unknown as { go: (path: string) => void }).go(path);
const traverse = (delta: number) => (page.window.history.go(delta), page.tick(10));

describe('titles whatever the order the app and the tracker listen in (issue 38)', () => {
  const walk = async () => {
    go('/pricing');
    go('/about');
    await traverse(-1);
    await traverse(-1);
    await traverse(1);
    await page.tick(5000);
    expect(views()).toEqual(['/start', '/pricing', '/about', '/pricing', '/start', '/pricing'].map(own));
  };

  it('the app’s popstate listener added before the tracker loads (its script was slow) retitles first', async () => {
    page = openPage({ url: 'https://www.example.com/start', before: ROUTER });
    await walk();
  });

  it('the app’s popstate listener added after the tracker (runs after it)', async () => {
    page = openPage({ url: 'https://www.example.com/start' });
    page.window.eval(ROUTER.replace('render, true', 'render'));
    await walk();
  });

  it('an app that retitles a moment after popstate (a render later) titles the view it went to', async () => {
    page = openPage({
      url: 'https://www.example.com/start',
      before: ROUTER.replace('render, true', '() => setTimeout(render, 50)'),
    });
    go('/pricing');
    await traverse(-1);
    await page.tick(50);
    await traverse(1);
    await page.tick(5000);
    expect(views()).toEqual(['/start', '/pricing', '/start', '/pricing'].map(own));
  });

  it('a title set by the caller after pushState is the new route’s, one set later still on that URL too', async () => {
    page = openPage({ url: 'https://www.example.com/start', before: ROUTER });
    const { history, document } = page.window;
    history.pushState({}, '', '/pricing');
    document.title = 'Pricing · Acme Widgets';
    await page.tick(1000);
    document.title = 'Pricing (2 plans) · Acme Widgets'; // after loading the plans
    await page.tick(1000);
    history.pushState({}, '', '/about');
    document.title = 'About · Acme Widgets';
    await page.tick(5000);
    document.title = 'Later'; // after the batch went: nothing changes for the views sent
    await page.tick(5000);
    expect(page.events().map((e) => [e.po, e.t])).toEqual([
      ['/start', 'Acme Widgets'],
      ['/pricing', 'Pricing (2 plans) · Acme Widgets'],
      ['/about', 'About · Acme Widgets'],
    ]);
  });

  it('rapid navigations: one view per URL, each with its own URL and title', async () => {
    page = openPage({ url: 'https://www.example.com/start', before: ROUTER });
    // In one task: each view takes its title before the next navigation.
    go('/pricing');
    go('/about');
    go('/pricing');
    page.window.history.replaceState({ scroll: 120 }, ''); // the same URL: no view
    // Back and forth without waiting for the batch.
    await traverse(-1);
    await traverse(-1);
    await traverse(1);
    go('/start');
    await page.tick(5000);
    expect(views()).toEqual(
      ['/start', '/pricing', '/about', '/pricing', '/about', '/pricing', '/about', '/start'].map(own),
    );
    expect(page.events().map((e) => e.r)).toEqual([
      'https://search.example.org/?q=svc',
      ...['/start', '/pricing', '/about', '/pricing', '/about', '/pricing', '/about'].map(
        (p) => 'https://www.example.com' + p,
      ),
    ]);
  });
});
