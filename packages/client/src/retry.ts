/** When a failed attempt is worth repeating, and how long to wait first. */
import type { RouteInfo } from './route-table';

/** Whether a call may be sent again after a 5xx or no answer: the catalog's retry policy of its
 * route, or the call's own `safe`. */
export function isRepeatable(route: Pick<RouteInfo, 'retry'>, body: unknown, safe?: boolean) {
  if (safe || route.retry == 'safe') return true;
  // The platform drops a repeated id, so a body that carries one may be sent again.
  return route.retry == 'safe-with-id' && typeof (body as { id?: unknown } | undefined)?.id == 'string';
}

/** Whether a failure is transient. A 429 was refused before any work, so it is always worth
 * repeating; 5xx (but 501/505, which will not change) and no answer at all only when repeatable. */
export function isTransient(status: number, repeatable: boolean) {
  if (status == 429) return true;
  if (!repeatable) return false;
  return status == 0 || status == 408 || (status >= 500 && status != 501 && status != 505);
}

/** `Retry-After` in seconds or as an HTTP date → ms. */
export function retryAfterMs(value: string | string[] | undefined, now: number): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return undefined;
  const ms = /^\d+(\.\d+)?$/.test(v.trim()) ? Number(v) * 1000 : Date.parse(v) - now;
  return Number.isFinite(ms) ? Math.max(0, Math.ceil(ms)) : undefined;
}

/** Exponential backoff with full jitter: uniform in [0, min(max, base · 2^attempt)). */
export const backoffMs = (attempt: number, baseMs: number, maxMs: number, random = Math.random) =>
  Math.floor(random() * Math.min(maxMs, baseMs * 2 ** attempt));
