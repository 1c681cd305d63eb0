/** Pacing: a call waits for a slot of the client's limiter (token bucket, cap on requests in
 * flight, hold), in order and abortably, and keeps it until its answer is in. The answer feeds
 * back: no requests left in the platform's window spends the bucket, and a 429 holds every
 * request of the client until its Retry-After has passed. Both take effect before the slot is
 * freed, so a queued call cannot slip out in between. */
import type { Limiter } from '../limiter';
import { retryAfterMs } from '../retry';
import { aborted, header, type Answer, type Step } from './step';

export interface PacingPolicy {
  limit: Limiter;
}

/** How long a 429 holds the client: its Retry-After, else the platform's interval (at most 1 s). */
export function holdMs(answer: Extract<Answer, { bytes: Buffer }>) {
  const interval = Number(header(answer.headers, 'x-svc-ratelimit-interval-milliseconds'));
  return retryAfterMs(header(answer.headers, 'retry-after'), Date.now()) ?? (interval > 0 ? Math.min(interval, 1000) : 1000);
}

export const pacing =
  ({ limit }: PacingPolicy): Step =>
  (next) =>
  async (req) => {
    await limit.acquire(req.options.signal).catch(() => {
      throw aborted(req);
    });
    try {
      const answer = await next(req);
      if (!('failure' in answer)) {
        if (header(answer.headers, 'x-svc-ratelimit-remaining') == '0') limit.drain();
        if (answer.status == 429) limit.hold(holdMs(answer));
      }
      return answer;
    } finally {
      limit.release();
    }
  };
