/** The tracking collector's HTTP side, the wire format of packages/tracker/README.md:
 *   POST {base_url}/collect/e       JSON array of events (text/plain or application/json)
 *   GET  {base_url}/collect/p.gif   one event as query parameters → 1×1 GIF
 * Its routes are the catalog's `collect.batch` and `collect.pixel` (paths, schemas) and their
 * handlers are handlers/collect.ts; this module only reads the request. It is a plain Node
 * request handler in front of Express: the hottest endpoint of the platform gets no framework in
 * its way (Express's routing and body parsing cost it a third of its throughput). What the
 * catalog's Express routes do around a handler it does too, with the same parts: the per-address
 * limit of public routes (http/rate-limit.ts, with a budget of its own), error answers
 * (http/errors.ts), and a 405 with `Allow` for another method on its paths. */
import type { Queryable } from '../db/engine';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { catalog } from '@svc/api';
import { MAX_BATCH_BYTES as MAX_BODY, MAX_BATCH_EVENTS as MAX_BATCH } from '@svc/protocol';
import { PlatformError } from '../domain/errors';
import { Reply, type Caller, type Handler, type Handlers } from '../handlers/handler';
import { errorBody, httpAnswer, internalError } from './errors';

const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
  'Access-Control-Allow-Headers': 'Content-Type',
};
const BATCH = catalog['collect.batch'];
const PIXEL = catalog['collect.pixel'];
/** The catalog routes this module serves instead of Express (which must not mount them). */
export const COLLECTOR_ROUTES: readonly string[] = [BATCH.id, PIXEL.id];
/** Each path's route method; OPTIONS (the CORS preflight) is answered too, any other method is a
 * 405. HEAD on the pixel as well: as a GET it would record an event, which a HEAD (a link
 * checker's, a prefetch) must not; answered without recording, it would say a pixel works that
 * recorded nothing. */
const METHOD = { [BATCH.path]: BATCH.method, [PIXEL.path]: PIXEL.method };
const PUBLIC: Caller = { kind: 'none', scopes: [] };

type Write = <T>(fn: (t: Queryable) => T) => Promise<Awaited<T>>;

/**
 * Answers the collector's two paths: their routes, their CORS preflights, and a 405 for any other
 * method; returns false for any other path so the caller can pass the request on. A request from
 * an address over `limitAddress` (the per-address limit of public routes, counted per route: a
 * batch once, whatever it holds) is answered 429 before its body is read. `write` runs the pixel's
 * handler as one savepoint of the group commit (db/engine-sqlite.ts); a batch's handler writes its
 * events in bulk with others' (services/intake-bulk.ts) and reads through `db`. Either answer waits
 * until the events are durable.
 */
export function collector(
  handlers: Handlers,
  { write, db }: { write: Write; db: Queryable },
  log: { error: (obj: object, msg: string) => void },
  clientIp: (req: IncomingMessage) => string,
  limitAddress?: (routeId: string, address: string) => Promise<void>,
) {
  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const payload = Buffer.isBuffer(body) ? body : JSON.stringify(body);
    res.writeHead(status, { ...CORS, 'Content-Type': 'application/json; charset=utf-8', ...headers });
    res.end(payload);
  };
  const fail = (res: ServerResponse, err: unknown) => {
    if (res.headersSent) return;
    const answer = httpAnswer(err);
    if (!answer) log.error({ err }, 'collector error');
    const { status, headers, body } = answer ?? internalError();
    // A cross-origin tracker reads `Retry-After` (of a 429, a 503) only when it is exposed.
    send(
      res,
      status,
      body,
      headers['Retry-After'] ? { ...headers, 'Access-Control-Expose-Headers': 'Retry-After' } : headers,
    );
  };
  const run = async (
    handler: Handler<never> | undefined,
    req: IncomingMessage,
    res: ServerResponse,
    input: { body?: unknown; query?: unknown },
    inWrite: boolean,
  ) => {
    const ctx = {
      params: {},
      query: input.query ?? {},
      body: input.body,
      caller: PUBLIC,
      portalId: 0,
      ip: clientIp(req),
      files: [],
      req,
      res,
    };
    const out = inWrite
      ? await write((t) => handler!({ ...ctx, db: t } as never))
      : await handler!({ ...ctx, db } as never);
    if (out instanceof Reply) send(res, out.status, out.body, out.headers);
    else send(res, 200, out);
  };

  async function pixel(req: IncomingMessage, res: ServerResponse, query: string) {
    if (limitAddress) await limitAddress(PIXEL.id, clientIp(req));
    await run(handlers['collect.pixel'], req, res, { query: Object.fromEntries(new URLSearchParams(query)) }, true);
  }

  async function batch(req: IncomingMessage, res: ServerResponse) {
    if (limitAddress) await limitAddress(BATCH.id, clientIp(req));
    const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (type != 'text/plain' && type != 'application/json')
      throw new PlatformError('unsupported-type', 'send the events as text/plain or application/json', {
        category: 'VALIDATION_ERROR',
      });
    let events: unknown;
    try {
      events = JSON.parse(await readBody(req, MAX_BODY));
    } catch (err) {
      if (err instanceof PlatformError) throw err;
      throw new PlatformError('invalid', 'body is not a JSON array of events (text/plain or application/json)');
    }
    // The catalog's schema of the body: an array of the right size (each event is checked by the handler).
    if (!BATCH.body.safeParse(events).success)
      throw new PlatformError('invalid', `body must be a JSON array of 1 to ${MAX_BATCH} events`);
    await run(handlers['collect.batch'], req, res, { body: events }, false);
  }

  /** Handles the request if it is the collector's; false otherwise. */
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    if (path != BATCH.path && path != PIXEL.path) return false;
    if (req.method == 'OPTIONS') {
      res.writeHead(204, CORS).end();
      return true;
    }
    const answer =
      path == BATCH.path && req.method == BATCH.method
        ? batch(req, res)
        : path == PIXEL.path && req.method == PIXEL.method
          ? pixel(req, res, q < 0 ? '' : url.slice(q + 1))
          : undefined;
    if (answer) answer.catch((err) => fail(res, err));
    else {
      // As the catalog's Express routes answer a wrong method (http/router.ts).
      const method = METHOD[path];
      send(res, 405, errorBody(`${req.method} is not allowed here; use ${method}`), { Allow: `${method}, OPTIONS` });
    }
    return true;
  };
}

/** The request body as text, refusing more than `limit` bytes (413) or a content encoding (415). */
function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const encoding = req.headers['content-encoding'];
    if (encoding && encoding != 'identity')
      return reject(new PlatformError('unsupported-type', `content-encoding ${encoding} is not supported`));
    if (Number(req.headers['content-length'] ?? 0) > limit)
      return reject(new PlatformError('too-large', `request body exceeds ${limit} bytes`));
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new PlatformError('too-large', `request body exceeds ${limit} bytes`));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
