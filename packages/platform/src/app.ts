/** The platform: two Express apps on one database — `{base_url}` (the API, OpenAPI document) and
 * `{forms_url}` (form submissions, CORS enabled). The database is a SQLite file (one process) or
 * PostgreSQL (several processes on one database). */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createServer, type RequestListener, type Server } from 'node:http';
import { openApiDocument } from '@svc/api';
import cors from 'cors';
import express from 'express';
import { pino, type Logger } from 'pino';
import { backgroundErrors } from './background-errors';
import { type Checkpointer, startCheckpointer } from './db/checkpointer';
import type { Engine } from './db/engine';
import { isPostgresUrl, postgresEngine, type PostgresEngine } from './db/engine-postgres';
import { sqliteEngine } from './db/engine-sqlite';
import { type Db, openDatabase } from './db/open';
import { migratePostgres, staleStatisticsWarning } from './db/open-postgres';
import { allHandlers } from './handlers';
import { authenticator } from './http/auth';
import { answerClientError } from './http/client-error';
import { clientIp } from './http/client-ip';
import { collector, COLLECTOR_ROUTES } from './http/collector';
import { formSubmissions } from './http/form-submissions';
import { addressLimiter, type Counters, rateLimiter, type RateLimitOptions } from './http/rate-limit';
import { postgresCounters } from './http/rolling-window';
import { mountCatalog } from './http/router';
import { mountFileServer } from './http/file-server';
import { type Addresses, mountBaseIndex, mountFormsIndex } from './http/index-page';
import { mountScripts } from './http/scripts';
import { mountSite } from './http/site';
import { inspectorRouter } from './inspector/router';
import { MIN_ADMIN_KEY_LENGTH } from './admin/guard';
import { adminRouter } from './admin/router';
import { twinParts } from './twin-parts';
import { DEMO_NAME, DEMO_PORTAL, seedDemoContent } from './seed';
import { clockAdvance } from './services/clock-advance';
import { snapshots } from './services/snapshot';
import { createServices, type WebhookSettings } from './services/wiring';
import { settableClock } from './util/clock';
import type { PreferenceLinks } from './store/email';
import type { IpOrganization } from './store/prospects';

export interface PlatformOptions {
  /** Where the data lives: a PostgreSQL URL (`postgres://…` or `postgresql://…`; several platform
   * processes may share the database), a SQLite file, or `:memory:`. Default `.data/platform.db`. */
  database?: string;
  /** The API budget per portal (per app and portal for OAuth); default 100 requests in any 10 s. */
  rateLimit?: RateLimitOptions;
  /** Per-address limit of each public route (form submission, OAuth refresh, events pixel);
   * default 60 requests in any minute; `false` turns it off. */
  publicRateLimit?: RateLimitOptions | false;
  /** Per-address limit of each of the collector's routes (`/collect/e`, `/collect/p.gif`), a batch
   * counting once: default 1,000 requests in any minute (far above a tracker's traffic, which
   * batches: see the README's Rate limits); `false` turns it off. */
  collectorRateLimit?: RateLimitOptions | false;
  /** Lifetime of OAuth access tokens in seconds; default 1800. */
  tokenLifetimeSeconds?: number;
  /** Issue a new refresh token on every refresh (the old one stops working). Default false. */
  rotateRefreshTokens?: boolean;
  /** PostgreSQL: the collector's writes wait for the database server's disk flush as well (by
   * default they do not: what was acknowledged survives the platform's crash, and only the
   * database server's own crash can lose its last fraction of a second, the guarantee every
   * SQLite write has here). */
  syncTrackingCommits?: boolean;
  /** The clock (tests move it); the admin surface's clock (`platform.clock`) runs on from it. */
  now?: () => number;
  /** Check every success body against the catalog's response schema (a 500 when off it). */
  checkResponses?: boolean;
  /** For workflow webhooks (tests pass their own). */
  fetch?: typeof fetch;
  /** Workflow webhooks' retries (default: for 24 h, the first retry in 15–30 s) and how often due
   * attempts are looked for (default 1 s); tests shorten them. */
  webhooks?: WebhookSettings;
  /** Where uploaded files' bytes are kept; default: `files/` next to the SQLite database, a
   * temporary directory (removed on close) for `:memory:`, `.data/files` on PostgreSQL. */
  filesDir?: string;
  /** The IP → organisation mapping of prospects; default: a small built-in sample. */
  prospects?: IpOrganization[];
  /** Structured logs; default: info to stdout. `false` silences them. */
  logger?: Logger | false;
  /** Turns on the inspector page at {base_url}/_inspector/ with this key (see src/inspector). */
  inspectorKey?: string;
  /** Peers whose `X-Forwarded-For` names the visitor's address (prospects); default loopback. */
  trustedProxies?: string[];
  /** The address the public reaches `{base_url}` at (`https://svc.example.com`), when it is not the
   * one the platform listens on (behind a proxy, or listening on 0.0.0.0): the URLs in records —
   * posts, pages, blogs' `root_url`, files, blog v1's `webUrl` — start with it. */
  publicUrl?: string;
  /** The preference links in the emails workflows send (the inspector's mail view shows them):
   * `url`, the companion's preference page (`https://www.example.com/svc/preferences`), and
   * `secret`, the companion's `subscriptions.linkSecret` (at least 32 characters), which signs
   * them in its token format; `ttlMs`, how long a link works (default 30 days). Without them the
   * emails carry no preference link. The secret is never shown: not in an answer, a log line or
   * an error. */
  preferenceLinks?: { url: string; secret: string; ttlMs?: number };
  /** Emails the mail catcher keeps per portal, the newest (default 500). */
  outboxKeep?: number;
  /** Turns on the admin API at {base_url}/_admin/ (see src/admin/router.ts) with a new random
   * key, which the platform's `adminKey` holds; `adminKey` gives the key instead. */
  admin?: boolean;
  /** The admin API's key (at least 16 characters without spaces); turns the admin API on. */
  adminKey?: string;
  /** Requests the admin API's journal keeps, the newest (default 1000; 0 keeps none). */
  journalSize?: number;
}

