/** A rolling-window rate limit on rate-limiter-flexible's counters. The library counts in fixed
 * windows; a fixed window lets twice the limit through around a boundary (the last moment of one
 * window and the first of the next). This keeps the library's counters (so any of its stores can
 * hold them: memory here, Redis or PostgreSQL when processes share a budget) and counts the way a
 * rolling window does, by the sliding window counter: the requests of the current window plus
 * those of the previous one, weighted by how much of it still lies within the last `windowMs`.
 * In any `windowMs`, at most about `max` requests pass, wherever the boundary falls. A refused
 * request does not count, so a client that keeps trying is let in again as the window rolls on. */
import { RateLimiterMemory, type RateLimiterAbstract } from 'rate-limiter-flexible';

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

/** Counters kept for two windows, in this process's memory. */
export const memoryCounters = (windowMs: number) =>
  new RateLimiterMemory({ points: Number.MAX_SAFE_INTEGER, duration: Math.ceil((2 * windowMs) / 1000) });

export function rollingWindow({ max, windowMs }: WindowOptions, now: () => number, counters: RateLimiterAbstract = memoryCounters(windowMs)) {
  return async function hit(key: string): Promise<Verdict> {
    const t = now();
    const index = Math.floor(t / windowMs);
    // How far into the current window we are, 0..1: the previous window's weight is what is left.
    const elapsed = (t - index * windowMs) / windowMs;
    const [previous, current] = await Promise.all([counters.get(`${key}:${index - 1}`), counters.consume(`${key}:${index}`)]);
    const before = previous?.consumedPoints ?? 0;
    const weighted = before * (1 - elapsed) + current.consumedPoints;
    if (weighted <= max) return { allowed: true, remaining: Math.floor(max - weighted), retryAfterMs: 0 };
    await counters.reward(`${key}:${index}`);
    return { allowed: false, remaining: 0, retryAfterMs: waitMs(max, windowMs, before, current.consumedPoints - 1, elapsed) };
  };
}

/** How long until `before × (1 − elapsed) + mine + 1 ≤ max`, as the previous window fades and,
 * when that is not enough, the current one becomes the previous. */
function waitMs(max: number, windowMs: number, before: number, mine: number, elapsed: number) {
  if (mine + 1 <= max && before > 0) return Math.max(1, (1 - (max - mine - 1) / before - elapsed) * windowMs);
  const nextWindow = (1 - elapsed) * windowMs;
  return Math.max(1, nextWindow + Math.max(0, 1 - (max - 1) / Math.max(mine, 1)) * windowMs);
}
