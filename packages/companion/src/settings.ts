/** `createCompanion`'s options resolved once into `Settings`: every default applied (the plain ones
 * from `DEFAULTS`, the computed ones here with their reasons) and every check made, so that a bad
 * option is a TypeError at creation, before anything is opened, and the parts built from the
 * settings never look at raw options or keep a default of their own. */
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type { AuthOptions, ClientOptions, TokenStore } from '@svc/client';
import type { HelmetOptions } from 'helmet';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { companionLogger } from './http/logger';
import { checkOrigins } from './http/security';
import { DEFAULTS, type CompanionOptions } from './options';
import { pageLink } from './subscriptions/page';

export interface Settings {
  baseUrl: string;
  formsUrl: string | undefined;
  /** Undefined only with `clientInstance`. */
  auth: AuthOptions | undefined;
  clientInstance: CompanionOptions['clientInstance'];
  client: Partial<Omit<ClientOptions, 'baseUrl' | 'formsUrl' | 'auth'>>;
  /** The client's pacing (its rate limit), which shared mode turns into one budget for all instances. */
  pacing: { max: number; windowMs: number; marginMs: number };
  tokenStore: TokenStore | undefined;
  tokenFile: string;
  redis: string | Redis | undefined;
  redisPrefix: string;
  publicUrl: string | undefined;
  allowedOrigins: Set<string>;
  rateLimit: { limit: number; windowMs: number } | false;
  helmet: HelmetOptions | false;
  visitor: { properties: string[]; cacheTtlMs: number; missTtlMs: number; cacheSize: number };
  forms: { cacheTtlMs: number };
  events: {
    outboxFile: string;
    flushAt: number;
    flushIntervalMs: number;
    maxQueueSize: number;
    secret: string | undefined;
    claimIdleMs: number;
    handleSigterm: boolean;
  };
  webhooks: { secret: string | undefined; url: string | undefined };
  subscriptions: {
    linkSecret: string;
    /** False when the secret is random (this process's own). */
    linkSecretGiven: boolean;
    linkTtlMs: number;
    siteUrl: string;
    signUpUrl: string | undefined;
  };
  proxy: {
    trackerFile: string | undefined;
    formsFile: string | undefined;
    cookieDomain: string | undefined;
    cookieDays: number;
  };
  logger: Logger | undefined;
  now: () => number;
  upstreamTimeoutMs: number;
  basePath: string;
}

/** Resolves a package file, or undefined when the package or file is not there. */
function resolveFile(spec: string) {
  try {
    return createRequire(import.meta.url).resolve(spec);
  } catch {
    return undefined;
  }
}

/** `defaults` with the given keys that are not undefined over them (a config file or the CLI may
 * pass `undefined` for what it was not told, which must not replace a default). */
