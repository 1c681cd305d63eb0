// @vitest-environment jsdom
// @vitest-environment-options { "url": "https://www.example.com/start" }
/** `<SvcTracker>` and `useSvc()` through the built package, in one window with one tracker, in
 * opt-in mode (so consent passes through): the tracker starts once whatever React does, every
 * navigation is one page view, and every command reaches the tracker. */
import { SvcTracker, usePrivacyConsent, useSvc, type PrivacyConsent } from '@svc/react';
import type { SvcQueue, Tracker } from '@svc/tracker';
import { act, cleanup, render, renderHook } from '@testing-library/react';
import { createElement as h, StrictMode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeCollector, popstate, views } from './collector';

const config = { portalId: '62515', collector: 'https://collect.example.net', consent: 'opt-in' as const };
const collector = fakeCollector();
afterEach(cleanup);

describe('<SvcTracker>', () => {
  it('starts the tracker once across StrictMode, re-renders and remounts, with the consent mode given', async () => {
    // The page's queue, with every tracker that takes it over (`start` sets `t`, once) recorded.
    const started: Tracker[] = [];
    const queue: SvcQueue = [];
    Object.defineProperty(queue, 't', { get: () => started[0], set: (t: Tracker) => started.push(t) });
    window._svcq = queue;
    // Before the tracker exists: the command waits in the queue and applies to the first page view.
    useSvc().identify({ email: 'ada@example.com' });
    const app = (props = {}) => h(StrictMode, null, h(SvcTracker, { ...config, ...props }, h('main', null, 'app')));
    const { rerender, unmount, container } = render(app());
    expect(container.textContent).toBe('app');
    await vi.waitFor(() => expect(started).toHaveLength(1));
    rerender(app({ debug: true }));
    unmount();
    render(app());
    // The remount asked for the module first, so its start has run (and found the tracker running)
    // once the test's own import of it resolves.
    await act(() => import('@svc/tracker'));
    expect(started).toHaveLength(1);

    // opt-in: nothing leaves before the visitor decides.
    expect(collector.received()).toEqual([]);
    act(() => useSvc().setConsent(true));
    const sent = collector.received();
    expect(views(sent)).toEqual([['/start', undefined]]);
    expect(sent[0]).toMatchObject({
      a: '62515',
      i: 'email=ada%40example.com',
      vi: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
  });

  it('makes one page view per navigation: pushState, replaceState to a new URL, back; none for the same URL', async () => {
    history.pushState({}, '', '/pricing');
    // Next.js App Router stores its state on the URL it is at: not a navigation.
    history.replaceState({ __NA: true }, '', location.href);
    history.replaceState({}, '', '/pricing?plan=pro');
    // After hydration Next.js wraps pushState (adding its state) and navigates through it.
    const original = history.pushState.bind(history);
    history.pushState = (data: object, unused: string, url?: string | URL | null) =>
      original({ ...data, __NA: true }, unused, url);
    history.pushState({}, '', '/about');
    const back = popstate();
    history.back();
    await back;
    expect(views(collector.received())).toEqual([
      ['/pricing', '/start'],
      ['/pricing', '/pricing'],
      ['/about', '/pricing'],
      ['/pricing', '/about'],
    ]);
  });
});

describe('useSvc()', () => {
  it('returns the same functions on every render', () => {
    const { result, rerender } = renderHook(() => useSvc());
    const first = result.current;
    rerender();
    expect(result.current).toBe(first);
    expect(result.current.trackEvent).toBe(first.trackEvent);
  });

  it('reaches the tracker with events, page views and identities', () => {
    // Destructured, as components use it.
    const { identify, trackEvent, setContentType, setPath, trackPageView } = renderHook(() => useSvc()).result.current;
    identify({ email: 'grace@example.com', firstname: 'Grace' });
    trackEvent({ id: 'signup', value: 49, plan: 'pro' });
    setContentType('blog-post');
    setPath('/posts/1');
    trackPageView();
    const [event, view] = collector.received();
    expect(event).toMatchObject({
      k: '3',
      n: 'signup',
      m: '49',
      _plan: 'pro',
      i: 'email=grace%40example.com&firstname=Grace',
    });
    expect(view).toMatchObject({ k: '1', po: '/posts/1', ct: 'blog-post' });
    expect(view.i).toBeUndefined();
  });

  it('tells consent listeners and usePrivacyConsent the decision, until they stop', () => {
    const svc = useSvc();
    const heard: boolean[] = [];
    const stop = svc.addPrivacyConsentListener((c: PrivacyConsent) => heard.push(c.allowed));
    const banner = renderHook(() => usePrivacyConsent());
    expect(heard).toEqual([true]);
    expect(banner.result.current).toEqual({ allowed: true, categories: { analytics: true } });
    stop();
    act(() => svc.setConsent(false));
    expect(heard).toEqual([true]);
    expect(banner.result.current?.allowed).toBe(false);
    banner.unmount();
    // Declined: events go without identifiers.
    svc.trackEvent({ id: 'declined' });
    expect(collector.received()).toEqual([expect.objectContaining({ n: 'declined', ce: 'false' })]);
    expect(document.cookie).toContain('__svc_opt_out=yes');
  });

  it('revokes consent and stops tracking', () => {
    const svc = useSvc();
    svc.revokeCookieConsent();
    expect(document.cookie).not.toContain('__svc_opt_out');
    svc.doNotTrack();
    svc.setConsent(true);
    svc.trackEvent({ id: 'not-sent' });
    expect(collector.received()).toEqual([]);
    expect(document.cookie).toContain('__svc_do_not_track=yes');
  });
});
