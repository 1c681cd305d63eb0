/** The tracking collector's HTTP side, the wire format of packages/tracker/README.md:
 *   POST {base_url}/collect/e       JSON array of events (text/plain or application/json)
 *   GET  {base_url}/collect/p.gif   one event as query parameters → 1×1 GIF
 * Its routes are the catalog's `collect.batch` and `collect.pixel` (paths, schemas) and their
 * handlers are handlers/collect.ts. It is a plain Node request handler in front of Express: the
 * hottest endpoint of the platform gets no framework in its way (Express's routing and body
 * parsing cost it a third of its throughput).
 *
 * A fast path of the one request lifecycle (http/catalog-call.ts), sharing every step but
 * parsing: `admit` (authentication of a public route, and the per-address limit, with a budget of
 * its own, counted before the body is read), `runHandler` (the 501 of a missing handler, the
 * handler in a write or on the engine, the response check), `errorAnswer` (error bodies, the log
 * of an unexpected error) and the 405 with `Allow` of another method (`notAllowed`). What it does
 * its own way: it reads the body itself (a content type check, a size limit, JSON.parse, the
 * catalog's body schema asking only for an array of the right size: each event is checked by the
 * handler), takes the pixel's query as it is, and puts CORS headers on every answer.
 * test/collector-lifecycle.test.ts holds it to the catalog routes' answers. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { catalog, type RouteDef } from '@svc/api';
import { MAX_BATCH_BYTES as MAX_BODY, MAX_BATCH_EVENTS as MAX_BATCH } from '@svc/protocol';
import type { Queryable } from '../db/engine';
import { PlatformError } from '../domain/errors';
import { Reply } from '../handlers/handler';
import { admit, type CatalogDeps, errorAnswer, handlerOf, runHandler } from './catalog-call';
import { notAllowed } from './errors';

const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
  'Access-Control-Allow-Headers': 'Content-Type',
};
const BATCH: RouteDef = catalog['collect.batch'];
const PIXEL: RouteDef = catalog['collect.pixel'];
/** The catalog routes this module serves instead of Express (which must not mount them). */
export const COLLECTOR_ROUTES: readonly string[] = [BATCH.id, PIXEL.id];
/** Each path's route method; OPTIONS (the CORS preflight) is answered too, any other method is a
 * 405. HEAD on the pixel as well: as a GET it would record an event, which a HEAD (a link
 * checker's, a prefetch) must not; answered without recording, it would say a pixel works that
 * recorded nothing. */
const METHOD = { [BATCH.path]: BATCH.method, [PIXEL.path]: PIXEL.method };

/**
 * Answers the collector's two paths: their routes, their CORS preflights, and a 405 for any other
 * method; returns false for any other path so the caller can pass the request on. `deps` are the
 * catalog routes' (app.ts), with `limitAddress` the collector's own per-address budget (counted
 * per route: a batch once, whatever it holds). The pixel's handler runs in `deps.write` (one
 * savepoint of the group commit, db/engine-sqlite.ts); a batch's handler writes its events in bulk
 * with others' (services/intake-bulk.ts), so it runs on the engine instead. Either answer waits
 * until the events are durable.
 */
export function collector(deps: CatalogDeps) {
  const bulk: CatalogDeps = {
    ...deps,
    write: async <T>(fn: (t: Queryable) => T): Promise<Awaited<T>> => await fn(deps.engine),
  };
  const handlers = { batch: handlerOf(deps.handlers, BATCH), pixel: handlerOf(deps.handlers, PIXEL) };

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const payload = Buffer.isBuffer(body) ? body : JSON.stringify(body);
    res.writeHead(status, { ...CORS, 'Content-Type': 'application/json; charset=utf-8', ...headers });
    res.end(payload);
  };
  const answer = (res: ServerResponse, route: RouteDef, out: unknown) => {
    if (out instanceof Reply) send(res, out.status, out.body, out.headers);
    else send(res, route.status, out);
  };
  const fail = (res: ServerResponse, err: unknown) => {
    if (res.headersSent) return;
    const { status, headers, body } = errorAnswer(err, deps.log);
    // A cross-origin tracker reads `Retry-After` (of a 429, a 503) only when it is exposed.
    send(
      res,
      status,
      body,
      headers['Retry-After'] ? { ...headers, 'Access-Control-Expose-Headers': 'Retry-After' } : headers,
    );
  };

  async function pixel(req: IncomingMessage, res: ServerResponse, rawQuery: string) {
    const query = Object.fromEntries(new URLSearchParams(rawQuery));
    const caller = await admit(deps, PIXEL, req, res, query);
    const input = { params: {}, query, body: undefined };
    answer(res, PIXEL, await runHandler(deps, PIXEL, handlers.pixel, caller, input, asExpress(req, res)));
  }

  async function batch(req: IncomingMessage, res: ServerResponse) {
    const caller = await admit(deps, BATCH, req, res, {});
    const input = { params: {}, query: {}, body: await readEvents(req) };
    answer(res, BATCH, await runHandler(bulk, BATCH, handlers.batch, caller, input, asExpress(req, res)));
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
    const answered =
      path == BATCH.path && req.method == BATCH.method
        ? batch(req, res)
        : path == PIXEL.path && req.method == PIXEL.method
          ? pixel(req, res, q < 0 ? '' : url.slice(q + 1))
          : undefined;
    if (answered) answered.catch((err) => fail(res, err));
    else {
      const { status, headers, body } = notAllowed(req.method ?? '', [METHOD[path]], ['OPTIONS']);
      send(res, status, body, headers);
    }
    return true;
  };
}

/** The request and response as a handler's context types them (Express's): the collector's
 * handlers read neither. */
const asExpress = (req: IncomingMessage, res: ServerResponse) =>
  ({ req, res, files: [] }) as unknown as Parameters<typeof runHandler>[5];

/** A batch's body: JSON text of an array of 1 to MAX_BATCH events, at most MAX_BODY bytes. */
async function readEvents(req: IncomingMessage): Promise<unknown[]> {
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
  return events as unknown[];
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
