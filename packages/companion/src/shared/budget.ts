/** The client's pacing as one budget per portal for every companion process on one Redis, so N
 * instances together stay under the platform's limit (100 requests per 10 s by default).
 *
 * A sliding-window log rather than a token bucket: a bucket of 100 refilling 10 per second lets
 * 200 requests through in some 10 s windows (a full burst, then the refill), which a rolling limit
 * at the platform refuses. The log holds the start time of every request of the last window; a
 * request is taken only while fewer than `max` are in it, so no window of `windowMs` ever holds
 * more than `max`, whichever instance sent them. Times are Redis's own (TIME), so the instances'
 * clocks do not matter, and the window is widened by `marginMs` for the time a request takes to
 * reach the platform. A 429's Retry-After holds every instance through one key. */
import type { RateBudget } from '@svc/client';
import { script, type SharedRedis } from './redis';

// KEYS: log, hold. ARGV: max, window ms, a unique member. → 0 (taken) or ms to wait.
const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local hold = tonumber(redis.call('GET', KEYS[2]) or '0')
if hold > now then return hold - now end
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  return 0
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return math.max(1, tonumber(oldest[2]) + window - now + 1)`;

// KEYS: hold. ARGV: ms. Extends the hold, never shortens it.
const HOLD = `
local t = redis.call('TIME')
local untilMs = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[1])
if untilMs > tonumber(redis.call('GET', KEYS[1]) or '0') then redis.call('SET', KEYS[1], untilMs, 'PX', ARGV[1]) end
return 0`;

export interface BudgetOptions {
  /** Which budget: one per portal (the credential's id, never the credential itself). */
  key: string;
  max: number;
  windowMs: number;
  /** Added to the window for the way to the platform (`pacingMarginMs`). */
  marginMs: number;
}

export function redisBudget(r: SharedRedis, o: BudgetOptions): RateBudget {
  const log = `${r.prefix}budget:${o.key}`;
  const hold = `${log}:hold`;
  const window = o.windowMs + o.marginMs;
  const take = script<number>(r.redis, 'svcBudgetTake', 2, TAKE);
  const extend = script<number>(r.redis, 'svcBudgetHold', 1, HOLD);
  let n = 0;
  return {
    take: () => take(log, hold, o.max, window, `${r.instance}:${++n}`),
    hold: async (ms) => void (await extend(hold, Math.max(1, Math.ceil(ms)))),
  };
}
