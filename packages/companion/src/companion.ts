/** The companion's core, behind both doors: from the resolved settings it builds the platform
 * client, the visitor cache, the event queue, the preference centre, the webhook receiver and the
 * script proxy once, puts their routes in one table behind one pipeline (CORS, rate limit, errors),
 * and gives the Node-side API (`events.track`, `links.preferences`, `getVisitor`, `close`). The
 * doors (src/doors/) only translate requests and answers. */
import { createClient, FileTokenStore, type Client } from '@svc/client';
import { preferenceLink } from '@svc/protocol/signed-token';
import type { Logger } from 'pino';
import { OutboxInUseError } from './events/outbox';
import { eventQueue, type EventQueue, type EventStats } from './events/queue';
import { eventsRoute } from './events/route';
import type { ServerEvent } from './events/event';
import { formVisitor } from './form-visitor';
import { forget, remember } from './get-visitor';
import { forms } from './forms';
import { health } from './health';
import { fromUpstream } from './http/errors';
import { pipeline, type Handle } from './http/pipeline';
import { rateLimiter } from './http/rate-limit';
import { router } from './http/router';
import { corsFor, securityHeaders } from './http/security';
import type { CompanionOptions } from './options';
import { bundle } from './proxy/assets';
import { collector } from './proxy/collector';
import { routeTable } from './routes';
import { resolveSettings, type Settings } from './settings';
import { sharedMode, type SharedMode } from './shared/mode';
import { preferencePage } from './subscriptions/page';
import { subscriptions } from './subscriptions/routes';
import { visitorCookies, visitors, type CookieSource, type VisitorAnswer } from './visitor';
import { webhookReceiver, type Webhooks } from './webhooks/receiver';
import { memorySeen, redisSeen } from './webhooks/seen';

export interface CompanionApi {
  /** The typed platform client the companion uses (same credentials, same token refresh). */
  client: Client;
  events: {
    /** Accepts a server-side event: resolves once it is in the outbox (it will be delivered). */
    track(event: ServerEvent): Promise<{ id: string }>;
    /** Sends what waits now. */
    flush(): Promise<void>;
    stats(): EventStats;
  };
  links: {
    /** A signed, expiring link to `email`'s preference centre, for the site's emails. Needs `publicUrl`. */
    preferences(email: string, options?: { ttlMs?: number }): string;
  };
  /** The platform's workflow webhooks (POST /webhooks): `webhooks.on('workflow', async (event) => …)`. */
  webhooks: Webhooks;
  /** Who the visitor of a request is, while rendering a page on the server: what `GET /visitor`
   * answers, from the same cache. Takes the `Cookie` header or a cookie store (Next.js `cookies()`).
   * Rejects with an `HttpError` when the platform fails, as the route answers 502/503/504. */
  getVisitor(cookies: CookieSource): Promise<VisitorAnswer>;
  /** Versioned script paths relative to the mount (e.g. `tracker.3f2a9c0d1e4b.js`), for long caching. */
  scripts(): Promise<{ tracker?: string; forms?: string }>;
  /** Sends waiting events (bounded by `timeoutMs`, default 10 s) and stops timers. Events not sent stay in the outbox. */
  close(options?: { timeoutMs?: number }): Promise<void>;
}

export interface CompanionCore {
  /** One request through the companion: the same for both doors. */
  handle: Handle;
  /** Headers a door takes off a host app's answer (helmet removes `X-Powered-By`). */
  removeHeaders: string[];
  /** The fetch door's mount path (`/svc`; `` for the root). */
  basePath: string;
  logger: Logger | undefined;
  api: CompanionApi;
}

/** The platform client: the one given, or one with the settings' credentials, timeout and pacing
 * (in shared mode a pacing budget and OAuth tokens in Redis, else tokens in a file). */
function platformClient(s: Settings, shared: SharedMode | undefined): Client {
  if (s.clientInstance) return s.clientInstance;
  const auth = s.auth!;
  const pacing =
    shared && Number.isFinite(s.pacing.max) && s.pacing.max > 0 ? { budget: shared.budget(auth, s.pacing) } : {};
  const tokenStore = () =>
    s.tokenStore ??
    (shared && 'oauth' in auth ? shared.tokenStore(auth.oauth.clientId) : new FileTokenStore(s.tokenFile));
  return createClient({
    ...s.client,
    ...pacing,
    clock: { now: s.now, ...s.client.clock },
    baseUrl: s.baseUrl,
    formsUrl: s.formsUrl,
    auth: 'oauth' in auth ? { oauth: { tokenStore: tokenStore(), ...auth.oauth } } : auth,
  });
}

