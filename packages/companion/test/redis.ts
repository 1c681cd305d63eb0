/** Redis for the shared-mode tests: `SVC_TEST_REDIS_URL` (default 127.0.0.1:6379). Without a
 * reachable Redis the tests skip locally and fail under CI=true. Each test file works under a key
 * prefix of its own and deletes its keys afterwards; a small TCP proxy in front of Redis stands in
 * for "Redis stopped" without stopping the Redis other tests use. */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll } from 'vitest';
import { tcpProxy } from '../../../test/tcp-proxy';

export const REDIS_URL = process.env.SVC_TEST_REDIS_URL || 'redis://127.0.0.1:6379';

async function reachable() {
  const r = new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 1_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  r.on('error', () => undefined);
  try {
    await r.connect();
    return (await r.ping()) == 'PONG';
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

export const haveRedis = await reachable();
if (!haveRedis) {
  if (process.env.CI) throw new Error(`Redis is not reachable at ${REDIS_URL}: CI needs it (set SVC_TEST_REDIS_URL)`);
  console.warn(`Redis is not reachable at ${REDIS_URL}: the shared-mode tests are skipped (set SVC_TEST_REDIS_URL)`);
}

/** A key prefix for this test file; its keys are deleted after the file's tests. */
export function redisPrefix(name: string) {
  const prefix = `svc-test:${name}:${randomBytes(4).toString('hex')}:`;
  afterAll(async () => {
    if (haveRedis) await deleteKeys(prefix);
  });
  return prefix;
}

export async function deleteKeys(prefix: string) {
  const r = new Redis(REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length) await r.del(...keys);
      cursor = next;
    } while (cursor != '0');
  } finally {
    r.disconnect();
  }
}

/** A TCP proxy to Redis that can be stopped and started again on the same port. */
export async function redisProxy() {
  const target = new URL(REDIS_URL);
  const { port, start, stop } = await tcpProxy(target.hostname, Number(target.port || 6379));
  const auth = target.username || target.password ? `${target.username}:${target.password}@` : '';
  return { url: `redis://${auth}127.0.0.1:${port}${target.pathname}`, start, stop };
}
