/** The tracker: runs the `_svcq` command queue, builds events and hands them to the transport. */
import { CUSTOM_EVENT, DNT_COOKIE as DNT, OPT_OUT_COOKIE as OPT_OUT, OPTED_IN, OPTED_OUT, PAGE_VIEW, WIRE_VERSION, type WireEvent } from '@svc/protocol';
import { configureCookies, forgetVisitor, getCookie, removeCookie, setCookie, visit } from './cookies';
import { newId } from './ids';
import { watchHistory } from './spa';
import { transport } from './transport';
import type { Commands, PrivacyConsent, QueueEntry, SvcQueue, Tracker, TrackerConfig } from './types';

/** Commands run before the automatic first page view, in this order, so that configuration pushed
 * before the script loaded applies to it (the anchor's hoisting order). */
const HOISTED = ['setPath', 'setContentType', 'identify', 'setConsent', 'doNotTrack'];

export function start(config: TrackerConfig): Tracker {
  const queue: SvcQueue = (window._svcq ||= []);
  if (queue.t) return queue.t;

  const log: (...a: unknown[]) => void = config.debug ? console.debug.bind(console, '[svc]') : () => {};
  const mode = config.consent || 'none';
  const days = +config.cookieDays! || 180;
  configureCookies(config.cookieDomain, days);
  const signals = config.respectPrivacySignals;
  const nav = navigator as Navigator & { globalPrivacyControl?: boolean };
  /** Global Privacy Control or Do-Not-Track, when honoured (by default in opt-in mode): a decline
   * that sends nothing and stores nothing, whatever `setConsent` says later. */
  const declined =
    (signals == null ? mode == 'opt-in' : String(signals) != 'false') &&
    (nav.globalPrivacyControl === true || nav.doNotTrack == '1' || (window as { doNotTrack?: string }).doNotTrack == '1');
  /** No decision can change consent: cookieless mode, or a privacy signal. */
  const fixed = mode == 'cookieless' || declined;
  /** Consent before (or after revoking) a decision. */
  const fresh = () => !fixed && (mode != 'opt-in' || undefined);
  const stored = getCookie(OPT_OUT);
  /** true: cookies allowed; false: send without identifiers; undefined: wait for a decision. */
  let consent: boolean | undefined = !fixed && stored ? stored == OPTED_IN : fresh();
  const listeners: ((c: PrivacyConsent) => void)[] = [];
  const waiting: WireEvent[] = [];
  const net = transport(config.collector, () => !!consent, log);

  const hash = config.spa == 'hash';
  /** With hash routing the route in the fragment is part of the page (`/app#/pricing`); otherwise
   * a fragment is an anchor on the same page. */
  const fragment = () => (hash ? location.hash : '');
  let path = location.pathname + fragment();
  let previousPath: string | undefined;
  let referrer = document.referrer;
  let lastUrl: string | undefined;
  /** The latest page view: its title is read when it is sent (below). */
  let view: WireEvent | undefined;
  let contentType: string | undefined;
  let identity: Record<string, string> | undefined;

  const notify = (fn: (c: PrivacyConsent) => void) => {
    try {
      if (consent != undefined) fn({ allowed: consent, categories: { analytics: consent } });
    } catch {}
  };

  /** Sends what waited for a consent decision, with identifiers when cookies are allowed. */
  const release = () => {
    if (consent == undefined) return;
    for (const e of waiting.splice(0)) {
      if (consent) Object.assign(e, visit(+e.cts, e.k == PAGE_VIEW));
      else e.ce = 'false';
      net.send(e);
    }
  };

  const track = (params: Record<string, unknown>) => {
    if (declined || getCookie(DNT) == 'yes') return;
    // `k` and the rest come from params below.
    const e = {
      eid: newId(),
      a: config.portalId + '',
      v: WIRE_VERSION,
      cts: Date.now() + '',
      pu: location.href,
      t: document.title,
      ln: navigator.language,
    } as WireEvent;
    if (identity) params.i = new URLSearchParams(identity) + '';
    identity = undefined;
    for (const k in params) if (params[k] != null) e[k] = params[k] + '';
    waiting.push(e);
    release();
    return e;
  };
  /** Makes `t` of an event read `get` whenever the event is serialized. */
  const title = (e: WireEvent | undefined, get: () => string) =>
    e && Object.defineProperty(e, 't', { get, enumerable: true, configurable: true });

  const commands: Commands = {
    trackPageView() {
      lastUrl = location.href.split('#')[0] + fragment();
      // A page view's title is document.title when the view is sent (a batch waits up to 5 s, or
      // the page is hidden), not when it is tracked: a page that sets its title after loading, or
      // a single-page app that sets it after pushState, is sent with that title. A view still
      // waiting when the next one starts keeps the title of now, the one its page had.
      const t = document.title;
      title(view, () => t);
      title((view = track({ k: PAGE_VIEW, po: path, rpo: previousPath, r: referrer, ct: contentType })), () => document.title);
    },
    setPath(p) {
      previousPath = path;
      path = p[0] == '/' ? p : '/' + p;
    },
    setContentType(type) {
      contentType = type;
    },
    identify(props) {
      identity = { ...identity, ...(props as Record<string, string>) };
    },
    trackEvent({ id, value, ...props }) {
      const params: Record<string, unknown> = { k: CUSTOM_EVENT, n: id, m: value };
      for (const k in props) params['_' + k] = props[k];
      track(params);
    },
    doNotTrack(options) {
      if (options && options.track) removeCookie(DNT);
      else setCookie(DNT, 'yes', days), net.clear(), (waiting.length = 0);
    },
    setConsent(allowed) {
      if (fixed) return;
      consent = !!allowed;
      if (!consent) forgetVisitor();
      // The decision itself is remembered for 13 months, like the anchor's banner.
      setCookie(OPT_OUT, consent ? OPTED_IN : OPTED_OUT, 395);
      listeners.forEach(notify);
      release();
    },
    addPrivacyConsentListener(fn) {
      listeners.push(fn);
      notify(fn);
    },
    revokeCookieConsent() {
      forgetVisitor();
      consent = fresh();
    },
  };

  const run = (entry: QueueEntry) => {
    try {
      if (typeof entry == 'function') return entry(tracker);
      const [name, ...args] = entry as [keyof Commands, ...unknown[]];
      if (commands[name]) (commands[name] as (...a: unknown[]) => void)(...args);
      else log('unknown command', name);
    } catch (err) {
      log(err);
    }
  };
  const tracker: Tracker = { ...commands, push: (...entries) => entries.forEach(run) };

  // The pre-load queue: hoisted configuration, the automatic page view, then everything else.
  const pending = queue.splice(0);
  // (Function entries and garbage have no name, so they are never hoisted.)
  const nameOf = (e: QueueEntry) => (e as string[] | null)?.[0];
  HOISTED.forEach((name) => pending.forEach((e) => nameOf(e) == name && run(e)));
  run(['trackPageView']);
  pending.forEach((e) => HOISTED.includes(nameOf(e)!) || run(e));
  queue.push = tracker.push as never;
  queue.t = tracker;

  if (String(config.spa) != 'false')
    watchHistory(() => {
      if (location.href.split('#')[0] + fragment() == lastUrl) return;
      previousPath = path;
      path = location.pathname + fragment();
      referrer = lastUrl || referrer;
      commands.trackPageView();
    });
  return tracker;
}