/** The event queue: a Redis Stream in shared mode, else the file outbox. */
function eventsOf(s: Settings, client: Client, shared: SharedMode | undefined): EventQueue {
  const o = { flushAt: s.events.flushAt, maxQueueSize: s.events.maxQueueSize, now: s.now, logger: s.logger };
  const events = shared
    ? shared.events(client, { ...o, retryMs: s.events.flushIntervalMs, claimIdleMs: s.events.claimIdleMs })
    : eventQueue(client, { ...o, outboxFile: s.events.outboxFile, flushIntervalMs: s.events.flushIntervalMs });
  events.ready.catch((e) =>
    // The error's code only (a file system error names paths); ours says what to do.
    s.logger?.error(
      { err: { code: (e as NodeJS.ErrnoException).code } },
      e instanceof OutboxInUseError ? e.message : 'could not open the event outbox',
    ),
  );
  return events;
}

export function companionCore(options: CompanionOptions): CompanionCore {
  const s = resolveSettings(options);
  const { now, logger, upstreamTimeoutMs: timeoutMs } = s;
  const security = securityHeaders(s.helmet);

  // Shared mode: state in Redis; else in this process and files.
  const shared = s.redis ? sharedMode({ redis: s.redis, prefix: s.redisPrefix, logger }) : undefined;
  const client = platformClient(s, shared);
  const { cacheTtlMs, missTtlMs } = s.visitor;
  const people = visitors(client, {
    ...s.visitor,
    now,
    timeoutMs,
    // Nothing to share when nothing is cached: the in-process cache still makes one call per utk at a time.
    cache:
      shared && cacheTtlMs > 0
        ? shared.visitorCache({ ttlMs: cacheTtlMs, missTtlMs, loadTimeoutMs: timeoutMs })
        : undefined,
  });
  const events = eventsOf(s, client, shared);
  const definitions = forms(client, { cacheTtlMs: s.forms.cacheTtlMs, now, timeoutMs });
  const hooks = webhookReceiver({
    secret: s.webhooks.secret,
    url: s.webhooks.url,
    seen: shared ? redisSeen(shared.redis) : memorySeen(now),
    now,
    logger,
  });
  const tracker = bundle('tracker', s.proxy.trackerFile, 'tracker.js is not built: run `npm run build`');
  const formsJs = bundle(
    'forms',
    s.proxy.formsFile,
    'forms.js is not available: the form embed (@svc/forms) is not built or not installed',
  );

  const routes = routeTable({
    visitors: people,
    forms: definitions,
    formVisitor: formVisitor(client, definitions, people, { timeoutMs }),
    health: health(client, {
      now,
      timeoutMs: Math.min(timeoutMs, 3_000),
      events: events.depth,
      redis: shared?.redis.ping,
    }),
    subscriptions: subscriptions(client, people, {
      linkSecret: s.subscriptions.linkSecret,
      allowedOrigins: s.allowedOrigins,
      now,
      timeoutMs,
    }),
    page: preferencePage({ siteUrl: s.subscriptions.siteUrl, signUpUrl: s.subscriptions.signUpUrl }),
    events: eventsRoute(events, s.events.secret),
    webhooks: hooks.route,
    tracker,
    formsJs,
    collector: collector({
      baseUrl: s.baseUrl,
      dispatcher: s.client.dispatcher,
      timeoutMs,
      cookieDomain: s.proxy.cookieDomain,
      cookieDays: s.proxy.cookieDays,
    }),
  });
  const limit = s.rateLimit;
  const handle = pipeline({
    security,
    cors: corsFor(s.allowedOrigins),
    rateLimit: limit ? rateLimiter({ ...limit, store: shared?.rateLimitStore(limit.windowMs) }) : undefined,
    match: router(routes),
    logger,
  });

  // SIGTERM: send what waits, then let the signal do what it would have done.
  const onSigterm = () => {
    void api.close().finally(() => {
      if (process.listenerCount('SIGTERM') == 0) process.kill(process.pid, 'SIGTERM');
    });
  };
  if (s.events.handleSigterm) process.once('SIGTERM', onSigterm);

  const api: CompanionApi = {
    client,
    events: { track: events.track, flush: events.flush, stats: events.stats },
    webhooks: hooks.api,
    links: {
      preferences(email, o) {
        if (!s.publicUrl)
          throw new TypeError(
            'links.preferences needs the publicUrl option (where the companion is mounted, e.g. https://www.example.com/svc)',
          );
        if (typeof email != 'string' || !email.includes('@'))
          throw new TypeError('links.preferences needs an email address');
        const ttlMs = o?.ttlMs ?? s.subscriptions.linkTtlMs;
        return preferenceLink(
          `${s.publicUrl.replace(/\/+$/, '')}/preferences`,
          s.subscriptions.linkSecret,
          email,
          now() + ttlMs,
        );
      },
    },
    // What the route would answer: a failed platform call as the same neutral HttpError.
    getVisitor: async (cookies) => {
      const source = visitorCookies(cookies);
      try {
        return await people.answerFor(source);
      } catch (e) {
        throw fromUpstream(e);
      }
    },
    scripts: async () => ({ tracker: await tracker.versioned(), forms: await formsJs.versioned() }),
    async close(o) {
      forget(api);
      process.removeListener('SIGTERM', onSigterm);
      await events.close(o?.timeoutMs);
      await shared?.close();
    },
  };
  remember(api);
  return { handle, removeHeaders: security.remove, basePath: s.basePath, logger, api };
}
