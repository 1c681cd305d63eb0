/** Client-side pacing: a token bucket (default 100 requests per 10 s, the platform's limit) and a
 * cap on requests in flight. Waiters are served in order. */
export interface LimitOptions {
  /** Requests per window; 0 or Infinity turns the bucket off. */
  max: number;
  windowMs: number;
  /** Requests in flight at once. */
  concurrency: number;
}

export function limiter({ max, windowMs, concurrency }: LimitOptions, now: () => number = Date.now) {
  const bucketOn = Number.isFinite(max) && max > 0;
  let tokens = max;
  let refilledAt = now();
  let running = 0;
  const waiting: (() => void)[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;

  const refill = () => {
    const t = now();
    tokens = Math.min(max, tokens + ((t - refilledAt) * max) / windowMs);
    refilledAt = t;
  };

  /** Lets waiters through while there is a token and a free slot; else waits for the next token. */
  const pump = () => {
    if (bucketOn) refill();
    while (waiting.length && running < concurrency && (!bucketOn || tokens >= 1)) {
      if (bucketOn) tokens--;
      running++;
      waiting.shift()!();
    }
    if (waiting.length && running < concurrency && bucketOn && !timer) {
      timer = setTimeout(() => ((timer = undefined), pump()), Math.ceil(((1 - tokens) * windowMs) / max));
      timer.unref?.();
    }
  };

  return {
    /** Resolves when the request may start; call `release()` when it ends. */
    acquire: () =>
      new Promise<void>((resolve) => {
        waiting.push(resolve);
        pump();
      }),
    release() {
      running--;
      pump();
    },
    /** The server said to wait (429 / remaining 0): no new request before `ms` from now. */
    pause(ms: number) {
      if (!bucketOn) return;
      tokens = Math.min(tokens, -(ms * max) / windowMs + 1);
      refilledAt = now();
    },
    stats: () => ({ running, queued: waiting.length }),
  };
}
