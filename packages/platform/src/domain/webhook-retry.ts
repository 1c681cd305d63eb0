/** When a failed webhook call is tried again, and when not: the policy as data and one pure
 * function, so that tests and the README can state it exactly.
 *
 * Retried: a network error, a timeout, 429 and 5xx. Final: any other answer that is not a 2xx
 * (a 4xx says the receiver refuses this call; sending it again would not change that). Waits
 * grow exponentially with jitter so that receivers coming back are not hit by every sender at
 * once: attempt n is followed by a wait drawn in [½, 1] × min(base × 2^(n−1), max). A 429's
 * `Retry-After` is honoured when it asks for longer. No attempt starts after `retryForMs` from
 * the first one: then the delivery has failed for good. */

export interface RetryPolicy {
  /** The wait after the first failed attempt is drawn between half of this and this. */
  baseDelayMs: number;
  /** No wait is longer than this (before jitter). */
  maxDelayMs: number;
  /** How long after its first attempt a delivery is still tried. */
  retryForMs: number;
  /** One attempt's bound: no answer by then counts as a timeout. */
  timeoutMs: number;
}

/** The first retry within a minute (15–30 s), then 30–60 s, 1–2 min, … up to an hour apart, for
 * 24 hours: about 30 attempts for a receiver that never comes back. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  baseDelayMs: 30_000,
  maxDelayMs: 3_600_000,
  retryForMs: 24 * 3_600_000,
  timeoutMs: 5_000,
};

/** What an attempt came to. */
export type AttemptResult =
  | { kind: 'answered'; status: number; retryAfterMs?: number }
  | { kind: 'network'; message: string }
  | { kind: 'timeout' };

export const delivered = (r: AttemptResult) => r.kind == 'answered' && r.status >= 200 && r.status < 300;

export const retryable = (r: AttemptResult) => r.kind != 'answered' || r.status == 429 || r.status >= 500;

/** The wait before the attempt after attempt `attempt` (1 for the first), `random` in [0, 1). */
export function retryDelay(policy: RetryPolicy, attempt: number, result: AttemptResult, random: number) {
  const ceiling = Math.min(policy.baseDelayMs * 2 ** Math.min(attempt - 1, 40), policy.maxDelayMs);
  const wait = Math.round(ceiling / 2 + (ceiling / 2) * random);
  return result.kind == 'answered' && result.retryAfterMs !== undefined ? Math.max(wait, result.retryAfterMs) : wait;
}

/** `Retry-After` in milliseconds: seconds, or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (!value) return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** How an attempt reads in the workflow log. */
export const describeResult = (r: AttemptResult) =>
  r.kind == 'answered'
    ? `answered ${r.status}`
    : r.kind == 'timeout'
      ? 'got no answer in time'
      : `failed: ${r.message}`;
