/** The Redis connection of shared mode, and what a failure of it looks like to the rest of the
 * companion. Several companion processes on one Redis behave as one companion; when Redis cannot
 * be reached, every route that needs it answers a clear 503 naming the cause (never a 500), and
 * the connection comes back by itself.
 *
 * ioredis, set to fail fast: before the first connection, commands wait in the offline queue
 * until it is made or fails once (`maxRetriesPerRequest: 0`); once connected, a command issued
 * while the connection is lost is refused at once (the offline queue is switched off), and one that
 * gets no answer is refused after `commandTimeout`. Reconnects are tried every 100 ms to 1 s. */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Redis, RedisOptions } from 'ioredis';
import type { Logger } from 'pino';

/** ioredis takes ~90 ms to load: only shared mode pays for it. */
const ioredis = () => createRequire(import.meta.url)('ioredis') as typeof import('ioredis');

/** Redis could not be reached or did not answer. The message is safe to show. */
export class SharedStoreError extends Error {
  readonly code = 'ESHAREDSTORE';
  constructor(cause?: unknown) {
    super("the companion's shared store (Redis) is unavailable", { cause });
    this.name = 'SharedStoreError';
  }
}

/** Runs a Redis operation; any failure becomes a SharedStoreError. */
export async function shared<T>(op: Promise<T> | (() => Promise<T>)): Promise<T> {
  try {
    return await (typeof op == 'function' ? op() : op);
  } catch (e) {
    throw e instanceof SharedStoreError ? e : new SharedStoreError(e);
  }
}

/** A Lua script as a function (sent once, then called by its SHA: EVALSHA, reloaded if Redis
 * forgot it). Arguments are the keys, then the values. */
export function script<T>(
  redis: Redis,
  name: string,
  numberOfKeys: number,
  lua: string,
): (...args: (string | number)[]) => Promise<T> {
  if (!(name in redis)) redis.defineCommand(name, { numberOfKeys, lua });
  const fn = (redis as unknown as Record<string, (...args: (string | number)[]) => Promise<T>>)[name];
  return (...args) => shared(() => fn.apply(redis, args));
}

/** Releases a lock (`SET key owner NX PX`) only if `owner` still holds it: a lock that expired and
 * was taken by another process is left to that process. */
export const lockRelease = (redis: Redis) =>
  script<number>(
    redis,
    'svcLockRelease',
    1,
    `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`,
  );

export const REDIS_OPTIONS: RedisOptions = {
  maxRetriesPerRequest: 0,
  commandTimeout: 3_000,
  connectTimeout: 3_000,
  retryStrategy: (times) => Math.min(100 * times, 1_000),
  // Pipelines of one tick in one write: many lookups at once share a round trip.
  enableAutoPipelining: true,
};

/** Refuses commands at once while the connection is lost, instead of queueing them until a
 * reconnect fails; ioredis reads the option at each command. */
function failFastOnceReady(redis: Redis) {
  redis.once('ready', () => (redis.options.enableOfflineQueue = false));
}

export interface SharedRedis {
  /** Commands (not blocking ones). */
  redis: Redis;
  /** A second connection for blocking reads (XREADGROUP BLOCK), made on first use. */
  blocking(): Redis;
  /** Every key of this companion starts with it (the `redisPrefix` option). */
  prefix: string;
  /** This process's name among the instances (consumer name of the event stream). */
  instance: string;
  /** 'ok' when a PING answers. */
  ping(this: void): Promise<'ok' | 'unreachable'>;
  close(): Promise<void>;
}

/** Connects to `url` (or uses a ready client, which stays the caller's to close). */
export function sharedRedis(source: string | Redis, o: { prefix: string; logger?: Logger }): SharedRedis {
  const owned = typeof source == 'string';
  const redis = owned ? new (ioredis().Redis)(source, REDIS_OPTIONS) : source;
  const prefix = o.prefix;
  let extra: Redis | undefined;

  // Each outage logged once: when a connection that was up closes, or the first connection fails.
  let down = false;
  let code: string | undefined;
  const onDown = () => {
    if (down) return;
    down = true;
    o.logger?.error(
      { err: { code: code ?? 'ECONNCLOSED' } },
      "the companion's shared store (Redis) is unreachable; routes that need it answer 503 until it is back",
    );
  };
  // An 'error' event without a listener would end the process.
  const onError = (e: Error & { code?: string }) => {
    code = e.code ?? e.name;
    onDown();
  };
  const onReady = () => {
    if (down) o.logger?.info('the shared store (Redis) is reachable again');
    down = false;
    code = undefined;
  };
  redis.on('error', onError).on('close', onDown).on('ready', onReady);
  if (owned) failFastOnceReady(redis);

  return {
    redis,
    prefix,
    instance: `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`,
    blocking() {
      if (!extra) {
        // No command timeout: a blocking read waits on purpose (it is bounded by its own BLOCK).
        extra = redis.duplicate({ commandTimeout: undefined, enableAutoPipelining: false, enableOfflineQueue: true });
        extra.on('error', () => undefined); // the main connection logs outages
        failFastOnceReady(extra);
      }
      return extra;
    },
    ping: () =>
      redis.ping().then(
        () => 'ok' as const,
        () => 'unreachable' as const,
      ),
    async close() {
      // A listener stays: an 'error' with none would end the process.
      redis
        .off('error', onError)
        .off('close', onDown)
        .off('ready', onReady)
        .on('error', () => undefined);
      extra?.disconnect();
      if (owned) await redis.quit().catch(() => redis.disconnect());
    },
  };
}
