/** When a failed attempt is worth repeating, and how long to wait first. */
import type { RouteId } from '@svc/api';

/** POST routes that can be repeated without changing the outcome (upserts, membership changes,
 * refreshes). Other POSTs are retried on 5xx and network errors only when the call says `safe`. */
export const SAFE_POSTS: ReadonlySet<RouteId> = new Set<RouteId>([
  'contacts.update',
  'contacts.createOrUpdate',
  'contacts.batch',
  'lists.update',
  'lists.add',
  'lists.remove',
  'lists.refresh',
  'properties.update',
  'properties.updateGroup',
  'forms.update',
  'auth.refresh',
]);

const IDEMPOTENT = new Set(['GET', 'PUT', 'DELETE']);

export function isRepeatable(id: string, method: string, body: unknown, safe?: boolean) {
  if (safe || IDEMPOTENT.has(method) || SAFE_POSTS.has(id as RouteId)) return true;
  // The events API drops a repeated event id, so an event with an id is safe to send again.
  return id == 'events.send' && typeof (body as { id?: unknown } | undefined)?.id == 'string';
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
