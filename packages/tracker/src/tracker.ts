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
  const stored = getCookie(OPT_OUT);
  /** true: cookies allowed; false: send without identifiers; undefined: wait for a decision. */
  let consent: boolean | undefined = mode == 'cookieless' ? false : stored ? stored == OPTED_IN : mode != 'opt-in' || undefined;
  const listeners: ((c: PrivacyConsent) => void)[] = [];
  const waiting: WireEvent[] = [];
  const net = transport(config.collector, () => !!consent, log);

  let path = location.pathname;
  let previousPath: string | undefined;
  let referrer = document.referrer;
  let lastUrl: string | undefined;
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
    if (getCookie(DNT) == 'yes') return;
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
  };

  const commands: Commands = {
    trackPageView() {
      lastUrl = location.href.split('#')[0];
      track({ k: PAGE_VIEW, po: path, rpo: previousPath, r: referrer, ct: contentType });
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
      if (mode == 'cookieless') return;
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
      consent = mode == 'none' || (mode == 'opt-in' ? undefined : false);
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
      if (location.href.split('#')[0] == lastUrl) return;
      previousPath = path;
      path = location.pathname;
      referrer = lastUrl || referrer;
      commands.trackPageView();
    });
  return tracker;
}
