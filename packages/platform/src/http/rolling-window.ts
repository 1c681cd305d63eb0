/** A rolling-window rate limit on rate-limiter-flexible's counters. The library counts in fixed
 * windows, and a fixed window lets twice the limit through around a boundary (the end of one
 * window and the start of the next). This keeps the library's counters, so any of its stores can
 * hold them (memory here; Redis or PostgreSQL, db/rate-limit-counters.ts, when processes share a
 * budget), but counts in ten slices of the window and sums the last ten: a request counts for one
 * window length from its slice, wherever the boundaries fall, and the limit holds in any window to
 * within one slice.
 * A refused request does not count, so a client that keeps trying gets in as the window rolls on. */
import type pg from 'pg';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { asPlatformError } from '../db/engine-postgres';
import { postgresSliceCounters, type SliceCounters } from '../db/rate-limit-counters';

export type { SliceCounters };

export interface WindowOptions {
  /** Requests allowed in any `windowMs`. */
  max: number;
  windowMs: number;
}

export interface Verdict {
  allowed: boolean;
  /** What is left in the window now (0 when refused). */
  remaining: number;
  /** When refused: how long until one more request would pass. */
  retryAfterMs: number;
}

/** Slices per window: the precision of the rolling window (a tenth of it). */
const SLICES = 10;

/** Counters kept for a window and a slice, in this process's memory. */
export const memoryCounters = (windowMs: number) =>
  new RateLimiterMemory({ points: Number.MAX_SAFE_INTEGER, duration: Math.ceil((windowMs * (1 + 1 / SLICES)) / 1000) });

/** Counters in PostgreSQL's `rate_limits` table (db/rate-limit-counters.ts), shared by every
 * platform process on the database: the limit holds across them. `prefix` separates the limits. */
export const postgresCounters = (pool: pg.Pool, windowMs: number, prefix: string) =>
  postgresSliceCounters(pool, Math.ceil((windowMs * (1 + 1 / SLICES)) / 1000), prefix);

/** `counters.consume` of one point per request, where the requests of one key that arrive while
 * its count is being kept are counted together next, by one `consume` of as many points: on
 * PostgreSQL one statement and round trip for them all (a busy API client's requests, form
 * submissions or tracker batches from behind one address), not one each. Each request gets the
 * count up to itself, as one after another would. */
function coalesced(counters: SliceCounters) {
  type Waiter = { resolve: (consumed: number) => void; reject: (err: unknown) => void };
  const queued = new Map<string, Waiter[]>();
  const running = new Set<string>();

  function run(key: string, waiters: Waiter[]) {
    running.add(key);
    counters
      .consume(key, waiters.length)
      .then(
        (res) => waiters.forEach((w, i) => w.resolve(res.consumedPoints - (waiters.length - 1 - i))),
        (err: unknown) => waiters.forEach((w) => w.reject(err)),
      )
      .finally(() => {
        running.delete(key);
        const next = queued.get(key);
        if (next) {
          queued.delete(key);
          run(key, next);
        }
      });
  }

  return (key: string) =>
    new Promise<number>((resolve, reject) => {
      if (!running.has(key)) return run(key, [{ resolve, reject }]);
      const waiting = queued.get(key);
      if (waiting) waiting.push({ resolve, reject });
      else queued.set(key, [{ resolve, reject }]);
    });
}

/** Keys whose earlier slices are remembered at most (a cache, cleared when full). */
const REMEMBERED_KEYS = 10_000;

export function rollingWindow(
  { max, windowMs }: WindowOptions,
  now: () => number,
  counters: SliceCounters = memoryCounters(windowMs),
) {
  const sliceMs = windowMs / SLICES;
  const consume = coalesced(counters);
  const getMany =
    counters.getMany ??
    ((keys: string[]) => Promise.all(keys.map((k) => counters.get(k).then((r) => r?.consumedPoints ?? 0))));
  // Slices before the current one no longer change (requests count in the current slice, and a
  // refusal gives back only there), even when processes share the store: their counts are read
  // once per key and slice, so a request usually costs one counter operation, not ten. When the
  // current slice moves on, all the earlier slices are read again, in one read: another process
  // may still have been counting in the last ones as its clock crossed the boundary (keeping the
  // older reads let two processes pass more than the limit).
  const earlierOf = new Map<string, { slice: number; counts: number[] }>();
  async function earlier(key: string, slice: number) {
    const known = earlierOf.get(key);
    if (known?.slice == slice) return known.counts;
    const first = slice - SLICES + 1;
    const counts = await getMany(Array.from({ length: SLICES - 1 }, (_, i) => `${key}:${first + i}`));
    if (earlierOf.size >= REMEMBERED_KEYS) earlierOf.clear();
    earlierOf.set(key, { slice, counts });
    return counts;
  }

  /** A count that could not be kept (PostgreSQL gone) is the platform's 503, as a query's is. */
  return (key: string): Promise<Verdict> =>
    count(key).catch((err: unknown) => {
      throw asPlatformError(err);
    });

  async function count(key: string): Promise<Verdict> {
    const slice = Math.floor(now() / sliceMs);
    // The last ten slices, oldest first; the current one counts this request.
    const [before, current] = await Promise.all([earlier(key, slice), consume(`${key}:${slice}`)]);
    const counts = [...before, current];
    const total = counts.reduce((a, b) => a + b, 0);
    if (total <= max) return { allowed: true, remaining: max - total, retryAfterMs: 0 };
    await counters.reward(`${key}:${slice}`);
    // One more passes once enough of the oldest slices have left the window.
    let over = total - max;
    let oldest = 0;
    while (over > 0 && oldest < counts.length) over -= counts[oldest++];
    const leaves = (slice - SLICES + oldest + SLICES) * sliceMs;
    return { allowed: false, remaining: 0, retryAfterMs: Math.max(1, leaves - now()) };
  }
}
