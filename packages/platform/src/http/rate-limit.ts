/** The platform's rate limits, both rolling windows (http/rolling-window.ts, on
 * rate-limiter-flexible's counters):
 * - the API budget, per portal (per app and portal for OAuth tokens, as the real API counts an
 *   app's calls into each portal): by default 100 requests in any 10 s, reported in
 *   `X-Svc-RateLimit-*` headers; over it, 429 TEN_SECONDLY_ROLLING with `Retry-After`;
 * - the public routes (form submissions, OAuth refresh, the events pixel), per caller address and
 *   route: by default 60 in any minute; over it, 429 with `Retry-After`. The collector's two routes
 *   (http/collector.ts) go through the same limiter with a budget of their own, by default 1,000
 *   in any minute, as a tracker's traffic and many visitors behind one address need. */
import type { ServerResponse } from 'node:http';
import { PlatformError } from '../domain/errors';
import { memoryCounters, rollingWindow, type SliceCounters, type WindowOptions } from './rolling-window';

export type RateLimitOptions = WindowOptions;

const seconds = (ms: number) => String(Math.max(1, Math.ceil(ms / 1000)));

/** Where a limit keeps its counts: this process's memory by default; on PostgreSQL the database's
 * (`postgresCounters`), so that every process on it enforces one budget. */
export type Counters = (windowMs: number) => SliceCounters;

/** The API budget's headers, which the real API sends on every authenticated answer. */
export const budgetHeaders = (options: RateLimitOptions, remaining: number) => ({
  'X-Svc-RateLimit-Interval-Milliseconds': String(options.windowMs),
  'X-Svc-RateLimit-Max': String(options.max),
  'X-Svc-RateLimit-Remaining': String(remaining),
});

/** The API budget's refusal as the real API words it (a fault rule's 429 answers the same). */
export const OVER_BUDGET = {
  message: 'You have reached your ten_secondly_rolling limit.',
  details: { errorType: 'RATE_LIMIT', policyName: 'TEN_SECONDLY_ROLLING' },
};

/** The API budget of one portal (or app in a portal), as `limit(budgetKey, res)`. */
export function rateLimiter(options: RateLimitOptions, now: () => number, counters: Counters = memoryCounters) {
  const hit = rollingWindow(options, now, counters(options.windowMs));
  return async function limit(key: string, res: Pick<ServerResponse, 'setHeader'>) {
    const verdict = await hit(key);
    for (const [name, value] of Object.entries(budgetHeaders(options, verdict.remaining))) res.setHeader(name, value);
    if (!verdict.allowed)
      throw new PlatformError('rate-limited', OVER_BUDGET.message, OVER_BUDGET.details, {
        'Retry-After': seconds(verdict.retryAfterMs),
      });
  };
}

/** Per-address limits of the public routes, as `limit(routeId, address)`. */
export function addressLimiter(options: RateLimitOptions, now: () => number, counters: Counters = memoryCounters) {
  const hit = rollingWindow(options, now, counters(options.windowMs));
  return async function limit(routeId: string, address: string) {
    const verdict = await hit(`${routeId}:${address}`);
    if (!verdict.allowed)
      throw new PlatformError(
        'rate-limited',
        `Too many requests from this address: at most ${options.max} in ${options.windowMs / 1000} s; try again in ${seconds(verdict.retryAfterMs)} s.`,
        { errorType: 'RATE_LIMIT', policyName: 'PER_ADDRESS' },
        { 'Retry-After': seconds(verdict.retryAfterMs) },
      );
  };
}