function withDefaults<T extends object>(defaults: T, given: Partial<T> | undefined): T {
  const out = { ...defaults };
  for (const [k, v] of Object.entries(given ?? {})) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

/** `/svc`, `svc/`, `/` → `/svc`, `/svc`, `` (no trailing slash; empty for the root). */
function basePath(path: string) {
  if (typeof path != 'string' || /[?#\s]/.test(path))
    throw new TypeError(`basePath must be a path such as /svc, not "${String(path).slice(0, 80)}"`);
  return `/${path.replace(/^\/+|\/+$/g, '')}`.replace(/^\/$/, '');
}

export function resolveSettings(options: CompanionOptions): Settings {
  if (!options || typeof options.baseUrl != 'string')
    throw new TypeError('createCompanion: baseUrl is required ({base_url} of the platform)');
  if (!options.clientInstance && !options.auth)
    throw new TypeError('createCompanion: auth is required (a private-app token or OAuth credentials)');
  // The companion runs on Node's built-ins (node:crypto, node:fs, node:zlib, undici): Node, Bun and
  // Deno have them; an edge runtime does not, and would fail later in a less clear place.
  if (typeof process == 'undefined' || typeof process.versions?.node != 'string')
    throw new TypeError(
      'createCompanion needs a runtime with Node.js built-ins (Node 20.19+, Bun, Deno); an edge runtime has none',
    );
  if (options.redis && !options.subscriptions?.linkSecret)
    throw new TypeError(
      'shared mode (redis) needs subscriptions.linkSecret (env SVC_COMPANION_LINK_SECRET): every instance must sign and check preference links and CSRF tokens with the same key, and a random one per process would make them fail on the others',
    );
  const given = options.subscriptions?.linkSecret;
  const linkSecret = given ?? randomBytes(32).toString('base64url');
  if (linkSecret.length < 32) throw new TypeError('subscriptions.linkSecret must be at least 32 characters');
  const logger = companionLogger(options.logger);
  if (!given) logger?.warn('no subscriptions.linkSecret: preference links stop working when this process ends');

  const upstreamTimeoutMs = options.upstreamTimeoutMs ?? DEFAULTS.upstreamTimeoutMs;
  const cacheTtlMs = options.visitor?.cacheTtlMs ?? DEFAULTS.visitor.cacheTtlMs;
  const auth = options.auth;
  const rateLimit = options.rateLimit;
  return {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    formsUrl: options.formsUrl,
    auth,
    clientInstance: options.clientInstance,
    // The client's own timeout is the browser request's bound: one lookup never outlives it.
    client: withDefaults<Settings['client']>({ timeoutMs: upstreamTimeoutMs, ...DEFAULTS.client }, options.client),
    pacing: {
      // The client's own defaults (100 requests per 10 s, the platform's limit) when not given.
      max: options.client?.rateLimit?.max ?? 100,
      windowMs: options.client?.rateLimit?.windowMs ?? 10_000,
      marginMs: options.pacingMarginMs ?? DEFAULTS.pacingMarginMs,
    },
    tokenStore: options.tokenStore,
    tokenFile: options.tokenFile ?? DEFAULTS.tokenFile,
    redis: options.redis,
    redisPrefix: options.redisPrefix ?? DEFAULTS.redisPrefix,
    publicUrl: options.publicUrl,
    allowedOrigins: checkOrigins(options.allowedOrigins ?? DEFAULTS.allowedOrigins),
    rateLimit:
      rateLimit === false ? false : withDefaults<{ limit: number; windowMs: number }>(DEFAULTS.rateLimit, rateLimit),
    helmet: options.helmet === false ? false : (options.helmet ?? DEFAULTS.helmet),
    visitor: {
      properties: [...(options.visitor?.properties ?? DEFAULTS.visitor.properties)],
      cacheTtlMs,
      // A miss is never kept longer than a hit.
      missTtlMs: Math.min(options.visitor?.missTtlMs ?? DEFAULTS.visitor.missTtlMs, cacheTtlMs),
      cacheSize: options.visitor?.cacheSize ?? DEFAULTS.visitor.cacheSize,
    },
    forms: { cacheTtlMs: options.forms?.cacheTtlMs ?? DEFAULTS.forms.cacheTtlMs },
    events: withDefaults<Settings['events']>({ ...DEFAULTS.events, secret: undefined }, options.events),
    webhooks: {
      // The platform signs with the OAuth app's client secret; a private-app token has none.
      secret: options.webhooks?.secret ?? (auth && 'oauth' in auth ? auth.oauth.clientSecret : undefined),
      url: options.webhooks?.url,
    },
    subscriptions: {
      linkSecret,
      linkSecretGiven: given !== undefined,
      linkTtlMs: options.subscriptions?.linkTtlMs ?? DEFAULTS.subscriptions.linkTtlMs,
      // Checked here: a link that would leave http(s) is a TypeError at creation.
      siteUrl: pageLink('siteUrl', options.subscriptions?.siteUrl) ?? DEFAULTS.subscriptions.siteUrl,
      signUpUrl: pageLink('signUpUrl', options.subscriptions?.signUpUrl),
    },
    proxy: {
      trackerFile: options.proxy?.trackerFile ?? resolveFile('@svc/tracker/tracker.js'),
      // The form embed is optional: without it, forms.js answers a clear 404.
      formsFile: options.proxy?.formsFile ?? resolveFile('@svc/forms/forms.js'),
      cookieDomain: options.proxy?.cookieDomain,
      cookieDays: options.proxy?.cookieDays ?? DEFAULTS.proxy.cookieDays,
    },
    logger,
    now: options.now ?? Date.now,
    upstreamTimeoutMs,
    basePath: basePath(options.basePath ?? DEFAULTS.basePath),
  };
}
