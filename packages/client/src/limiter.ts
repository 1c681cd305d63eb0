/** Client-side pacing, one per client instance: a token bucket (default 100 requests per 10 s,
 * the platform's limit), a cap on requests in flight, and a hold that stops every request until
 * the server's Retry-After has passed. Waiters are served in order. */
import type { Clock } from './clock';

export interface LimitOptions {
  /** Requests per window; `Infinity` (or 0) turns the bucket off. */
  max: number;
  windowMs: number;
  /** Requests in flight at once; `Infinity` for no cap. */
  concurrency: number;
}

interface Waiter {
  start(): void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

export type Limiter = ReturnType<typeof limiter>;

export function limiter({ max, windowMs, concurrency }: LimitOptions, clock: Clock) {
  const bucketOn = Number.isFinite(max) && max > 0;
  let tokens = bucketOn ? max : Infinity;
  let refilledAt = clock.now();
  let holdUntil = 0;
  let running = 0;
  const waiting: Waiter[] = [];
  let wakeScheduled = false;

  const refill = (t: number) => {
    tokens = Math.min(max, tokens + ((t - refilledAt) * max) / windowMs);
    refilledAt = t;
  };

  /** Starts waiters while there is a token, a free slot and no hold; else wakes up when the next
   * token (or the end of the hold) is due. A finished request calls it again for a free slot. */
  const pump = () => {
    const t = clock.now();
    if (bucketOn) refill(t);
    while (waiting.length && running < concurrency && t >= holdUntil && tokens >= 1) {
      tokens--;
      running++;
      const w = waiting.shift()!;
      if (w.onAbort) w.signal!.removeEventListener('abort', w.onAbort);
      w.start();
    }
    if (waiting.length && running < concurrency && !wakeScheduled) {
      const wait = t < holdUntil ? holdUntil - t : Math.ceil(((1 - tokens) * windowMs) / max);
      wakeScheduled = true;
      void clock.sleep(Math.max(1, wait)).then(() => {
        wakeScheduled = false;
        pump();
      });
    }
  };

  return {
    /** Resolves when a request may start (call `release()` when it ends); rejects on abort. */
    acquire(signal?: AbortSignal): Promise<void> {
      // The common case, free capacity and nobody queued, without a promise per waiter.
      if (!waiting.length && running < concurrency && !signal?.aborted) {
        const t = clock.now();
        if (bucketOn) refill(t);
        if (t >= holdUntil && tokens >= 1) {
          tokens--;
          running++;
          return Promise.resolve();
        }
      }
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const w: Waiter = { start: resolve, signal };
        if (signal) {
          w.onAbort = () => {
            waiting.splice(waiting.indexOf(w), 1);
            reject(signal.reason);
          };
          signal.addEventListener('abort', w.onAbort, { once: true });
        }
        waiting.push(w);
        pump();
      });
    },
    release() {
      running--;
      if (waiting.length) pump();
    },
    /** The server said to wait (429 with Retry-After): no request starts for `ms`. */
    hold(ms: number) {
      holdUntil = Math.max(holdUntil, clock.now() + ms);
    },
    /** The server reported no requests left in its window: spend the bucket, so the next ones are paced. */
    drain() {
      if (!bucketOn) return;
      refill(clock.now());
      tokens = Math.min(tokens, 0);
    },
    stats: () => ({ running, queued: waiting.length }),
  };
}
