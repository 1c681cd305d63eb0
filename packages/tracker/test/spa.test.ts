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
