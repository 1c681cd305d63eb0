/** A browser page for the tracker: a fresh jsdom window that runs the built `dist/tracker.js`
 * from a real `<script data-*>` tag, with fake timers, a controllable network and a fake collector.
 * Cookies (a tough-cookie jar) and localStorage can be carried from one page to the next. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import FakeTimers from '@sinonjs/fake-timers';
import { CookieJar, JSDOM, VirtualConsole } from 'jsdom';

const bundle = readFileSync(fileURLToPath(new URL('../dist/tracker.js', import.meta.url)), 'utf8');

export type WireEvent = Record<string, string>;
/** What the fake collector answers: a status, or a status with headers, or `'network-error'`. */
export type Answer = number | { status: number; headers?: Record<string, string> } | 'network-error';

export interface PageOptions {
  url?: string;
  /** `data-*` attributes of the script tag (without the `data-` prefix). */
  attrs?: Record<string, string>;
  /** Code run in the page before the tracker loads (the site's `_svcq` snippet). */
  before?: string;
  /** Carried over from an earlier page: same browser. */
  jar?: CookieJar;
  storage?: Record<string, string>;
  /** Fake clock start (ms). */
  now?: number;
  /** How the collector answers each fetch; default 204. */
  collector?: (events: WireEvent[]) => Answer;
  /** Whether `navigator.sendBeacon` exists and what it returns. */
  beacon?: boolean | 'missing';
  fetch?: 'missing';
  online?: boolean;
}

export interface Sent {
  via: 'fetch' | 'beacon' | 'pixel';
  url: string;
  events: WireEvent[];
  keepalive?: boolean;
  /** The collector's answer (fetch only). */
  status?: number;
}

export function openPage(options: PageOptions = {}) {
  const url = options.url || 'https://www.example.com/start?x=1';
  const jar = options.jar || new CookieJar();
  const errors: unknown[] = [];
  const debug: unknown[][] = [];
  const virtualConsole = new VirtualConsole();
  virtualConsole.on('jsdomError', (e) => errors.push(e));
  virtualConsole.on('debug', (...args) => debug.push(args));
  const dom = new JSDOM('<!doctype html><title>Start</title><body></body>', {
    url,
    cookieJar: jar,
    runScripts: 'dangerously',
    referrer: 'https://search.example.org/?q=svc',
    virtualConsole,
  });
  const window = dom.window as unknown as Window & typeof globalThis;
  for (const [k, v] of Object.entries(options.storage || {})) window.localStorage.setItem(k, v);
  const clock = FakeTimers.withGlobal(window).install({
    now: options.now ?? Date.now(),
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
  });

  const sent: Sent[] = [];
  const state = { online: options.online ?? true, visibility: 'visible' as DocumentVisibilityState };
  Object.defineProperty(window.navigator, 'onLine', { get: () => state.online, configurable: true });
  Object.defineProperty(window.document, 'visibilityState', { get: () => state.visibility, configurable: true });
  Object.defineProperty(window.document, 'hidden', { get: () => state.visibility == 'hidden', configurable: true });

  const collector = options.collector || (() => 204);
  if (options.fetch == 'missing') delete (window as Partial<Window>).fetch;
  else
    window.fetch = (async (input: string, init: RequestInit) => {
      const events = JSON.parse(String(init.body as string)) as WireEvent[];
      const answer = collector(events);
      if (answer == 'network-error') throw new TypeError('Failed to fetch');
      const { status, headers } = typeof answer == 'number' ? { status: answer, headers: {} } : answer;
      sent.push({ via: 'fetch', url: String(input), events, keepalive: init.keepalive, status });
      return new Response(status == 204 ? null : '{}', { status, headers });
    }) as typeof fetch;
  if (options.beacon != 'missing')
    window.navigator.sendBeacon = (target: string | URL, body?: BodyInit | null) => {
      if (options.beacon === false) return false;
      sent.push({ via: 'beacon', url: String(target), events: JSON.parse(String(body as string)) });
      return true;
    };
  window.Image = class {
    set src(value: string) {
      const u = new URL(value);
      sent.push({ via: 'pixel', url: u.origin + u.pathname, events: [Object.fromEntries(u.searchParams)] });
    }
  } as unknown as typeof Image;

  const globalsBefore = new Set(Object.keys(window));
  if (options.before) window.eval(options.before);
  const script = window.document.createElement('script');
  const attrs = { 'portal-id': '62515', collector: 'https://collect.example.net/', ...options.attrs };
  for (const [k, v] of Object.entries(attrs)) script.setAttribute('data-' + k, v);
  script.textContent = bundle;
  window.document.body.appendChild(script);

  return {
    window,
    clock,
    jar,
    sent,
    errors,
    debug,
    globalsBefore,
    /** Every event the collector received, in order, accepted or not. */
    events: () => sent.flatMap((s) => s.events),
    /** The events the collector accepted (2xx), the beacons and the pixels. */
    delivered: () => sent.filter((s) => !s.status || s.status < 300).flatMap((s) => s.events),
    cookie: (name: string) => jar.getCookiesSync(window.location.href).find((c) => c.key == name),
    storage: () => ({ ...window.localStorage }),
    setOnline(online: boolean) {
      state.online = online;
      window.dispatchEvent(new window.Event(online ? 'online' : 'offline'));
    },
    hide() {
      state.visibility = 'hidden';
      window.document.dispatchEvent(new window.Event('visibilitychange', { bubbles: true }));
    },
    pagehide: () => window.dispatchEvent(new window.Event('pagehide')),
    push: (...entries: unknown[]) => (window as unknown as { _svcq: unknown[] })._svcq.push(...entries),
    /** Lets fake time pass, running timers and the promise callbacks they cause. */
    tick: (ms: number) => clock.tickAsync(ms),
    /** The next page of the same site in the same browser: cookies, localStorage and the tag's
     * attributes carry over; the site's `before` snippet does not. */
    next(more: PageOptions = {}) {
      clock.uninstall();
      return openPage({
        ...options,
        before: undefined,
        jar,
        storage: { ...window.localStorage },
        now: clock.now,
        ...more,
      });
    },
    close() {
      clock.uninstall();
      window.close();
    },
  };
}

export type Page = ReturnType<typeof openPage>;

/** The browser drops the cookies that have expired by fake time `at` (jsdom's jar runs on real
 * time); after a browser restart the session cookies are gone too. */
export function expireCookies(jar: CookieJar, url: string, at: number, browserRestart = false) {
  for (const c of jar.getCookiesSync(url)) {
    if ((browserRestart && !c.isPersistent()) || (c.expiryTime() ?? Infinity) <= at)
      jar.setCookieSync(`${c.key}=; Max-Age=0; Path=${c.path}${c.hostOnly ? '' : '; Domain=' + c.domain}`, url);
  }
}
