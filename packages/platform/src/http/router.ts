/** Turns the catalog into Express routes: authentication, rate limit, validation of params, query
 * and body against the catalog's schemas, the handler, and JSON errors — 400 naming the field,
 * 404 for unknown routes, 405 with `Allow` for a wrong method, 413 for an oversized body. */
import { routes as catalogRoutes, type RouteDef } from '@svc/api';
import type { IncomingMessage } from 'node:http';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { match } from 'path-to-regexp';
import type { z } from 'zod';
import { PlatformError } from '../domain/errors';
import { errorBody, httpAnswer, internalError } from './errors';
import { atomBody } from './atom';
import { multipart, uploadedFiles } from './multipart';
import type { Queryable } from '../db/engine';
import { Reply, type Caller, type Handler, type Handlers } from '../handlers/handler';


export interface RouterDeps {
  handlers: Handlers;
  authenticate: (req: Request, route: RouteDef) => Promise<Caller>;
  /** The API budget of a portal (or an app in a portal): throws a 429 when it is spent. */
  limit: (key: string, res: Response) => Promise<void>;
  /** Per-address limits of the public routes; off when undefined. */
  limitAddress?: (routeId: string, address: string) => Promise<void>;
  log: { error: (obj: object, msg: string) => void };
  /** Check every success body against the catalog's response schema (tests turn it on). */
  checkResponses?: boolean;
  /** Runs a writing handler in a transaction (SQLite: in the group commit); resolves once its
   * writes are durable. */
  write: <T>(fn: (t: Queryable) => T) => Promise<Awaited<T>>;
  /** Where a reading handler's queries run. */
  engine: Queryable;
  /** Resolves once what a read may have seen is committed. */
  settled: () => Promise<void>;
  /** The caller's address (http/client-ip.ts). */
  clientIp: (req: IncomingMessage) => string;
}

const BODY_LIMIT = '1mb';

/** Query parameters that clients add to every call, whatever the route: dropped before the
 * catalog sees the query, so that no route takes them for a content filter (`portalId` is not a
 * field: 400) or an events-API contact property. Other unknown parameters are already ignored by
 * the routes' schemas, except where the query is open by design (content list filters, event
 * properties): there, a name that is not a field stays a 400 naming it.
 * - `hapikey`: the API key, read by http/auth.ts where the spec allows it (§5.2);
 * - `access_token`: the OAuth-1-era credential (not taken here; the Bearer header is);
 * - `portalId`: the portal, which the credential already names. */
export const CLIENT_ADDED_QUERY: ReadonlySet<string> = new Set(['hapikey', 'access_token', 'portalId']);

const withoutClientAdded = (query: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(query).filter(([name]) => !CLIENT_ADDED_QUERY.has(name)));

/** Literal segments sort before parameters, so `/lists/static` wins over `/lists/:list_id`. */
const specificity = (path: string) =>
  path
    .split('/')
    .map((s) => (s.startsWith(':') ? '2' : s.includes(':') ? '1' : '0'))
    .join('');

/** The first problem, named by field: `query.count: must be at least 1`. */
function validationMessage(where: string, error: z.ZodError) {
  const issue = error.issues[0];
  const field = [where, ...issue.path.map(String)].join('.');
  return { message: `${field}: ${issue.message}`, errors: error.issues.map((i) => ({ message: i.message, in: [where, ...i.path.map(String)].join('.') })) };
}

/** Whether a string (a value or a key) in `value` holds the NUL character, which no text column
 * of PostgreSQL can hold: refused on both engines alike. Without recursion or an allocation per
 * value, since it looks at every request (a tenth of a millisecond for a batch of 1,000 contacts);
 * only plain objects (null-prototype ones too, as query parsers make) and arrays are walked. */
function holdsNul(value: unknown): boolean {
  const stack = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v == 'string') {
      if (v.includes('\0')) return true;
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push(v[i]);
    } else if (v !== null && typeof v == 'object' && (Object.getPrototypeOf(v) ?? Object.prototype) === Object.prototype) {
      for (const k in v) {
        if (k.includes('\0')) return true;
        stack.push((v as Record<string, unknown>)[k]);
      }
    }
  }
  return false;
}

