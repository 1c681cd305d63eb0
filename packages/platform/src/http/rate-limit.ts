/** Per-credential rate limit in fixed windows (default 100 requests per 10 s), reported in
 * `X-Svc-RateLimit-*` headers; over it: 429 with `Retry-After`. Hand-written rather than
 * express-rate-limit because the key, header names and 429 body are the platform's own. */
import type { Response } from 'express';
import { PlatformError } from '../domain/errors';

export interface RateLimitOptions {
  max: number;
  windowMs: number;
}

export function rateLimiter({ max, windowMs }: RateLimitOptions, now: () => number) {
  const windows = new Map<string, { start: number; count: number }>();
  let sweptAt = now();

  return function limit(key: string, res: Response) {
    const t = now();
    // Forget finished windows now and then so the map stays small.
    if (t - sweptAt > windowMs * 6) {
      for (const [k, w] of windows) if (t - w.start >= windowMs) windows.delete(k);
      sweptAt = t;
    }
    let w = windows.get(key);
    if (!w || t - w.start >= windowMs) windows.set(key, (w = { start: t, count: 0 }));
    w.count++;
    res.setHeader('X-Svc-RateLimit-Interval-Milliseconds', String(windowMs));
    res.setHeader('X-Svc-RateLimit-Max', String(max));
    res.setHeader('X-Svc-RateLimit-Remaining', String(Math.max(0, max - w.count)));
    if (w.count > max)
      throw new PlatformError('rate-limited',
        'You have reached your ten_secondly_rolling limit.',
        { errorType: 'RATE_LIMIT', policyName: 'TEN_SECONDLY_ROLLING' },
        { 'Retry-After': String(Math.ceil((w.start + windowMs - t) / 1000)) },
      );
  };
}
