/** The options of `createCompanion`, and `DEFAULTS`: every default that is a plain value, in one
 * place (settings.ts applies them; the README's options table is checked against this constant by
 * test/defaults.test.ts). Defaults computed at creation (the token store, the logger, a random link
 * secret, the bundles' files) are in settings.ts, each with its reason. */
import type { AuthOptions, Client, ClientOptions, TokenStore } from '@svc/client';
import type { HelmetOptions } from 'helmet';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

export interface CompanionOptions {
  /** `{base_url}` of the platform, e.g. `http://127.0.0.1:3200`. */
  baseUrl: string;
  /** `{forms_url}`; default as the client derives it from `baseUrl`. */
  formsUrl?: string;
  /** Platform credentials. OAuth (`{ oauth: {...} }`) is refreshed through `/auth/v1/refresh`
   * with its tokens in `tokenStore`; `{ accessToken }` is a private-app token. */
  auth: AuthOptions;
  /** Where OAuth tokens are kept between refreshes (rotated refresh tokens included).
   * Default: a `FileTokenStore` at `tokenFile`. */
  tokenStore?: TokenStore;
  /** The file of the default token store; default `.data/companion-tokens.json`. */
  tokenFile?: string;
  /** Extra options for the underlying `@svc/client` (pacing, retries, dispatcher, ...). */
  client?: Partial<Omit<ClientOptions, 'baseUrl' | 'formsUrl' | 'auth'>>;
  /** A ready client to use instead of building one (then `auth` and `client` are ignored). */
  clientInstance?: Client;

  /** Shared mode: `redis://…` (or a ready ioredis client). Every companion process on the same Redis
   * (and `redisPrefix`) shares OAuth tokens, the event queue, the visitor cache, the route rate
   * limit and the client's pacing budget, and behaves as one companion. Needs
   * `subscriptions.linkSecret`. Default: none (everything in this process, events in a file). */
  redis?: string | Redis;
  /** Prefix of every Redis key; default `svc:companion:`. */
  redisPrefix?: string;
  /** Shared mode: the pacing budget's window is widened by this much for the way from a companion
   * to the platform (a request taken at the end of one window may arrive in the next); default
   * 200 ms. Raise it when the platform is far away or the hosts are busy. */
  pacingMarginMs?: number;

  /** Where the companion is reachable from the browser, including its mount path, e.g.
   * `https://www.example.com/svc`. Needed for `links.preferences(email)`. */
  publicUrl?: string;
  /** Origins allowed to call the companion with credentials (CORS). Default: none (same origin only). `*` is refused. */
  allowedOrigins?: string[];
  /** Per-IP rate limit (express-rate-limit); default 600 requests per minute; `false` turns it off. */
  rateLimit?: { limit?: number; windowMs?: number } | false;
  /** helmet options (they replace the default: helmet's, less upgrade-insecure-requests); `false` turns helmet off (when the host app sets the headers). */
  helmet?: HelmetOptions | false;

