/** Errors as the browser sees them: JSON `{status: "error", message}` with a 4xx naming the
 * problem, or a neutral 5xx when the platform failed. Upstream 401/403 and upstream bodies never
 * reach the browser: they would tell it about our credentials or other records. */
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import { createHash, timingSafeEqual } from 'node:crypto';
import { SvcApiError } from '@svc/client';
import type { Logger } from 'pino';
import { SharedStoreError } from '../shared/redis';

/** An error meant for the caller: its message is safe to show. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** What a failed platform call becomes for the browser. */
export function fromUpstream(e: unknown): HttpError {
  if (e instanceof HttpError) return e;
  // Shared mode: Redis is down (directly, or under the client's pacing budget or token store).
  if (e instanceof SharedStoreError || (e instanceof SvcApiError && e.cause instanceof SharedStoreError))
    return new HttpError(503, "the companion's shared store (Redis) is unavailable; try again shortly", { 'retry-after': '1' });
  if (e instanceof SvcApiError) {
    if (e.status == 0 && e.category == 'TIMEOUT') return new HttpError(504, 'the platform did not answer in time');
    if (e.status == 0 && e.category == 'ABORTED') return new HttpError(504, 'the platform did not answer in time');
    if (e.status == 429) {
      const seconds = Math.max(1, Math.ceil((e.retryAfterMs ?? 1000) / 1000));
      return new HttpError(503, 'the platform is busy; try again shortly', { 'retry-after': String(seconds) });
    }
    return new HttpError(502, 'the platform could not answer');
  }
  return new HttpError(500, 'internal error');
}

/** The platform answered 2xx with something that is not what the route promises. */
export const invalidAnswer = () => new HttpError(502, 'the platform could not answer');

/** True for a plain object (what every JSON answer of the routes we use is). */
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v == 'object' && v !== null && !Array.isArray(v);

/** Wraps an async handler so a rejection reaches the error middleware in Express 4 as in 5. */
export const handle =
  (fn: (req: Request, res: Response) => Promise<unknown> | unknown): RequestHandler =>
  (req, res, next) => {
    Promise.resolve()
      .then(() => fn(req, res))
      .catch(next);
  };

/** What an upstream failure looks like in a log line: status and category, never a path (it may
 * hold an email or a utk), a message or a body. */
export function upstreamLog(e: unknown) {
  if (e instanceof SharedStoreError || (e instanceof SvcApiError && e.cause instanceof SharedStoreError)) return { err: { code: 'ESHAREDSTORE' } };
  if (e instanceof SvcApiError) return { upstream: { status: e.status, category: e.category, correlationId: e.correlationId } };
  return { err: { name: e instanceof Error ? e.name : typeof e } };
}

/** body-parser errors carry `type` and `status`; a body that does not inflate carries zlib's
 * `code` and status 400; a path Express cannot percent-decode is a URIError with status 400.
 * Everything else is ours or the platform's. */
interface ParserError {
  type?: string;
  status?: number;
  expose?: boolean;
  code?: string;
  /** The raw body, on a parse failure. */
  body?: unknown;
}

/** JSON that parses but is not an object or array (`null`, `1`, `"x"`), which strict parsing refuses. */
const isJsonPrimitive = (text: unknown) => {
  try {
    const value: unknown = typeof text == 'string' ? JSON.parse(text) : undefined;
    return typeof text == 'string' && (value === null || typeof value != 'object');
  } catch {
    return false;
  }
};

/** The 400 for a request Express or body-parser refused before any route ran, or undefined. */
function refusedRequest(err: unknown): HttpError | undefined {
  if (!err || typeof err != 'object') return undefined;
  const p = err as ParserError;
  if (typeof p.status != 'number' || p.status >= 500) return undefined;
  if (p.type == 'entity.parse.failed' && isJsonPrimitive(p.body))
    return new HttpError(400, 'the request body must be a JSON object');
  if (typeof p.type == 'string') return new HttpError(p.status, parserMessages[p.type] ?? 'the request body could not be read');
  if (typeof p.code == 'string' && p.code.startsWith('Z_'))
    return new HttpError(400, 'the request body is not valid for its Content-Encoding');
  if (err instanceof URIError) return new HttpError(400, 'a path parameter is not valid percent-encoding');
  return undefined;
}

const parserMessages: Record<string, string> = {
  'entity.too.large': 'the request body is too large',
  'entity.parse.failed': 'the request body is not valid JSON',
  'encoding.unsupported': 'the request body has an unsupported encoding',
  'charset.unsupported': 'the request body has an unsupported charset',
  'request.aborted': 'the request was aborted',
};

export function errorMiddleware(logger: Logger | undefined): ErrorRequestHandler {
  return (err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    const out = refusedRequest(err) ?? fromUpstream(err);
    if (out.status >= 500) logger?.warn(upstreamLog(err), out.message);
    res.status(out.status).set(out.headers).json({ status: 'error', message: out.message });
  };
}

/** Compares a presented secret with the expected one in constant time (hashes of equal length). */
export function timingSafeSecret(given: string, expected: string) {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
