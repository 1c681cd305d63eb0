/** The platform: two Express apps on one database — `{base_url}` (the API, OpenAPI document) and
 * `{forms_url}` (form submissions, CORS enabled). */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { openApiDocument } from '@svc/api';
import cors from 'cors';
import express from 'express';
import { pino, type Logger } from 'pino';
import { type Checkpointer, startCheckpointer } from './db/checkpointer';
import { openDatabase } from './db/open';
import { allHandlers } from './handlers';
import { authenticator } from './http/auth';
import { answerClientError } from './http/client-error';
import { clientIp } from './http/client-ip';
import { collector, COLLECTOR_ROUTES } from './http/collector';
import { addressLimiter, rateLimiter, type RateLimitOptions } from './http/rate-limit';
import { mountCatalog } from './http/router';
import { mountFileServer } from './http/file-server';
import { mountSite } from './http/site';
import { inspectorRouter } from './inspector/router';
import { createServices } from './services';
import type { IpOrganization } from './store/prospects';

export interface PlatformOptions {
  /** SQLite file, or `:memory:`. Default `.data/platform.db`. */
  database?: string;
  /** The API budget per portal (per app and portal for OAuth); default 100 requests in any 10 s. */
  rateLimit?: RateLimitOptions;
  /** Per-address limit of each public route (form submission, OAuth refresh, events pixel);
   * default 60 requests in any minute; `false` turns it off. */
  publicRateLimit?: RateLimitOptions | false;
  /** Lifetime of OAuth access tokens in seconds; default 1800. */
  tokenLifetimeSeconds?: number;
  /** Issue a new refresh token on every refresh (the old one stops working). Default false. */
  rotateRefreshTokens?: boolean;
  /** The clock (tests move it). */
  now?: () => number;
  /** Check every success body against the catalog's response schema (a 500 when off it). */
  checkResponses?: boolean;
  /** For workflow webhooks (tests pass their own). */
  fetch?: typeof fetch;
  /** Where uploaded files' bytes are kept; default: `files/` next to the database, or a temporary
   * directory (removed on close) for `:memory:`. */
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
    throw new TypeError(`publicUrl (--public-url) must be an http or https URL without query, fragment or credentials, not "${raw}"`);
  return url.origin + url.pathname.replace(/\/+$/, '');
}

export type Platform = ReturnType<typeof createPlatform>;

export function createPlatform(options: PlatformOptions = {}) {
  const now = options.now ?? Date.now;
  const publicUrl = options.publicUrl === undefined ? undefined : publicAddress(options.publicUrl);
  const log = options.logger === false ? pino({ level: 'silent' }) : (options.logger ?? pino());
  const database = options.database ?? '.data/platform.db';
  const db = openDatabase(database);
  const temporaryFiles = !options.filesDir && database == ':memory:';
  const filesDir = options.filesDir ?? (temporaryFiles ? mkdtempSync(join(tmpdir(), 'svc-files-')) : join(dirname(database), 'files'));
  const settings = {
    tokenLifetimeSeconds: options.tokenLifetimeSeconds ?? 1800,
    rotateRefreshTokens: options.rotateRefreshTokens ?? false,
  };
  const services = createServices(db, now, { fetch: options.fetch, prospects: options.prospects, filesDir, oauth: settings });
  if (publicUrl) services.content.site.base = publicUrl;
  const handlers = allHandlers(services);
  const ipOf = clientIp(options.trustedProxies);
  const deps = {
    handlers,
    clientIp: ipOf,
    authenticate: authenticator(services.credentials, services.engine, now),
    limit: rateLimiter(options.rateLimit ?? { max: 100, windowMs: 10_000 }, now),
    limitAddress: options.publicRateLimit === false ? undefined : addressLimiter(options.publicRateLimit ?? { max: 60, windowMs: 60_000 }, now),
    log,
    checkResponses: options.checkResponses,
    write: services.write,
    engine: services.engine,
    settled: services.group.settled,
  };

  const base = express();
  base.disable('x-powered-by');
  base.set('etag', false); // API answers are not cached; hashing every body costs throughput
  base.set('query parser', 'simple');
  base.get('/openapi.json', (_req, res) => res.json(openApiDocument()));
  if (options.inspectorKey) base.use('/_inspector', inspectorRouter(services.inspector, services.engine, options.inspectorKey));
  mountSite(base, services.content, services.engine, services.group.settled);
  mountFileServer(base, services.files, services.engine, services.group.settled);
  mountCatalog(base, 'base', deps, COLLECTOR_ROUTES);

  const forms = express();
  forms.disable('x-powered-by');
  forms.set('etag', false);
  forms.use(cors());
  mountCatalog(forms, 'forms', deps);

  // The collector answers its own paths before Express sees the request (see http/collector.ts).
  const collect = collector(handlers, services.write, log, ipOf);
  const baseHandler = (req: IncomingMessage, res: ServerResponse) => collect(req, res) || base(req, res);

  const servers: Server[] = [];
  let checkpoints: Checkpointer | undefined;
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

  return {
    db,
    services,
    settings,
    handlers,
    log,
    /** Starts both servers; port 0 picks a free one. */
    async listen({ basePort = 3200, formsPort = 3201, host = '127.0.0.1' } = {}) {
      const [baseUrl, formsUrl] = await Promise.all([listen(baseHandler, basePort, host), listen(forms, formsPort, host)]);
      if (database != ':memory:') {
        checkpoints = startCheckpointer(db, database, { onError: (err) => log.error({ err }, 'WAL checkpoint') });
        services.group.onCommit(checkpoints.afterCommit);
      }
      // Records' URLs name the address this platform answers at, known only now (port 0 picks one).
      services.content.site.base = publicUrl ?? baseUrl;
      services.workflows.start(1000, (err) => log.error({ err }, 'workflow engine'));
      services.scheduler.start(1000, (err) => log.error({ err }, 'scheduler'));
      return { baseUrl, formsUrl };
    },
    async close() {
      // A run in progress (waiting on a webhook) must finish before the database closes.
      await services.workflows.stop();
      await services.scheduler.stop();
      await Promise.all(
        servers.map((s) => new Promise<void>((resolve) => (s.closeAllConnections(), s.close(() => resolve())))),
      );
      await services.group.settled();
      services.group.onCommit(undefined);
      await checkpoints?.stop();
      db.close();
      if (temporaryFiles) rmSync(filesDir, { recursive: true, force: true });
    },
  };
}
