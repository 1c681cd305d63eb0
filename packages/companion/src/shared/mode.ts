/** Shared mode: what `createCompanion({ redis })` puts in Redis instead of this process, so that
 * any number of companion processes on one Redis behave as one companion. One place that builds
 * each shared part; the routes get them through the same interfaces as the embedded ones. */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { AuthOptions, Client, RateBudget } from '@svc/client';
import type { Store } from 'express-rate-limit';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { EventQueue } from '../events/queue';
import type { KnownVisitor, VisitorCache } from '../visitor';
import { redisBudget } from './budget';
import { SharedCache } from './cache';
import { streamQueue, type StreamQueueOptions } from './event-stream';
import { sharedRedis, type SharedRedis } from './redis';
import { RedisTokenStore } from './token-store';

export interface SharedModeOptions {
  /** `redis://…` (or `rediss://…`), or a ready ioredis client (then it stays yours to close). */
  redis: string | Redis;
  /** Prefix of every key (`redisPrefix`). Instances that share state use the same. */
  prefix: string;
  logger?: Logger;
}

/** Which budget and which tokens: the OAuth client, or a hash of a fixed credential (never the
 * credential itself, which would then sit in Redis keys and `MONITOR` output). */
export function credentialId(auth: AuthOptions) {
  if ('oauth' in auth) return auth.oauth.clientId;
  const secret = 'apiKey' in auth ? auth.apiKey : auth.accessToken;
  return createHash('sha256').update(secret).digest('hex').slice(0, 24);
}

export function sharedMode(o: SharedModeOptions) {
  const r: SharedRedis = sharedRedis(o.redis, { prefix: o.prefix, logger: o.logger });
  return {
    redis: r,
    tokenStore: (clientId: string) => new RedisTokenStore(r, { clientId }),
    budget: (auth: AuthOptions, limit: { max: number; windowMs: number; marginMs: number }): RateBudget =>
      redisBudget(r, { key: credentialId(auth), ...limit }),
    visitorCache: (c: { ttlMs: number; missTtlMs: number; loadTimeoutMs: number }): VisitorCache =>
      new SharedCache<KnownVisitor>(r, { name: 'visitor', ...c }),
    events: (client: Client, q: StreamQueueOptions): EventQueue => streamQueue(client, r, q),
    /** express-rate-limit's Redis store (rate-limit-redis) for the route limit, its scripts loaded
     * again whenever Redis comes back (a store that started while Redis was down would otherwise
     * never count). */
    rateLimitStore(windowMs: number): Store {
      const { RedisStore } = createRequire(import.meta.url)('rate-limit-redis') as typeof import('rate-limit-redis');
      const store = new RedisStore({
        prefix: `${r.prefix}rl:`,
        sendCommand: (command: string, ...args: string[]) => r.redis.call(command, ...args) as Promise<number>,
      });
      r.redis.on(
        'ready',
        () => void store.init({ windowMs } as Parameters<typeof store.init>[0])?.catch(() => undefined),
      );
      return store;
    },
    close: () => r.close(),
  };
}

export type SharedMode = ReturnType<typeof sharedMode>;
