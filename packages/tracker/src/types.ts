/** Public types of the tracker: configuration, commands and the `_svcq` queue. */

/** How the tracker treats cookies and identifiers. */
export type ConsentMode =
  /** Cookies and identifiers from the first page view (the default). */
  | 'none'
  /** Nothing is stored and nothing is sent until `setConsent(true)` or `setConsent(false)`;
   * events wait in memory meanwhile. The decision is remembered in a cookie. */
  | 'opt-in'
  /** Never a cookie or local storage: events are sent without visitor identifiers. */
  | 'cookieless';

export interface TrackerConfig {
  /** The platform portal (hub) id every event belongs to. */
  portalId: string;
  /** Base URL of the collector, e.g. `https://platform.example.com` or a first-party
   * proxy such as `/svc`. The tracker posts to `{collector}/e` and pixels `{collector}/p.gif`. */
  collector: string;
  /** Default `'none'`. */
  consent?: ConsentMode;
  /** Share cookies across subdomains, e.g. `.example.com`; host-only when the browser refuses it. */
  cookieDomain?: string;
  /** Lifetime of the identity cookies in days. Default 180. */
  cookieDays?: number;
  /** Automatic page views on `history.pushState`/`replaceState`/`popstate`. Default true.
   * `'hash'` for apps that route in the fragment (`/#/pricing`): a `hashchange` to a new route is a
   * page view too, its path includes the fragment. Otherwise a fragment change never counts. */
  spa?: boolean | 'hash';
  /** Treat Global Privacy Control and Do-Not-Track as a decline: nothing is sent and no cookie
   * set. Default true in `'opt-in'` mode, false otherwise. */
  respectPrivacySignals?: boolean;
  /** Log every command, send and ignored call to `console.debug`. */
  debug?: boolean;
}

/** What `addPrivacyConsentListener` callbacks receive. */
export interface PrivacyConsent {
  allowed: boolean;
  categories: { analytics: boolean };
}

/** Contact properties sent with the next page view or event; `email` identifies the visitor. */
export type Identity = { email?: string } & Record<string, string | number | boolean>;

/** A custom event: `id` is the event id or name, `value` adds to the contact's revenue, any other
 * key travels as an event property. */
export type CustomEvent = { id: string; value?: number } & Record<string, string | number | boolean | undefined>;

/** The commands, by name, with their arguments. */
export interface Commands {
  trackPageView(): void;
  setPath(path: string): void;
  setContentType(contentType: string): void;
  identify(identity: Identity): void;
  trackEvent(event: CustomEvent): void;
  doNotTrack(options?: { track?: boolean }): void;
  setConsent(allowed: boolean): void;
  addPrivacyConsentListener(listener: (consent: PrivacyConsent) => void): void;
  revokeCookieConsent(): void;
}

/** A queue entry: `[command, ...args]` or a function that receives the tracker. */
export type Command = { [K in keyof Commands]: [K, ...Parameters<Commands[K]>] }[keyof Commands];
export type QueueEntry = Command | ((tracker: Tracker) => void);

/** The running tracker: every command as a method, plus `push` for queue entries. */
export interface Tracker extends Commands {
  push(this: void, ...entries: QueueEntry[]): void;
}

/** The page's command queue: an array before the tracker loads, executed directly after. */
export type SvcQueue = QueueEntry[] & { t?: Tracker };

declare global {
  /** `window.svc`: one interface that each svc script extends (the form embed adds `forms`). */
  interface SvcGlobal {
    config?: Partial<TrackerConfig>;
  }
  interface Window {
    _svcq?: SvcQueue;
    svc?: SvcGlobal & Record<string, unknown>;
  }
}
