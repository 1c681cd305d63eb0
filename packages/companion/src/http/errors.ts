/** Errors as the browser sees them: JSON `{status: "error", message}` with a 4xx naming the
 * problem, or a neutral 5xx when the platform failed. Upstream 401/403 and upstream bodies never
 * reach the browser: they would tell it about our credentials or other records. */
import { createHash, timingSafeEqual } from 'node:crypto';
import { SvcApiError } from '@svc/client';
import type { Logger } from 'pino';
import { SharedStoreError } from '../shared/redis';
import { errorReply, type Reply } from './exchange';

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
    return new HttpError(503, "the companion's shared store (Redis) is unavailable; try again shortly", {
      'retry-after': '1',
    });
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
export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v == 'object' && v !== null && !Array.isArray(v);

/** What an upstream failure looks like in a log line: status and category, never a path (it may
 * hold an email or a utk), a message or a body. */
export function upstreamLog(e: unknown) {
  if (e instanceof SharedStoreError || (e instanceof SvcApiError && e.cause instanceof SharedStoreError))
    return { err: { code: 'ESHAREDSTORE' } };
  if (e instanceof SvcApiError)
    return { upstream: { status: e.status, category: e.category, correlationId: e.correlationId } };
  return { err: { name: e instanceof Error ? e.name : typeof e } };
}

/** The answer for anything a route threw: its own 4xx, or what a failed platform call becomes. A
 * 5xx is logged by status and category only (see upstreamLog). */
export function replyForError(err: unknown, logger: Logger | undefined): Reply {
  const out = fromUpstream(err);
  if (out.status >= 500) logger?.warn(upstreamLog(err), out.message);
  return errorReply(out.status, out.message, out.headers);
}

/** Compares a presented secret with the expected one in constant time (hashes of equal length). */
export function timingSafeSecret(given: string, expected: string) {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
