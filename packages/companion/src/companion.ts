/** `createCompanion(options)`: an Express router to mount in the site's app (Express 4 or 5),
 * keeping the platform credentials server-side. It carries the Node-side API too:
 * `companion.events.track(...)`, `companion.links.preferences(email)`, `companion.close()`. */
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { createClient, FileTokenStore, type Client } from '@svc/client';
import { BATCH_FILE, COLLECT_PATH, MAX_BATCH_BYTES, PIXEL_FILE } from '@svc/protocol';
import { preferenceLink } from '@svc/protocol/signed-token';
import express, { type Router } from 'express';
import type { HelmetOptions } from 'helmet';
import { HttpError, errorMiddleware, handle, timingSafeSecret } from './http/errors';
import { companionLogger } from './http/logger';
import { checkOrigins, security } from './http/security';
import { OutboxInUseError } from './events/outbox';
import { eventQueue, type EventQueue, type EventStats } from './events/queue';
import type { ServerEvent } from './events/event';
import { formVisitor } from './form-visitor';
import { forms } from './forms';
import { health } from './health';
import type { CompanionOptions } from './options';
import { bundle } from './proxy/assets';
import { collector } from './proxy/collector';
import { sharedMode } from './shared/mode';
import { preferencePage } from './subscriptions/page';
import { subscriptions } from './subscriptions/routes';
import { visitors } from './visitor';
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
  /** Versioned script paths relative to the mount (e.g. `tracker.3f2a9c0d1e4b.js`), for long caching. */
  scripts(): Promise<{ tracker?: string; forms?: string }>;
  /** Sends waiting events (bounded by `timeoutMs`, default 10 s) and stops timers. Events not sent stay in the outbox. */
  close(options?: { timeoutMs?: number }): Promise<void>;
}

export type Companion = Router & CompanionApi;

const DAY = 86_400_000;

/** helmet's defaults, less `upgrade-insecure-requests`: on a plain-http development site it would
 * send the preference page's script and style to https and break the page. */
const DEFAULT_HELMET: HelmetOptions = { contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } };

/** Resolves a package file, or undefined when the package or file is not there. */
function resolveFile(spec: string) {
  try {
    return createRequire(import.meta.url).resolve(spec);
  } catch {
    return undefined;
  }
}

