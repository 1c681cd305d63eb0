/** The tracker: runs the `_svcq` command queue, builds events and hands them to the transport. */
import {
  CUSTOM_EVENT,
  DNT_COOKIE as DNT,
  PROPERTY_PREFIX,
  OPT_OUT_COOKIE as OPT_OUT,
  OPTED_IN,
  OPTED_OUT,
  PAGE_VIEW,
  WIRE_VERSION,
  type WireEvent,
} from '@svc/protocol';
import { configureCookies, forgetVisitor, getCookie, removeCookie, setCookie, visit } from './cookies';
import { newId } from './ids';
import { watchHistory } from './spa';
import { transport } from './transport';
import type { Commands, PrivacyConsent, QueueEntry, SvcQueue, Tracker, TrackerConfig } from './types';

export function start(config: TrackerConfig): Tracker {
  const queue: SvcQueue = (window._svcq ||= []);
  if (queue.t) return queue.t;

  const log = (...a: unknown[]) => config.debug && console.debug('[svc]', ...a);
  const mode = config.consent;
  const days = +config.cookieDays! || 180;
  configureCookies(config.cookieDomain, days);
  const signals = config.respectPrivacySignals;
  const nav = navigator as unknown as { globalPrivacyControl?: boolean; doNotTrack?: unknown };
  /** Global Privacy Control or Do-Not-Track, when honoured (by default in opt-in mode): a decline
   * that sends nothing and stores nothing, whatever `setConsent` says later. */
  const declined =
    String(signals ?? mode == 'opt-in') != 'false' &&
    (nav.globalPrivacyControl || nav.doNotTrack == 1 || (window as { doNotTrack?: unknown }).doNotTrack == 1);
  /** No decision can change consent: cookieless mode, or a privacy signal. */
  const fixed = mode == 'cookieless' || declined;
  /** Consent before (or after revoking) a decision. */
  const fresh = () => !fixed && (mode != 'opt-in' || undefined);
  const stored = getCookie(OPT_OUT);
  /** true: cookies allowed; false: send without identifiers; undefined: wait for a decision. */
  let consent: boolean | undefined = !fixed && stored ? stored == OPTED_IN : fresh();
  const listeners: ((c: PrivacyConsent) => void)[] = [];
  const waiting: WireEvent[] = [];
  const net = transport(config.collector, () => consent, log);

  /** With hash routing the route in the fragment is part of the page (`/app#/pricing`); otherwise
   * a fragment is an anchor on the same page. */
  const fragment = () => (config.spa == 'hash' ? location.hash : '');
  let path = location.pathname + fragment();
  let previousPath: string | undefined;
  let referrer = document.referrer;
  let lastUrl: string | undefined;
  /** The latest page view. */
  let view: WireEvent;
  /** The page's URL as far as page views go: without the fragment unless hash routing is on. */
  const url = () => location.href.split('#')[0] + fragment();
  /** A page view's title is the last one its page had at its URL: `document.title` when the view
   * is tracked, then every title set while the page stays there (an app titles a route after
   * navigating, on load, after loading data). Once the URL has changed the view keeps its title,
   * whichever popstate listener runs first, the app's or the tracker's: a title set from then on is
   * the next view's. Returns true while the page is at the view's URL. */
  const retitle = () => url() == lastUrl && ((view.t = document.title), true);
  // Titles live in <head>: `document.title = ...` replaces the <title>'s text (childList), React
  // sets the value of its text node (characterData).
  new MutationObserver(retitle).observe(document.head, { subtree: true, childList: true, characterData: true });
  let contentType: string | undefined;
  let identity: Record<string, string> | undefined;

  const notify = (fn: (c: PrivacyConsent) => void) => {
    try {
      if (consent != undefined) fn({ allowed: consent, categories: { analytics: consent } });
    } catch {
      // a listener's error stays with the listener
    }
  };

  /** Sends an event once consent is decided: with identifiers when cookies are allowed. */
  const send = (e: WireEvent) => {
    // (Only page views have a path.)
    if (consent) Object.assign(e, visit(+e.cts, !!e.po));
    else e.ce = 'false';
    net.send(e);
  };

  const track = (params: Record<string, unknown>) => {
    // Not sent: an event of its own that nothing reads.
    if (declined || getCookie(DNT) == 'yes') return {} as WireEvent;
    const e = {} as WireEvent;
    params = {
      eid: newId(),
      a: config.portalId,
      v: WIRE_VERSION,
      cts: Date.now(),
      pu: location.href,
      t: document.title,
      ln: navigator.language,
      ...params,
      i: identity && new URLSearchParams(identity),
    };
    identity = undefined;
    // Every value a string; what is missing is left out.
    for (const k in params) if (params[k] != null) e[k] = (params[k] as string) + '';
    // Undecided: the event waits for the decision.
    if (consent == undefined) waiting.push(e);
    else send(e);
    return e;
  };

  // The first six, in this order, are hoisted: the pre-load queue runs them first, so that what was
  // pushed before the script loaded applies to the automatic page view (the anchor's hoisting
  // order), then that page view, then everything else first in first out (`rank` below).
  const commands: Commands = {
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
    setConsent(allowed) {
      if (fixed) return;
      consent = !!allowed;
      if (!consent) forgetVisitor();
      // The decision itself is remembered for 13 months, like the anchor's banner.
      setCookie(OPT_OUT, consent ? OPTED_IN : OPTED_OUT, 395);
      listeners.forEach(notify);
      waiting.splice(0).forEach(send);
    },
    doNotTrack(options) {
      if (options?.track) removeCookie(DNT);
      else {
        setCookie(DNT, 'yes', days);
        net.clear();
        waiting.length = 0;
      }
    },
    trackPageView() {
      view = track({ k: PAGE_VIEW, po: path, rpo: previousPath, r: referrer, ct: contentType });
      // After: a view that could not be made (no crypto) leaves `view` and `lastUrl` a pair.
      lastUrl = url();
    },
    trackEvent({ id, value, ...props }) {
      const params: Record<string, unknown> = { k: CUSTOM_EVENT, n: id, m: value };
      for (const k in props) params[PROPERTY_PREFIX + k] = props[k];
      track(params);
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

  // The pre-load queue and the automatic page view, hoisted (a stable sort; what is not among the
  // first six commands ranks -1 >>> 0, last; function entries and garbage have no name, so they are
  // never hoisted). The commands' own names: a list of them would cost the bundle its bytes twice.
  const rank = (e: QueueEntry) =>
    Object.keys(commands)
      .slice(0, 6)
      .indexOf((e as string[] | null)?.[0] as string) >>> 0;
  [...queue.splice(0), ['trackPageView'] as QueueEntry].sort((a, b) => rank(a) - rank(b)).forEach(run);
  queue.push = tracker.push as never;
  queue.t = tracker;

  if (String(config.spa) != 'false')
    watchHistory(() => {
      if (retitle()) return;
      previousPath = path;
      path = location.pathname + fragment();
      // (Set by the automatic page view, which ran before.)
      referrer = lastUrl!;
      // Through run: an error stays in the tracker, out of the app's pushState and listeners.
      run(['trackPageView']);
    });
  return tracker;
}