/** Where the NUL is, once holdsNul found one: the string's path, or the path of the object with
 * such a key (the key itself would carry the NUL into the message). JSON is at most 64 deep. */
function nulAt(value: unknown, path: string[] = []): { path: string[]; key: boolean } | undefined {
  if (typeof value == 'string') return value.includes('\0') ? { path, key: false } : undefined;
  if (value === null || typeof value != 'object') return undefined;
  for (const [k, child] of Object.entries(value)) {
    if (k.includes('\0')) return { path, key: true };
    const found = nulAt(child, [...path, k]);
    if (found) return found;
  }
  return undefined;
}

function parse<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) {
    const nul = holdsNul(result.data) && nulAt(result.data);
    if (nul)
      throw new PlatformError('invalid', `${[where, ...nul.path].join('.')}: ${nul.key ? 'keys ' : ''}must not contain the NUL character (\\u0000)`, {
        category: 'VALIDATION_ERROR',
      });
    return result.data;
  }
  const { message, errors } = validationMessage(where, result.error);
  throw new PlatformError('invalid', message, { category: 'VALIDATION_ERROR', errors });
}

/** Why a JSON body was refused: strict parsing takes only objects and arrays, so `null` or `42`
 * is valid JSON of the wrong kind. */
function jsonProblem(text: unknown) {
  try {
    const value: unknown = JSON.parse(String(text));
    return `request body must be a JSON object or array, not ${value === null ? 'null' : typeof value}`;
  } catch {
    return 'request body is not valid JSON';
  }
}

/** JSON deeper than this is refused before any handler walks it (an attack on recursion). */
const MAX_JSON_DEPTH = 64;

/** How deep `value` nests, counted without recursion, stopping past `limit`. */
function depthOver(value: unknown, limit: number): boolean {
  let level: unknown[] = [value];
  for (let depth = 0; level.length; depth++) {
    if (depth > limit) return true;
    level = level.flatMap((v) => (v && typeof v == 'object' ? Object.values(v) : []));
  }
  return false;
}

/** After the JSON parser: a body nested past MAX_JSON_DEPTH levels is a 400. */
const jsonDepth = (req: Request, _res: Response, next: NextFunction) =>
  next(depthOver(req.body, MAX_JSON_DEPTH) ? new PlatformError('invalid', `body: nested more than ${MAX_JSON_DEPTH} levels deep`, { category: 'VALIDATION_ERROR' }) : undefined);

/** body-parser's errors (they carry a 4xx `status`) as the platform's own, so that one mapping
 * (http/errors.ts) answers every error. */
function fromBodyParser(err: unknown): PlatformError | undefined {
  const status = (err as { status?: unknown } | null)?.status;
  if (err instanceof PlatformError || typeof status != 'number' || status < 400 || status >= 500) return undefined;
  const extra = { category: 'VALIDATION_ERROR' };
  if (status == 413) return new PlatformError('too-large', `request body exceeds ${BODY_LIMIT}`, extra);
  if (status == 415) return new PlatformError('unsupported-type', (err as Error).message, extra);
  return new PlatformError('invalid', status == 400 ? jsonProblem((err as { body?: unknown }).body) : (err as Error).message, extra);
}

export function sendError(res: Response, err: unknown, log: RouterDeps['log']) {
  if (res.headersSent) return;
  const answer = httpAnswer(fromBodyParser(err) ?? err);
  if (!answer) log.error({ err }, 'unhandled error');
  const { status, headers, body } = answer ?? internalError();
  res.status(status).set(headers).json(body);
}

const decodes = (s: string) => {
  try {
    decodeURIComponent(s);
    return true;
  } catch {
    return false;
  }
};