/** The admin API's key: the one given (checked), a new one for `admin: true`, or none (off). */
function adminKeyOf(options: PlatformOptions) {
  const given = options.adminKey;
  if (given !== undefined) {
    if (typeof given != 'string' || given.length < MIN_ADMIN_KEY_LENGTH || /\s/.test(given))
      throw new TypeError(`adminKey (--admin-key) must be at least ${MIN_ADMIN_KEY_LENGTH} characters without spaces`);
    return given;
  }
  return options.admin ? randomBytes(24).toString('base64url') : undefined;
}

/** A public URL as the start of other URLs: http(s), no query or fragment, no trailing slash. */
function publicAddress(raw: string) {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!url || !/^https?:$/.test(url.protocol) || url.search || url.hash || url.username || url.password)
    throw new TypeError(
      `publicUrl (--public-url) must be an http or https URL without query, fragment or credentials, not "${raw}"`,
    );
  return url.origin + url.pathname.replace(/\/+$/, '');
}

/** The engine on the database `database` names. PostgreSQL's pool connects when first used, so
 * this stays synchronous; what needs the database before serving (migrating, seeding) is the
 * platform's `ready`. `db`, better-sqlite3's database, is SQLite's only (its WAL checkpointer
 * needs it). */
function openEngine(
  database: string,
  afterCommit: () => void,
  log: Logger,
): { engine: Engine; db?: Db; postgres?: PostgresEngine } {
  if (isPostgresUrl(database)) {
    const postgres = postgresEngine(database, {
      onError: (err) => log.warn({ err: err.message }, 'an idle PostgreSQL connection failed; the pool replaces it'),
    });
    return { engine: postgres, postgres };
  }
  const db = openDatabase(database);
  return { engine: sqliteEngine(db, { groupCommit: true, afterCommit }), db };
}

/** A warning in the log when PostgreSQL's statistics may go stale (db/open-postgres.ts). */
async function warnOfStaleStatistics(engine: Engine, log: Logger) {
  const warning = await staleStatisticsWarning(engine);
  if (warning) log.warn(warning);
}

/** The preference links' settings checked; no message names the secret. */
function preferenceLinksOf(given: PlatformOptions['preferenceLinks']): PreferenceLinks | undefined {
  if (given === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(given.url);
  } catch {
    url = undefined;
  }
  if (!url || !/^https?:$/.test(url.protocol) || url.hash || url.username || url.password)
    throw new TypeError(
      `preferenceLinks.url (SVC_PREFERENCES_URL) must be the http or https address of the companion's preference page, without fragment or credentials, not "${String(given.url).slice(0, 200)}"`,
    );
  if (typeof given.secret != 'string' || given.secret.length < 32)
    throw new TypeError(
      "preferenceLinks.secret (SVC_PREFERENCES_SECRET) must be the companion's subscriptions.linkSecret, at least 32 characters",
    );
  const ttlMs = given.ttlMs ?? 30 * 24 * 3_600_000;
  if (!Number.isInteger(ttlMs) || ttlMs <= 0)
    throw new TypeError('preferenceLinks.ttlMs must be a positive whole number of milliseconds');
  return { url: url.href, secret: given.secret, ttlMs };
}

export type Platform = ReturnType<typeof createPlatform>;

