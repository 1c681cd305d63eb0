/** The tracker's commands for React code. They go through the page's `_svcq` queue, not through a
 * tracker object: a command given before the tracker has loaded waits there and runs in the
 * tracker's own order (an `identify` before the first page view applies to it), and the same calls
 * work when the tracker came from a script tag instead of `<SvcTracker>`. On the server there is no
 * queue: every command does nothing. */
import type { Command, Commands, PrivacyConsent } from '@svc/tracker';

/** What `useSvc()` returns: the tracker's commands, and a privacy-consent listener that can be
 * removed. Function-valued properties, not methods: `const { trackEvent } = useSvc()` is meant. */
export type Svc = {
  readonly [K in Exclude<keyof Commands, 'addPrivacyConsentListener'>]: (...args: Parameters<Commands[K]>) => void;
} & {
  /** Calls `listener` with the visitor's decision once it is known and with every later one, until
   * the returned function is called (the tracker keeps listeners for good: this one goes quiet). */
  readonly addPrivacyConsentListener: (listener: (consent: PrivacyConsent) => void) => () => void;
};

/** Runs a command, or queues it until the tracker starts. `typeof`, so that nothing reads `window`
 * until a command is given: never on import. */
const push = (entry: Command) => {
  if (typeof window == 'object') (window._svcq ||= []).push(entry);
};

const NAMES = [
  'trackPageView',
  'setPath',
  'setContentType',
  'identify',
  'trackEvent',
  'doNotTrack',
  'setConsent',
  'revokeCookieConsent',
] as const;

/** The commands that take their arguments as they are. */
type Plain = Omit<Svc, 'addPrivacyConsentListener'>;
const plain = Object.fromEntries(NAMES.map((name) => [name, (...args: unknown[]) => push([name, ...args] as Command)]));

/** One object for the page's life: its functions are stable references (safe in effect deps). */
export const svc: Svc = {
  ...(plain as Plain),
  addPrivacyConsentListener(listener) {
    let on = true;
    push(['addPrivacyConsentListener', (consent) => on && listener(consent)]);
    return () => {
      on = false;
    };
  },
};

/** The tracker's commands: identify, trackEvent, setConsent, addPrivacyConsentListener and the
 * rest, as stable functions; no-ops on the server. */
export const useSvc = (): Svc => svc;
