// @vitest-environment jsdom
// @vitest-environment-options { "url": "https://shop.example.com/" }
/** `<SvcTracker>` in a React Router app as Vite makes one (a data router, StrictMode, titles as
 * React 19 `<title>` elements): each navigation, by link or back, is one page view with its own
 * title, and a link to the page already shown is none. */
import { SvcTracker } from '@svc/react';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { createElement as h, StrictMode } from 'react';
import { createBrowserRouter, Link, Outlet, RouterProvider } from 'react-router';
import { afterAll, expect, it, vi } from 'vitest';
import { fakeCollector, views } from './collector';

const collector = fakeCollector();
afterAll(cleanup);

const Layout = () =>
  h(
    SvcTracker,
    { portalId: '62515', collector: '/svc' },
    h('nav', null, h(Link, { to: '/' }, 'Home'), h(Link, { to: '/pricing' }, 'Pricing')),
    h(Outlet),
  );
const page = (title: string) => () => h('main', null, h('title', null, title), h('h1', null, title));

it('counts each client-side navigation once', async () => {
  const router = createBrowserRouter([
    {
      path: '/',
      Component: Layout,
      children: [
        { index: true, Component: page('Home') },
        { path: 'pricing', Component: page('Pricing') },
      ],
    },
  ]);
  render(h(StrictMode, null, h(RouterProvider, { router })));
  await vi.waitFor(() => expect(window._svcq?.t).toBeDefined());
  const shown = (title: string) => screen.findByRole('heading', { name: title });

  fireEvent.click(screen.getByRole('link', { name: 'Pricing' }));
  await shown('Pricing');
  // The page already shown: React Router replaces the entry with the same URL.
  fireEvent.click(screen.getByRole('link', { name: 'Pricing' }));
  await shown('Pricing');
  fireEvent.click(screen.getByRole('link', { name: 'Home' }));
  await shown('Home');
  await act(() => router.navigate(-1));
  await shown('Pricing');

  const sent = collector.received();
  expect(views(sent)).toEqual([
    ['/', undefined],
    ['/pricing', '/'],
    ['/', '/pricing'],
    ['/pricing', '/'],
  ]);
  expect(sent.map((e) => e.t)).toEqual(['Home', 'Pricing', 'Home', 'Pricing']);
});