export function createPlatform(options: PlatformOptions = {}) {
  /** The one clock everything reads: the given one (or the wall clock) plus what the admin
   * surface moved it by. */
  const clock = settableClock(options.now ?? Date.now);
  const now = clock.now;
  const publicUrl = options.publicUrl === undefined ? undefined : publicAddress(options.publicUrl);
  const preferenceLinks = preferenceLinksOf(options.preferenceLinks);
  const adminKey = adminKeyOf(options);
  const log = options.logger === false ? pino({ level: 'silent' }) : (options.logger ?? pino());
  const background = backgroundErrors(log);
  const database = options.database ?? '.data/platform.db';
  /** What runs after each SQLite commit: the WAL checkpointer, once the servers listen. */
  let afterCommit: (() => void) | undefined;
  const { engine, db, postgres } = openEngine(database, () => afterCommit?.(), log);
  const temporaryFiles = !options.filesDir && database == ':memory:';
  const filesDir =
    options.filesDir ??
    (temporaryFiles
      ? mkdtempSync(join(tmpdir(), 'svc-files-'))
      : postgres
        ? join('.data', 'files')
        : join(dirname(database), 'files'));
  const settings = {
    tokenLifetimeSeconds: options.tokenLifetimeSeconds ?? 1800,
    rotateRefreshTokens: options.rotateRefreshTokens ?? false,
  };
  const services = createServices(engine, now, {
    preferenceLinks,
    outboxKeep: options.outboxKeep,
    fetch: options.fetch,
    webhooks: options.webhooks,
    onError: background('webhook sender'),
    prospects: options.prospects,
    filesDir,
    oauth: settings,
    syncTrackingCommits: options.syncTrackingCommits,
    recordTokens: adminKey !== undefined,
  });
  if (publicUrl) services.content.site.base = publicUrl;
  /** Migrated (PostgreSQL) and older portals seeded; rejects when the database cannot be reached. */
  const ready = (
    postgres ? migratePostgres(postgres).then(() => warnOfStaleStatistics(postgres, log)) : Promise.resolve()
  )
    .then(() => services.seedOlderPortals())
    .then(() => undefined);
  ready.catch(() => {}); // seen by whoever awaits it (listen); never an unhandled rejection
  const settled = () => engine.settled();
  const handlers = allHandlers(services, log);
  const ipOf = clientIp(options.trustedProxies);
  // Rate limits count in this process's memory on SQLite (one process), in the database on
  // PostgreSQL so that every process on it spends one budget.
  const counters = (prefix: string): Counters | undefined =>
    postgres && ((windowMs) => postgresCounters(postgres.pool, windowMs, prefix));
  const apiLimit = options.rateLimit ?? { max: 100, windowMs: 10_000 };
  const twin = adminKey ? twinParts(adminKey, options.journalSize, services) : undefined;
  const authenticate = authenticator(services.credentials, engine, now);
  const deps = {
    handlers,
    clientIp: ipOf,
    authenticate: twin ? twin.noting(authenticate) : authenticate,
    limit: rateLimiter(apiLimit, now, counters('api')),
    limitAddress:
      options.publicRateLimit === false
        ? undefined
        : addressLimiter(options.publicRateLimit ?? { max: 60, windowMs: 60_000 }, now, counters('public')),
    log,
    checkResponses: options.checkResponses,
    write: services.write,
    engine,
    settled,
  };

  const moves = clockAdvance(engine, clock, services);
  const clockControl = { now, advance: moves.advance, set: moves.set };
  /** The whole state as one file and back (services/snapshot.ts). */
  const snapshotStore = snapshots({
    engine,
    filesRoot: services.filesRoot,
    now,
    fold: () => services.rollups.fold(),
    forget: (t) => services.forgetCaches(t),
    // A snapshot taken later than this clock brings the clock to its time: what it holds
    // (tokens' expiry, due steps) was written at that time.
    imported: (at) => void (at > clock.now() && clock.set(at)),
  });

  /** Where the servers answer, for the root pages; filled in by listen(). */
  const addresses: Addresses = { inspector: Boolean(options.inspectorKey) };
  const base = express();
  base.disable('x-powered-by');
  base.set('etag', false); // API answers are not cached; hashing every body costs throughput
  base.set('query parser', 'simple');
  base.get('/openapi.json', (_req, res) => res.json(openApiDocument()));
  mountBaseIndex(base, addresses);
  mountScripts(base, {
    portalTier: (db, id) => services.portals.tier(db, id),
    db: engine,
    baseUrl: () => addresses.baseUrl,
  });
  if (options.inspectorKey)
    base.use(
      '/_inspector',
      inspectorRouter(
        services.inspector,
        services.dashboard,
        engine,
        options.inspectorKey,
        { outbox: services.outbox, preferenceLinks: !!preferenceLinks },
        services,
      ),
    );
  if (adminKey)
    base.use(
      '/_admin',
      adminRouter(
        {
          services,
          engine,
          log,
          faults: twin!.faults,
          journal: twin!.journal,
          clock: clockControl,
          snapshots: snapshotStore,
          // The demo portal (seed.ts) gets its demo data again; another portal, a new one's defaults only.
          reseed: async (t, portal, at) => {
            if (portal.id == DEMO_PORTAL && portal.name == DEMO_NAME) await seedDemoContent(t, services, at);
          },
        },
        adminKey,
      ),
    );
  mountSite(base, services.content, engine, settled);
  mountFileServer(base, services.files, engine, settled);
  mountCatalog(base, 'base', deps, COLLECTOR_ROUTES);

  const forms = express();
  forms.disable('x-powered-by');
  forms.set('etag', false);
  forms.use(cors());
  mountFormsIndex(forms, addresses);
  // Form submissions are written in bulk on PostgreSQL (services.submissionWrite).
  const formDeps = { ...deps, write: services.submissionWrite };
  mountCatalog(forms, 'forms', formDeps);

  // The collector answers its own paths before Express sees the request (see http/collector.ts),
  // and so do form submissions (http/form-submissions.ts; what it declines, Express's route serves).
  // Both run the catalog routes' lifecycle with their deps; the collector's per-address limit is
  // the public routes' limiter with a budget of its own.
  const limitCollector =
    options.collectorRateLimit === false
      ? undefined
      : addressLimiter(options.collectorRateLimit ?? { max: 1000, windowMs: 60_000 }, now, counters('collector'));
  const collect = collector({ ...deps, limitAddress: limitCollector });
  const submitForm = formSubmissions(formDeps);
  // With the admin API on, its journal and fault rules stand in front of everything else.
  const front = (server: 'base' | 'forms') =>
    twin ? twin.front(server, apiLimit, now) : (handler: RequestListener) => handler;
  const baseHandler = front('base')((req, res) => {
    if (!collect(req, res)) base(req, res);
  });
  const formsHandler = front('forms')((req, res) => {
    if (!submitForm(req, res)) forms(req, res);
  });

  const servers: Server[] = [];
  let checkpoints: Checkpointer | undefined;
  let closed: Promise<void> | undefined;
  const listen = (handler: RequestListener, port: number, host: string) =>
    new Promise<string>((resolve, reject) => {
      const server = createServer(handler);
      server.on('clientError', answerClientError);
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve(`http://${host}:${(server.address() as AddressInfo).port}`);
      });
      servers.push(server);
    });

  /** Stops the background work and the servers, then closes the database. */
  async function shutDown() {
    // A run in progress (waiting on a webhook) must finish before the database closes.
    await services.workflows.stop();
    await services.scheduler.stop();
    await Promise.all(
      servers.map((s) => new Promise<void>((resolve) => (s.closeAllConnections(), s.close(() => resolve())))),
    );
    await ready.catch(() => {});
    await settled();
    afterCommit = undefined;
    await checkpoints?.stop();
    // SQLite: closes the file; PostgreSQL: ends the pool's connections.
    await engine.close();
    if (temporaryFiles) rmSync(filesDir, { recursive: true, force: true });
  }

  return {
    /** better-sqlite3's database; undefined on PostgreSQL, so SQLite-only callers must check. */
    db,
    services,
    settings,
    handlers,
    log,
    /** The admin API's key, when it is on (never logged: whoever has it controls every portal). */
    adminKey,
    /** Resolves once the platform can serve (listen() waits for it): PostgreSQL's schema migrated
     * and portals from before part 2 seeded. Await it before using `services` without listening. */
    ready,
    /** The platform's clock: `now()`, and moving it on (`advance(ms)`) or to a time (`set(ms)`)
     * with what falls due on the way run in time order (services/clock-advance.ts); never back. */
    clock: clockControl,
    /** Snapshots of the whole state: export (a stream or a file, atomically) and import. */
    snapshots: snapshotStore,
    /** Starts both servers; port 0 picks a free one. */
    async listen({ basePort = 3200, formsPort = 3201, host = '127.0.0.1' } = {}) {
      await ready;
      const [baseUrl, formsUrl] = await Promise.all([
        listen(baseHandler, basePort, host),
        listen(formsHandler, formsPort, host),
      ]);
      if (db && database != ':memory:') {
        checkpoints = startCheckpointer(db, database, { onError: (err) => log.error({ err }, 'WAL checkpoint') });
        afterCommit = checkpoints.afterCommit;
      }
      // Records' URLs name the address this platform answers at, known only now (port 0 picks one).
      services.content.site.base = publicUrl ?? baseUrl;
      Object.assign(addresses, { baseUrl: publicUrl ?? baseUrl, formsUrl });
      services.workflows.start(1000, background('workflow engine'));
      services.scheduler.start(1000, background('scheduler'));
      return { baseUrl, formsUrl };
    },
    /** Stops serving and closes the database; later calls wait for the first. */
    close: () => (closed ??= shutDown()),
  };
}
