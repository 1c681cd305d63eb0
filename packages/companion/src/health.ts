/** `GET /healthz`: 200 when the platform answers an authenticated call, else 503 — with what
 * failed in general terms, never the platform's body. The check itself is cached a few seconds
 * so a busy probe cannot spend the platform's rate limit. */
import type { Client } from '@svc/client';
import { SvcApiError } from '@svc/client';
import type { Request, Response } from 'express';
import { TtlCache } from './ttl-cache';

export type Upstream = 'ok' | 'unreachable' | 'timeout' | 'unauthorized' | 'rate_limited' | 'error';

function classify(e: unknown): Upstream {
  if (!(e instanceof SvcApiError)) return 'error';
  if (e.status == 0) return e.category == 'TIMEOUT' || e.category == 'ABORTED' ? 'timeout' : 'unreachable';
  if (e.status == 401 || e.status == 403) return 'unauthorized';
  if (e.status == 429) return 'rate_limited';
  return 'error';
}

export function health(client: Client, o: { now: () => number; timeoutMs: number; pendingEvents: () => number }) {
  const cache = new TtlCache<Upstream>(2_000, 1, o.now);
  const check = () =>
    client.limits
      .records(undefined, { signal: AbortSignal.timeout(o.timeoutMs), retries: 0 })
      .then((): Upstream => 'ok', classify);
  return async (_req: Request, res: Response) => {
    const upstream = await cache.get('platform', check);
    res
      .status(upstream == 'ok' ? 200 : 503)
      .set('cache-control', 'no-store')
      .json({ status: upstream == 'ok' ? 'ok' : 'degraded', upstream, pendingEvents: o.pendingEvents() });
  };
}