  visitor?: {
    /** Contact properties `/visitor` may answer with; default firstname, lastname, company. */
    properties?: string[];
    /** How long a found visitor is cached per utk; default 30 s. 0 turns caching off. */
    cacheTtlMs?: number;
    /** How long "not known" is cached per utk; default 2 s (a form submission makes a visitor
     * known at once, and it goes to {forms_url}, past the companion). 0: never cached. */
    missTtlMs?: number;
    /** Most utks kept in the cache; default 10,000 (oldest dropped first). */
    cacheSize?: number;
  };
  forms?: {
    /** How long a form's public definition is cached; default 60 s. */
    cacheTtlMs?: number;
  };
  events?: {
    /** The file outbox for accepted events; default `.data/companion-outbox.jsonl`. */
    outboxFile?: string;
    /** Send when this many events wait; default 20. */
    flushAt?: number;
    /** Send at least this often; default 5,000 ms. */
    flushIntervalMs?: number;
    /** Events kept waiting at most; beyond it new events are refused (never dropped). Default 10,000. */
    maxQueueSize?: number;
    /** Shared secret other backends send as `Authorization: Bearer <secret>` to `POST /events`. Without it `POST /events` answers 404. */
    secret?: string;
    /** Shared mode: events another instance left pending this long are taken over and sent
     * (that instance is presumed dead); default 30,000 ms. */
    claimIdleMs?: number;
    /** Flush and close on SIGTERM; default true. */
    handleSigterm?: boolean;
  };
  /** The platform's workflow webhooks at `POST /webhooks` (handlers: `companion.webhooks.on`). */
  webhooks?: {
    /** The key their signatures are checked with: the client secret of the OAuth app the platform
     * signs with. Default: `auth.oauth.clientSecret`; without either the route answers 404. */
    secret?: string;
    /** The full URL the platform calls (`https://www.example.com/svc/webhooks`), when a proxy in
     * front changes the host or scheme this server sees; default: the request's own. */
    url?: string;
  };
  subscriptions?: {
    /** The HMAC key of preference links and CSRF tokens (at least 32 characters). Default: random per
     * process (links die with it); required in shared mode, where every instance must use the same. */
    linkSecret?: string;
    /** How long a preference link works; default 30 days. */
    linkTtlMs?: number;
    /** Where the preference page's "Back to the site" goes: a path (`/`) or an http(s) URL; default `/`. */
    siteUrl?: string;
    /** Where a visitor the site does not know yet can say who they are (a sign-up or contact
     * form); the preference page offers it next to "open the link in one of our emails". */
    signUpUrl?: string;
  };
  proxy?: {
    /** The tracker bundle to serve; default `@svc/tracker`'s `dist/tracker.js`. */
    trackerFile?: string;
    /** The forms bundle to serve; default `@svc/forms`'s `dist/forms.js` when it exists. */
    formsFile?: string;
    /** Domain of the re-issued `svcutk` cookie, e.g. `.example.com`; default host-only. */
    cookieDomain?: string;
    /** Lifetime of the re-issued `svcutk` cookie; default 180 days (as the tracker's). */
    cookieDays?: number;
  };
  /** A pino logger, or `false` for none; default a pino logger at `info` on stdout. Credentials and PII are redacted either way. */
  logger?: Logger | false;
  /** Time for caches, tokens and link expiry; tests pass a moved one. Default `Date.now`. */
  now?: () => number;
  /** Upper bound for one browser request's platform calls; default 8 s. */
  upstreamTimeoutMs?: number;
  /** The fetch door only: the path the routes live under, e.g. `/svc` for `/svc/visitor`; requests
   * outside it answer 404. (The Express door takes its mount path from Express.) Default `/svc`. */
  basePath?: string;
}

/** helmet's defaults, less `upgrade-insecure-requests`: on a plain-http development site it would
 * send the preference page's script and style to https and break the page. */
const HELMET: HelmetOptions = { contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } };

/** The defaults that are plain values. Nested groups are merged key by key with the options given. */
export const DEFAULTS = {
  redisPrefix: 'svc:companion:',
  pacingMarginMs: 200,
  tokenFile: '.data/companion-tokens.json',
  client: { retries: 2, maxRetryAfterMs: 2_000 },
  allowedOrigins: [] as string[],
  rateLimit: { limit: 600, windowMs: 60_000 },
  helmet: HELMET,
  visitor: {
    properties: ['firstname', 'lastname', 'company'],
    cacheTtlMs: 30_000,
    missTtlMs: 2_000,
    cacheSize: 10_000,
  },
  forms: { cacheTtlMs: 60_000 },
  events: {
    outboxFile: '.data/companion-outbox.jsonl',
    flushAt: 20,
    flushIntervalMs: 5_000,
    maxQueueSize: 10_000,
    claimIdleMs: 30_000,
    handleSigterm: true,
  },
  subscriptions: { linkTtlMs: 2_592_000_000, siteUrl: '/' },
  proxy: { cookieDays: 180 },
  upstreamTimeoutMs: 8_000,
  basePath: '/svc',
} as const satisfies { [K in keyof CompanionOptions]?: unknown };
