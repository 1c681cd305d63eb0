/** Options of one call, the last argument of every method. */
export interface CallOptions {
  /** Aborts the call, including its waits and retries. */
  signal?: AbortSignal;
  /** Per attempt, in ms, until the whole body has arrived. Default: the client's `timeoutMs`. */
  timeoutMs?: number;
  /** Retries of a transient failure for this call. Default: the client's `retries`. */
  retries?: number;
  /** Marks a non-idempotent call as safe to repeat, so 5xx and network errors are retried too. */
  safe?: boolean;
  /** Extra query parameters (for routes whose main input is the body). */
  query?: Record<string, string | number | boolean | readonly (string | number)[] | undefined>;
}