export function createCompanion(options: CompanionOptions): Companion {
  if (!options || typeof options.baseUrl != 'string') throw new TypeError('createCompanion: baseUrl is required ({base_url} of the platform)');
  if (!options.clientInstance && !options.auth) throw new TypeError('createCompanion: auth is required (a private-app token or OAuth credentials)');
  const now = options.now ?? Date.now;
  const logger = companionLogger(options.logger);
  const timeoutMs = options.upstreamTimeoutMs ?? 8_000;
  const allowedOrigins = checkOrigins(options.allowedOrigins ?? []);
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  if (options.redis && !options.subscriptions?.linkSecret)
    throw new TypeError(
      'shared mode (redis) needs subscriptions.linkSecret (env SVC_COMPANION_LINK_SECRET): every instance must sign and check preference links and CSRF tokens with the same key, and a random one per process would make them fail on the others',
    );
  const linkSecret = options.subscriptions?.linkSecret ?? randomBytes(32).toString('base64url');
  if (linkSecret.length < 32) throw new TypeError('subscriptions.linkSecret must be at least 32 characters');
  if (!options.subscriptions?.linkSecret) logger?.warn('no subscriptions.linkSecret: preference links stop working when this process ends');
  // Checked here, before anything is opened: a bad address is a TypeError at once.
  const page = preferencePage({ siteUrl: options.subscriptions?.siteUrl, signUpUrl: options.subscriptions?.signUpUrl });

  // Shared mode: state in Redis; else in this process and files.
  const shared = options.redis ? sharedMode({ redis: options.redis, prefix: options.redisPrefix, logger }) : undefined;
  const pacing = { max: options.client?.rateLimit?.max ?? 100, windowMs: options.client?.rateLimit?.windowMs ?? 10_000, marginMs: options.pacingMarginMs };
  const auth = options.auth;
  const client =
    options.clientInstance ??
    createClient({
      timeoutMs,
      retries: 2,
      maxRetryAfterMs: 2_000,
      ...options.client,
      ...(shared && Number.isFinite(pacing.max) && pacing.max > 0 && { budget: shared.budget(auth, pacing) }),
      clock: { now, ...options.client?.clock },
      baseUrl,
      formsUrl: options.formsUrl,
      auth:
        'oauth' in auth
          ? {
              oauth: {
                tokenStore:
                  options.tokenStore ?? (shared ? shared.tokenStore(auth.oauth.clientId) : new FileTokenStore(options.tokenFile ?? '.data/companion-tokens.json')),
                ...auth.oauth,
              },
            }
          : auth,
    });

  const cacheTtlMs = options.visitor?.cacheTtlMs ?? 30_000;
  const missTtlMs = Math.min(options.visitor?.missTtlMs ?? 2_000, cacheTtlMs);
  const people = visitors(client, {
    properties: options.visitor?.properties ?? ['firstname', 'lastname', 'company'],
    cacheTtlMs,
    missTtlMs,
    cacheSize: options.visitor?.cacheSize ?? 10_000,
    now,
    timeoutMs,
    // Nothing to share when nothing is cached: the in-process cache still makes one call per utk at a time.
    cache: shared && cacheTtlMs > 0 ? shared.visitorCache({ ttlMs: cacheTtlMs, missTtlMs, loadTimeoutMs: timeoutMs }) : undefined,
  });
  const eventOptions = {
    flushAt: options.events?.flushAt ?? 20,
    maxQueueSize: options.events?.maxQueueSize ?? 10_000,
    now,
    logger,
  };
  const events: EventQueue = shared
    ? shared.events(client, { ...eventOptions, retryMs: options.events?.flushIntervalMs ?? 5_000, claimIdleMs: options.events?.claimIdleMs ?? 30_000 })
    : eventQueue(client, {
        ...eventOptions,
        outboxFile: options.events?.outboxFile ?? '.data/companion-outbox.jsonl',
        flushIntervalMs: options.events?.flushIntervalMs ?? 5_000,
      });
  events.ready.catch((e) =>
    // The error's code only (a file system error names paths); ours says what to do.
    logger?.error({ err: { code: (e as NodeJS.ErrnoException).code } }, e instanceof OutboxInUseError ? e.message : 'could not open the event outbox'),
  );
  const prefs = subscriptions(client, people, { linkSecret, allowedOrigins, now, timeoutMs });
  const tracker = bundle('tracker', options.proxy?.trackerFile ?? resolveFile('@svc/tracker/tracker.js'), 'tracker.js is not built: run `npm run build`');
  const formsJs = bundle(
    'forms',
    options.proxy?.formsFile ?? resolveFile('@svc/forms/forms.js'),
    'forms.js is not available: the form embed (@svc/forms) is not built or not installed',
  );
  const collect = collector({
    baseUrl,
    dispatcher: options.client?.dispatcher,
    timeoutMs,
    cookieDomain: options.proxy?.cookieDomain,
    cookieDays: options.proxy?.cookieDays ?? 180,
  });

  const router = express.Router();
  router.use(
    ...security({
      allowedOrigins,
      helmet: options.helmet === false ? false : (options.helmet ?? DEFAULT_HELMET),
      rateLimit:
        options.rateLimit === false
          ? false
          : {
              limit: options.rateLimit?.limit ?? 600,
              windowMs: options.rateLimit?.windowMs ?? 60_000,
              store: shared?.rateLimitStore(options.rateLimit?.windowMs ?? 60_000),
            },
    }),
  );
  const json = express.json({ limit: '64kb' });

  router.get('/visitor', people.route);
  const definitions = forms(client, { cacheTtlMs: options.forms?.cacheTtlMs ?? 60_000, now, timeoutMs });
  router.get('/forms/:guid', handle(definitions.route));
  router.get('/forms/:guid/visitor', handle(formVisitor(client, definitions, people, { timeoutMs })));
  router.get('/healthz', handle(health(client, { now, timeoutMs: Math.min(timeoutMs, 3_000), events: events.depth, redis: shared?.redis.ping })));

  router.get('/subscriptions', handle(prefs.get));
  router.put('/subscriptions', json, handle(prefs.put));
  router.get('/preferences', page.html);
  router.get('/preferences.js', page.js);
  router.get('/preferences.css', page.css);

  const secret = options.events?.secret;
  router.post(
    '/events',
    (req, _res, next) => {
      if (!secret) return next(new HttpError(404, 'POST /events is off: set events.secret to let other backends send events'));
      const auth = req.get('authorization') ?? '';
      if (!auth.startsWith('Bearer ') || !timingSafeSecret(auth.slice(7), secret)) return next(new HttpError(401, 'send the shared secret as Authorization: Bearer <secret>'));
      next();
    },
    json,
    handle(async (req, res) => {
      const body = req.body as unknown;
      if (!req.is('application/json')) throw new HttpError(415, 'send events as application/json');
      const list = body && typeof body == 'object' && 'events' in body ? (body as { events: unknown }).events : [body];
      if (!Array.isArray(list) || list.length == 0 || list.length > 100) throw new HttpError(400, 'events: send one event, or {"events": [...]} with 1 to 100');
      const { ids } = await events.accept(list);
      res.status(202).json({ accepted: ids.length, ids });
    }),
  );

  // Signed calls from the platform's workflows; the raw body, since the signature covers it.
  const hooks = webhookReceiver({
    secret: options.webhooks?.secret ?? (auth && 'oauth' in auth ? auth.oauth.clientSecret : undefined),
    url: options.webhooks?.url,
    seen: shared ? redisSeen(shared.redis) : memorySeen(now),
    now,
    logger,
  });
  router.post('/webhooks', express.raw({ type: () => true, limit: '1mb' }), handle(hooks.route));

  router.get('/tracker.js', handle((req, res) => tracker.serve(req, res)));
  router.get('/forms.js', handle((req, res) => formsJs.serve(req, res)));
  router.get('/:script.:hash.js', handle(async (req, res) => {
    const { script, hash } = req.params as { script: string; hash: string };
    if (script == 'tracker') return tracker.serve(req, res, hash);
    if (script == 'forms') return formsJs.serve(req, res, hash);
    throw new HttpError(404, `no script ${script.slice(0, 40)}.js here`);
  }));
  // The tracker with data-collector="<mount>" sends to <mount>/e and <mount>/p.gif; /collect/... mirrors the platform's paths.
  const raw = express.raw({ type: () => true, limit: MAX_BATCH_BYTES });
  for (const prefix of ['', COLLECT_PATH]) {
    router.post(`${prefix}/${BATCH_FILE}`, raw, handle(collect.batch));
    router.get(`${prefix}/${PIXEL_FILE}`, handle(collect.pixel));
  }

  router.use((req, _res, next) => next(new HttpError(404, `no companion route ${req.method} ${req.path.slice(0, 100)}`)));
  router.use(errorMiddleware(logger));

  // SIGTERM: send what waits, then let the signal do what it would have done.
  const onSigterm = () => {
    void api.close().finally(() => {
      if (process.listenerCount('SIGTERM') == 0) process.kill(process.pid, 'SIGTERM');
    });
  };
  if (options.events?.handleSigterm ?? true) process.once('SIGTERM', onSigterm);

  const api: CompanionApi = {
    client,
    events: { track: events.track, flush: events.flush, stats: events.stats },
    webhooks: hooks.api,
    links: {
      preferences(email, o) {
        if (!options.publicUrl) throw new TypeError('links.preferences needs the publicUrl option (where the companion is mounted, e.g. https://www.example.com/svc)');
        if (typeof email != 'string' || !email.includes('@')) throw new TypeError('links.preferences needs an email address');
        const ttlMs = o?.ttlMs ?? options.subscriptions?.linkTtlMs ?? 30 * DAY;
        return preferenceLink(`${options.publicUrl.replace(/\/+$/, '')}/preferences`, linkSecret, email, now() + ttlMs);
      },
    },
    scripts: async () => ({ tracker: await tracker.versioned(), forms: await formsJs.versioned() }),
    async close(o) {
      process.removeListener('SIGTERM', onSigterm);
      await events.close(o?.timeoutMs);
      await shared?.close();
    },
  };
  return Object.assign(router, api);
}
