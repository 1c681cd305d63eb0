/** Time as the client sees it. Tests pass a moved clock so expiry, backoff and pacing can be
 * checked without sleeping. */
export interface Clock {
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const realClock: Clock = {
  now: Date.now,
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => (clearTimeout(timer), reject(signal!.reason));
      const timer = setTimeout(() => (signal?.removeEventListener('abort', onAbort), resolve()), ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};
