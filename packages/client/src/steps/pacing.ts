/** Pacing: a call waits for a slot of the client's limiter (cap on requests in flight, hold, and
 * its own token bucket unless a shared budget replaces it), in order and abortably, and keeps it
 * until its answer is in. With a budget it then takes one request from it, sleeping as long as the
 * budget says until it gets one, and is sent at once (waiting for anything in between would let
 * the platform see more than the budget allows). The answer feeds back: no requests left in the
 * platform's window spends the local bucket, and a 429 holds every request of the client (and of
 * the budget) until its Retry-After has passed — before the slot is freed, so a queued call
 * cannot slip out in between. A budget that cannot be reached fails the call, unretried. */
import type { RateBudget } from '../budget';
import type { Clock } from '../clock';
import type { Limiter } from '../limiter';
import { retryAfterMs } from '../retry';
import { aborted, header, type Answer, type Request, type Step } from './step';

export interface PacingPolicy {
  limit: Limiter;
  /** Shared beyond this client; the limiter's bucket is then off. */
  budget?: RateBudget;
  clock: Clock;
}

/** How long a 429 holds the client: its Retry-After, else the platform's interval (at most 1 s). */
export function holdMs(answer: Extract<Answer, { bytes: Buffer }>) {
  const interval = Number(header(answer.headers, 'x-svc-ratelimit-interval-milliseconds'));
  return (
    retryAfterMs(header(answer.headers, 'retry-after'), Date.now()) ?? (interval > 0 ? Math.min(interval, 1000) : 1000)
  );
}

/** Runs a budget operation; a budget that throws or rejects fails the call with PACING_FAILED. */
async function fromBudget<T>(req: Request, op: () => T | Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (cause) {
    throw req.fail({
      status: 0,
      category: 'PACING_FAILED',
      cause,
      message: `${req.route.method} ${req.path}: the pacing budget failed (see cause)`,
    });
  }
}

async function takeFromBudget(budget: RateBudget, clock: Clock, req: Request) {
  for (;;) {
    const wait = await fromBudget(req, () => budget.take());
    if (!(wait > 0)) return;
    await clock.sleep(wait, req.options.signal).catch(() => {
      throw aborted(req);
    });
  }
}

export const pacing =
  ({ limit, budget, clock }: PacingPolicy): Step =>
  (next) =>
  async (req) => {
    await limit.acquire(req.options.signal).catch(() => {
      throw aborted(req);
    });
    try {
      if (budget) await takeFromBudget(budget, clock, req);
      const answer = await next(req);
      if (!('failure' in answer)) {
        // The platform's count is per portal, a budget's own business: only the local bucket drains.
        if (header(answer.headers, 'x-svc-ratelimit-remaining') == '0') limit.drain();
        if (answer.status == 429) {
          const ms = holdMs(answer);
          limit.hold(ms);
          if (budget) await fromBudget(req, () => budget.hold(ms));
        }
      }
      return answer;
    } finally {
      limit.release();
    }
  };
