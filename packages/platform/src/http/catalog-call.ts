/** One catalog call, whatever serves its HTTP: authentication, the rate limits, params, query and
 * body checked against the catalog's schemas (NUL refused), the handler in the request's
 * transaction or on the engine, and the answer checked against the response schema. Express
 * routes (http/router.ts) and the form submissions' plain handler (http/form-submissions.ts) both
 * run it; each writes the answer its own way. */
import type { RouteDef } from '@svc/api';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import type { Queryable } from '../db/engine';
import { PlatformError } from '../domain/errors';
import { Reply, type Caller, type Context, type Handler, type Handlers } from '../handlers/handler';
import { fromBodyParser } from './bodies';
import { httpAnswer, internalError, type HttpAnswer } from './errors';

/** What authentication reads of a request: the Authorization header, `hapikey` and
 * `access_token` in the query. */
export interface CallerRequest {
  headers: IncomingHttpHeaders;
  query: Record<string, unknown>;
}

export interface CatalogDeps {
  handlers: Handlers;
  authenticate: (req: CallerRequest, route: RouteDef) => Promise<Caller>;
  /** The API budget of a portal (or an app in a portal): throws a 429 when it is spent; its
   * headers go on `res`. */
  limit: (key: string, res: Pick<ServerResponse, 'setHeader'>) => Promise<void>;
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

/** A request as read by whatever serves it: its query parsed, path parameters decoded, body parsed. */
export interface CatalogRequest {
  query: Record<string, unknown>;
  params: Record<string, unknown>;
  body: unknown;
  /** Passed on to the handler with the uploaded files (Express's request and response). */
  req: Context<RouteDef>['req'];
  res: Context<RouteDef>['res'];
  files: Context<RouteDef>['files'];
}

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

/** The first problem, named by field: `query.count: must be at least 1`. */
function validationMessage(where: string, error: z.ZodError) {
  const issue = error.issues[0];
  const field = [where, ...issue.path.map(String)].join('.');
  return {
    message: `${field}: ${issue.message}`,
    errors: error.issues.map((i) => ({ message: i.message, in: [where, ...i.path.map(String)].join('.') })),
  };
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
    } else if (
      v !== null &&
      typeof v == 'object' &&
      (Object.getPrototypeOf(v) ?? Object.prototype) === Object.prototype
    ) {
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
      throw new PlatformError(
        'invalid',
        `${[where, ...nul.path].join('.')}: ${nul.key ? 'keys ' : ''}must not contain the NUL character (\\u0000)`,
        {
          category: 'VALIDATION_ERROR',
        },
      );
    return result.data;
  }
  const { message, errors } = validationMessage(where, result.error);
  throw new PlatformError('invalid', message, { category: 'VALIDATION_ERROR', errors });
}

/** The 400 of a path that could not be percent-decoded, naming the parameter when it is known. */
export const notPercentEncoding = (name?: string) =>
  new PlatformError('invalid', `path${name ? `.${name}` : ''}: is not valid percent-encoding`, {
    category: 'VALIDATION_ERROR',
  });

/** Path parameters percent-decoded, as Express decodes them; the first that is not valid
 * percent-encoding is a 400 naming it. */
export function decodeParams(raw: Record<string, string>): Record<string, string> {
  const decoded: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    try {
      decoded[name] = decodeURIComponent(value);
    } catch {
      throw notPercentEncoding(name);
    }
  }
  return decoded;
}

/** A request's lifecycle, in named steps that every server of catalog routes runs in this order:
 * `admit` (authentication, then the rate limit), parsing (`parseRequest`: the catalog's schemas;
 * the collector's fast path parses its own way, http/collector.ts), `runHandler` (the handler in
 * the request's transaction or on the engine, its answer checked), and `errorAnswer` for whatever
 * any step threw. Each server writes the answer its own way. */

/** Who is calling (a 401/403 otherwise) and whether they may now: a credential's calls spend its
 * portal's API budget (its headers go on `res`), a public route's the caller address's budget. */
export async function admit(
  deps: Pick<CatalogDeps, 'authenticate' | 'limit' | 'limitAddress' | 'clientIp'>,
  route: RouteDef,
  req: IncomingMessage,
  res: Pick<ServerResponse, 'setHeader'>,
  query: Record<string, unknown>,
): Promise<Caller> {
  const caller = await deps.authenticate({ headers: req.headers, query }, route);
  if (caller.key) await deps.limit(caller.key, res);
  else if (route.public && deps.limitAddress) await deps.limitAddress(route.id, deps.clientIp(req));
  return caller;
}

/** Params, query and body as the catalog's schemas read them (a 400 naming the field otherwise). */
export function parseRequest(route: RouteDef, request: Pick<CatalogRequest, 'params' | 'query' | 'body'>) {
  return {
    params: parse(route.params, request.params, 'path'),
    query: parse(route.query, withoutClientAdded(request.query), 'query'),
    body: route.bodyType == 'none' ? undefined : parse(route.body, request.body ?? {}, 'body'),
  };
}

/** The handler of an admitted, parsed request: a 501 when there is none; a writing route's in a
 * write (`deps.write`), a reading route's on the engine, answered once what it read is committed;
 * what it answered checked against the catalog's response schema when deps ask for it. */
export async function runHandler(
  deps: Pick<CatalogDeps, 'write' | 'engine' | 'settled' | 'checkResponses' | 'clientIp'>,
  route: RouteDef,
  handler: Handler<RouteDef> | undefined,
  caller: Caller,
  input: { params: unknown; query: unknown; body: unknown },
  request: Pick<CatalogRequest, 'req' | 'res' | 'files'>,
): Promise<unknown> {
  if (!handler)
    throw new PlatformError(
      'not-implemented',
      `${route.method} ${route.path} is not implemented by this platform yet`,
      { category: 'NOT_IMPLEMENTED' },
    );
  const { req, res, files } = request;
  const ctx = {
    params: input.params,
    query: input.query,
    body: input.body,
    caller,
    portalId: caller.portalId ?? 0,
    ip: deps.clientIp(req),
    files,
    req,
    res,
  } as Omit<Context<RouteDef>, 'db'>;
  const out = route.writes
    ? await deps.write((db) => handler({ ...ctx, db }))
    : await handler({ ...ctx, db: deps.engine });
  if (!route.writes) await deps.settled();
  if (deps.checkResponses && out !== undefined && !(out instanceof Reply)) {
    const checked = route.response.safeParse(out);
    if (!checked.success)
      throw new PlatformError(
        'internal',
        `${route.id} answered off its catalog schema: ${validationMessage('response', checked.error).message}`,
      );
  }
  return out;
}

/** Runs `route`'s handler on a request through the whole lifecycle: what it answered (a body, a
 * Reply or undefined). Throws what the caller answers with `errorAnswer`. */
export async function callRoute(
  deps: CatalogDeps,
  route: RouteDef,
  handler: Handler<RouteDef> | undefined,
  request: CatalogRequest,
): Promise<unknown> {
  const caller = await admit(deps, route, request.req, request.res, request.query);
  return runHandler(deps, route, handler, caller, parseRequest(route, request), request);
}

/** The handler of `route` in `handlers`, if any. */
export const handlerOf = (handlers: Handlers, route: RouteDef) => handlers[route.id as keyof Handlers];

/** The answer to an error of a call (body-parser's included); an unexpected one is logged and
 * answered 500 without a word about it. */
export function errorAnswer(err: unknown, log: CatalogDeps['log']): HttpAnswer {
  const answer = httpAnswer(fromBodyParser(err) ?? err);
  if (!answer) log.error({ err }, 'unhandled error');
  return answer ?? internalError();
}
