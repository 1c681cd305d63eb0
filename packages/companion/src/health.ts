/** `GET /healthz`: 200 when the platform answers an authenticated call (and, in shared mode, Redis
 * answers a PING), else 503 — with what failed in general terms, never the platform's body. It
 * also tells how many server-side events wait (in shared mode: in the stream, for all instances)
 * and how many are in the dead-letter stream. The platform check is cached a few seconds so a busy
 * probe cannot spend the platform's rate limit. */
import type { Client } from '@svc/client';
import { SvcApiError } from '@svc/client';
import { json, type Reply } from './http/exchange';
import { TtlCache } from './ttl-cache';

export type Upstream = 'ok' | 'unreachable' | 'timeout' | 'unauthorized' | 'rate_limited' | 'unchecked' | 'error';

function classify(e: unknown): Upstream {
  if (!(e instanceof SvcApiError)) return 'error';
  // The call could not start: the shared pacing budget or token store (Redis) failed.
  if (e.category == 'PACING_FAILED' || e.category == 'TOKEN_STORE_FAILED') return 'unchecked';
  if (e.status == 0) return e.category == 'TIMEOUT' || e.category == 'ABORTED' ? 'timeout' : 'unreachable';
  if (e.status == 401 || e.status == 403) return 'unauthorized';
  if (e.status == 429) return 'rate_limited';
  return 'error';
}

export interface HealthOptions {
  now: () => number;
  timeoutMs: number;
  events: () => Promise<{ pending: number; dead?: number }>;
  /** Shared mode: whether Redis answers. */
  redis?: () => Promise<'ok' | 'unreachable'>;
}

export function health(client: Client, o: HealthOptions) {
  const cache = new TtlCache<Upstream>(2_000, 1, o.now);
  const check = () =>
    client.limits
      .records(undefined, { signal: AbortSignal.timeout(o.timeoutMs), retries: 0 })
      .then((): Upstream => 'ok', classify);
  return async (): Promise<Reply> => {
    const [upstream, redis] = await Promise.all([cache.get('platform', check), o.redis?.()]);
    const events = redis == 'unreachable' ? undefined : await o.events().catch(() => undefined);
    const ok = upstream == 'ok' && redis != 'unreachable';
    const body = {
      status: ok ? 'ok' : 'degraded',
      upstream,
      ...(redis && { redis }),
      pendingEvents: events?.pending ?? null,
      ...(events?.dead !== undefined && { deadEvents: events.dead }),
    };
    return json(ok ? 200 : 503, body, { 'cache-control': 'no-store' });
  };
}
