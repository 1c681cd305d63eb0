/** The per-address route limit, the same through both doors: express-rate-limit's policy (its
 * draft-7 `RateLimit` / `RateLimit-Policy` headers, `Retry-After` and a JSON 429 past the limit),
 * counted in its stores — in memory, or in Redis through rate-limit-redis in shared mode — under
 * its own key for an address (IPv6 by /56 subnet, so one host cannot rotate through its addresses).
 * The middleware itself is Express's; the stores and the key are not, and are what this uses. */
import { ipKeyGenerator, MemoryStore, type Options, type Store } from 'express-rate-limit';
import { errorReply, type ReplyHeaders } from './exchange';
import type { RateLimit } from './pipeline';

export interface RateLimitOptions {
  limit: number;
  windowMs: number;
  /** Where the counts live; default in this process's memory. */
  store?: Store;
}

export function rateLimiter(o: RateLimitOptions): RateLimit {
  const store = o.store ?? new MemoryStore();
  // The stores read only the window from the middleware's options.
  void Promise.resolve(store.init?.({ windowMs: o.windowMs } as Options)).catch(() => undefined);
  const policy = `${o.limit};w=${Math.ceil(o.windowMs / 1000)}`;
  // A store of its own (Redis in shared mode) may fail: serve without the limit rather than refuse
  // everything (scripts, the collector); routes that need Redis answer 503 on their own.
  const passOnStoreError = o.store !== undefined;

  /** Counts a request from `ip`. */
  return async function count(ip) {
    let hits: number;
    let resetTime: Date | undefined;
    try {
      ({ totalHits: hits, resetTime } = await store.increment(ipKeyGenerator(ip ?? '')));
    } catch (e) {
      if (passOnStoreError) return undefined;
      throw e;
    }
    const reset = resetTime
      ? Math.max(0, Math.ceil((resetTime.getTime() - Date.now()) / 1000))
      : Math.ceil(o.windowMs / 1000);
    const headers: ReplyHeaders = {
      'ratelimit-policy': policy,
      ratelimit: `limit=${o.limit}, remaining=${Math.max(o.limit - hits, 0)}, reset=${reset}`,
    };
    if (hits <= o.limit) return { headers };
    return {
      headers,
      refused: errorReply(429, 'too many requests from this address; slow down', { 'retry-after': String(reset) }),
    };
  };
}
