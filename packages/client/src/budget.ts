/** A request budget shared beyond one client: every process of a site that talks to one portal
 * takes its requests from the same budget (the companion keeps one in Redis), so together they
 * stay under the platform's limit. A client given one uses it instead of its own token bucket;
 * its cap on requests in flight stays its own. */
export interface RateBudget {
  /** Takes one request: resolves to 0 when it was taken, else to how many ms to wait before
   * asking again. Rejects when the budget cannot be reached (the call then fails with
   * `PACING_FAILED`). */
  take(): Promise<number>;
  /** The platform said no request may start for `ms` (a 429 with Retry-After): every process waits. */
  hold(ms: number): Promise<void> | void;
}