/** Registers the routes of one host on `app` (but those served elsewhere, by id), then the 404/405 fallbacks. */
export function mountCatalog(app: Express, host: RouteDef['host'], deps: RouterDeps, servedElsewhere: readonly string[] = []) {
  const mine = catalogRoutes.filter((r) => r.host == host && !servedElsewhere.includes(r.id)).sort((a, b) => specificity(a.path).localeCompare(specificity(b.path)));
  const parsers = {
    none: [],
    json: [express.json({ limit: BODY_LIMIT, type: ['application/json', 'text/plain'] }), jsonDepth],
    urlencoded: [express.urlencoded({ limit: BODY_LIMIT, extended: false })],
    multipart: [multipart()],
    atom: [express.text({ limit: BODY_LIMIT, type: ['application/atom+xml', 'application/xml', 'text/xml'] })],
  } as const;

  for (const route of mine) {
    const handler = deps.handlers[route.id as keyof Handlers] as Handler<RouteDef> | undefined;
    const { writes } = route;
    const run = async (req: Request, res: Response) => {
      try {
        const caller = await deps.authenticate(req, route);
        if (caller.key) await deps.limit(caller.key, res);
        else if (route.public && deps.limitAddress) await deps.limitAddress(route.id, deps.clientIp(req));
        const params = parse(route.params, req.params, 'path');
        const parsedQuery = parse(route.query, withoutClientAdded(req.query as Record<string, unknown>), 'query');
        const body = route.bodyType == 'none' ? undefined : parse(route.body, req.body ?? {}, 'body');
        if (!handler)
          throw new PlatformError('not-implemented', `${route.method} ${route.path} is not implemented by this platform yet`, { category: 'NOT_IMPLEMENTED' });
        const ctx = { params, query: parsedQuery, body, caller, portalId: caller.portalId ?? 0, ip: deps.clientIp(req), files: uploadedFiles(res), req, res };
        const out = writes ? await deps.write((db) => handler({ ...ctx, db })) : await handler({ ...ctx, db: deps.engine });
        if (!writes) await deps.settled();
        if (out instanceof Reply) {
          res.status(out.status).set(out.headers);
          if (out.body === undefined) res.end();
          else if (Buffer.isBuffer(out.body) || typeof out.body == 'string') res.send(out.body);
          else res.json(out.body);
        } else if (out === undefined) res.status(route.status).end();
        else {
          if (deps.checkResponses) {
            const checked = route.response.safeParse(out);
            if (!checked.success)
              throw new PlatformError('internal', `${route.id} answered off its catalog schema: ${validationMessage('response', checked.error).message}`);
          }
          res.status(route.status).json(out);
        }
      } catch (err) {
        sendError(res, err, deps.log);
      }
    };
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete';
    // An Atom body is parsed into the fields the catalog validates: a comment's or a post's.
    const atom = route.atomEntry ? [atomBody(route.atomEntry)] : [];
    const urlencodedToo = route.urlencodedToo ? parsers.urlencoded : [];
    // Uploads can be large and Atom is parsed as XML: a caller is authenticated before either is read.
    const authFirst =
      route.bodyType == 'multipart' || route.bodyType == 'atom'
        ? [(req: Request, _res: Response, next: NextFunction) => {
            deps.authenticate(req, route).then(() => next(), next);
          }]
        : [];
    app[method](route.path, ...authFirst, ...parsers[route.bodyType], ...urlencodedToo, ...atom, run);
  }

  const matchers = mine.map((r) => ({ method: r.method, test: match(r.path, { decode: decodeURIComponent }), raw: match(r.path, { decode: false }) }));
  /** Express could not percent-decode a path parameter: the 400 names it (`path.form_guid`). */
  const undecodable = (err: unknown, req: Request) => {
    if (!(err instanceof URIError)) return err;
    const params = matchers.map((m) => m.method == req.method && m.raw(req.path)).find(Boolean);
    const name = params ? Object.entries(params.params).find(([, v]) => !decodes(String(v)))?.[0] : undefined;
    return new PlatformError('invalid', `path${name ? `.${name}` : ''}: is not valid percent-encoding`, { category: 'VALIDATION_ERROR' });
  };
  app.use((req: Request, res: Response) => {
    const allowed = [...new Set(matchers.filter((m) => m.test(req.path)).map((m) => m.method))];
    if (allowed.length) {
      res.status(405).set('Allow', allowed.join(', ')).json(errorBody(`${req.method} is not allowed here; use ${allowed.join(' or ')}`));
    } else res.status(404).json(errorBody(`no route for ${req.method} ${req.path}`));
  });
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => sendError(res, undecodable(err, req), deps.log));
}
