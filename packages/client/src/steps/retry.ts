/** Retries of transient failures (see ../retry.ts for which ones), each after exponential backoff
 * with full jitter or the answer's Retry-After, whichever is longer; a Retry-After longer than
 * `maxRetryAfterMs` is not waited for. The last answer goes back as it is, for decoding. */
import type { Clock } from '../clock';
import { backoffMs, isTransient, retryAfterMs } from '../retry';
import { errorBody } from './error-body';
import { aborted, header, type Step } from './step';

/** Reported before each retry (for logs and metrics; it carries no credential). */
export interface RetryEvent {
  /** The route's id, e.g. `contacts.getByUtk`. */
  route: string;
  /** 1 for the first retry. */
  retry: number;
  /** How long the client waits before it. */
  delayMs: number;
  /** The failed attempt's status (0: no answer). */
  status: number;
  category?: string;
}

export interface RetryPolicy {
  /** Retries per call, unless the call says otherwise. */
  retries: number;
  backoff: { baseMs: number; maxMs: number };
  maxRetryAfterMs: number;
  clock: Clock;
  onRetry?: (e: RetryEvent) => void;
}

export const retry =
  ({ retries, backoff, maxRetryAfterMs, clock, onRetry }: RetryPolicy): Step =>
  (next) =>
  async (req) => {
    const allowed = req.options.retries ?? retries;
    for (let attempt = 0; ; attempt++) {
      const answer = await next(req);
      const waitMs = 'failure' in answer ? undefined : retryAfterMs(header(answer.headers, 'retry-after'), Date.now());
      if (attempt >= allowed || !isTransient(answer.status, req.repeatable) || (waitMs ?? 0) > maxRetryAfterMs)
        return answer;
      const delayMs = Math.max(waitMs ?? 0, backoffMs(attempt, backoff.baseMs, backoff.maxMs));
      const category = 'failure' in answer ? answer.failure : errorBody(answer, req.secrets()).category;
      onRetry?.({ route: req.id, retry: attempt + 1, delayMs, status: answer.status, category });
      await clock.sleep(delayMs, req.options.signal).catch(() => {
        throw aborted(req);
      });
    }
  };
