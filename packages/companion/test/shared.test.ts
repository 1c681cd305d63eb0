/** Shared mode in one test process: two companions on one Redis (and one platform) behave as one.
 * The visitor cache, events with their dead letters, OAuth tokens, the route rate limit and the
 * secrets, each checked through both instances (one behind each door). The many-process case (the CLI, SIGKILL, restarts)
 * is in shared-processes.test.ts. */
import { Redis } from 'ioredis';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompanion } from '../src';
import { redisBudget } from '../src/shared/budget';
import { SharedStoreError, sharedRedis } from '../src/shared/redis';
import { RedisTokenStore } from '../src/shared/token-store';
import {
  call,
  countingProxy,
  identifiedVisitor,
  mount,
  newUtk,
  recordedEvents,
  startTestPlatform,
  type Door,
  type Mounted,
  type TestPlatform,
} from './harness';
import { haveRedis, REDIS_URL, redisPrefix, redisProxy } from './redis';

const LINK_SECRET = 'a-link-secret-shared-by-every-instance-0123456789';
const EVENTS_SECRET = 'shared-secret-of-the-backends-0123';
const prefix = redisPrefix('shared');
let t: TestPlatform;
let proxy: Awaited<ReturnType<typeof countingProxy>>;

beforeAll(async () => {
  if (!haveRedis) return;
  t = await startTestPlatform({
    now: Date.now,
    portals: [{ id: 62515 }, { id: 99999 }, { id: 31337, tier: 'starter' }],
  });
  proxy = await countingProxy(t.baseUrl);
});
afterAll(async () => {
  await proxy?.close();
  await t?.close();
});

/** Two companions on one Redis under `name`'s prefix, through the counting proxy: one behind each
 * door (Express, fetch), which share the state as two of the same kind would. */
async function pair(name: string, options: Parameters<typeof mount>[0] extends infer O ? Partial<O> : never = {}) {
  const make = (door: Door) =>
    mount(
      {
        baseUrl: proxy.url,
        formsUrl: t.formsUrl,
        auth: { accessToken: t.portals[0].privateAppToken },
        redis: REDIS_URL,
        redisPrefix: `${prefix}${name}:`,
        subscriptions: { linkSecret: LINK_SECRET },
        ...options,
        events: { secret: EVENTS_SECRET, flushIntervalMs: 200, ...options.events },
      },
      { door },
    );
  return [await make('express'), await make('fetch')] as [Mounted, Mounted];
}

const platformCalls = (path: string) => proxy.forwarded.filter((r) => r.includes(path)).length;

describe.skipIf(!haveRedis)('shared mode: two companions on one Redis', () => {
  it('refuses to start without a link secret, which every instance must share', () => {
    expect(() =>
      createCompanion({ baseUrl: 'http://127.0.0.1:1', auth: { accessToken: 'x' }, redis: REDIS_URL, logger: false }),
    ).toThrow(/shared mode \(redis\) needs subscriptions\.linkSecret/);
  });

  it('shares the visitor cache: one platform call for a burst of lookups of one visitor on both instances', async () => {
    const [a, b] = await pair('visitor');
    try {
      const utk = newUtk();
      await identifiedVisitor(t, utk, { email: 'ada@example.com', firstname: 'Ada' });
      const before = platformCalls('/utk/');
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) => call(`${(i % 2 ? a : b).url}/visitor`, { cookie: `svcutk=${utk}` })),
      );
      expect(answers.map((r) => r.json)).toEqual(
        Array(40).fill({ known: true, vid: expect.any(Number), properties: { firstname: 'Ada' } }),
      );
      expect(platformCalls('/utk/') - before).toBe(1);
      // Unknown visitors are cached too (briefly), across instances.
      const stranger = newUtk();
      expect((await call(`${a.url}/visitor`, { cookie: `svcutk=${stranger}` })).json).toEqual({ known: false });
      expect((await call(`${b.url}/visitor`, { cookie: `svcutk=${stranger}` })).json).toEqual({ known: false });
      expect(platformCalls('/utk/') - before).toBe(2);
      // The email stays server-side, in Redis too only as the cache's value, never in an answer.
      expect(JSON.stringify(answers)).not.toContain('ada@example.com');
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('takes events on any instance and delivers each once', async () => {
    const [a, b] = await pair('events');
    try {
      const ids: string[] = [];
      for (const [i, m] of [a, b].entries()) {
        const r = await call(`${m.url}/events`, {
          method: 'POST',
          headers: { authorization: `Bearer ${EVENTS_SECRET}` },
          body: {
            events: Array.from({ length: 10 }, (_, j) => ({ eventId: 'shared-test', email: `e${i}-${j}@example.com` })),
          },
        });
        expect(r.status).toBe(202);
        ids.push(...r.json.ids);
      }
      await expect.poll(() => recordedEvents(t, ids), { timeout: 10_000 }).toBe(20);
      await expect
        .poll(async () => (await call(`${b.url}/healthz`)).json, { timeout: 5_000 })
        .toMatchObject({ status: 'ok', redis: 'ok', pendingEvents: 0, deadEvents: 0 });
      expect(a.companion.events.stats().sent + b.companion.events.stats().sent).toBe(20);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('moves an event the platform refuses for good to the dead-letter stream, counted in /healthz', async () => {
    // A starter portal may not receive custom events: 403, which no retry changes.
    const [a, b] = await pair('dead', { auth: { accessToken: t.portals[2].privateAppToken } });
    const redis = new Redis(REDIS_URL);
    try {
      const refused = await a.companion.events.track({ eventId: 'shared-test', email: 'starter@example.com' });
      await expect
        .poll(async () => (await call(`${b.url}/healthz`)).json, { timeout: 10_000 })
        .toMatchObject({ pendingEvents: 0, deadEvents: 1 });
      const dead = await redis.xrange(`${prefix}dead:events:dead`, '-', '+');
      expect(dead).toHaveLength(1);
      const fields = Object.fromEntries(
        Array.from({ length: dead[0][1].length / 2 }, (_, i) => [dead[0][1][2 * i], dead[0][1][2 * i + 1]]),
      );
      expect(fields).toMatchObject({ status: '403', category: 'TIER_REQUIRED' });
      expect(JSON.parse(fields.e)).toMatchObject({ id: refused.id, name: 'shared-test' });
      expect(a.companion.events.stats().failed + b.companion.events.stats().failed).toBe(1);
    } finally {
      redis.disconnect();
      await a.close();
      await b.close();
    }
  });

  it('holds the route rate limit across instances', async () => {
    const [a, b] = await pair('ratelimit', { rateLimit: { limit: 10, windowMs: 60_000 } });
    try {
      const statuses = [];
      for (let i = 0; i < 20; i++) statuses.push((await call(`${(i % 2 ? a : b).url}/visitor`)).status);
      expect(statuses.filter((s) => s == 200)).toHaveLength(10);
      expect(statuses.filter((s) => s == 429)).toHaveLength(10);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('refreshes OAuth once for both instances, and a new instance starts from the stored tokens', async () => {
    const refreshes: number[] = [];
    const oauth = {
      clientId: t.portals[1].oauth.clientId,
      clientSecret: t.portals[1].oauth.clientSecret,
      refreshToken: t.portals[1].oauth.refreshToken,
    };
    const [a, b] = await pair('oauth', {
      auth: { oauth },
      visitor: { cacheTtlMs: 0 },
      client: { rateLimit: { max: Infinity }, concurrency: 50, onRefresh: (e) => void refreshes.push(e.expiresAt) },
    });
    const agent = new Agent({ connections: 50 });
    try {
      const answers = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          fetch(`${(i % 2 ? a : b).url}/visitor`, {
            headers: { cookie: `svcutk=${newUtk()}` },
            dispatcher: agent,
          } as RequestInit).then((r) => r.status),
        ),
      );
      expect(answers.filter((s) => s == 200)).toHaveLength(200);
      expect(refreshes).toHaveLength(1);
      const [c] = await pair('oauth', {
        auth: { oauth: { ...oauth, refreshToken: 'a-refresh-token-that-is-long-gone' } },
      });
      try {
        expect((await call(`${c.url}/visitor`, { cookie: `svcutk=${newUtk()}` })).status).toBe(200);
        expect(refreshes).toHaveLength(1);
      } finally {
        await c.close();
      }
    } finally {
      await agent.close();
      await a.close();
      await b.close();
    }
  });

  it('answers 503 naming Redis while it is down, loses no accepted event, and recovers', async () => {
    const redis = await redisProxy();
    const make = () =>
      mount({
        baseUrl: t.baseUrl,
        formsUrl: t.formsUrl,
        auth: { accessToken: t.portals[0].privateAppToken },
        redis: redis.url,
        redisPrefix: `${prefix}outage:`,
        subscriptions: { linkSecret: LINK_SECRET },
        events: { secret: EVENTS_SECRET, flushIntervalMs: 200 },
      });
    const m = await make();
    try {
      const utk = newUtk();
      await identifiedVisitor(t, utk, { email: 'grace@example.com', firstname: 'Grace' });
      expect((await call(`${m.url}/visitor`, { cookie: `svcutk=${utk}` })).json.known).toBe(true);
      const accepted = await m.companion.events.track({ eventId: 'outage', email: 'before@example.com' });

      await redis.stop();
      const lookup = await call(`${m.url}/visitor`, { cookie: `svcutk=${newUtk()}` });
      expect(lookup.status).toBe(503);
      expect(lookup.json.message).toMatch(/shared store \(Redis\) is unavailable/);
      const event = await call(`${m.url}/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${EVENTS_SECRET}` },
        body: { eventId: 'outage', email: 'x@example.com' },
      });
      expect(event.status).toBe(503);
      expect(event.json.message).toMatch(/Redis/);
      const health = await call(`${m.url}/healthz`);
      expect(health.status).toBe(503);
      expect(health.json).toMatchObject({ status: 'degraded', redis: 'unreachable' });
      // What needs no Redis still works: the tracker script.
      expect((await fetch(`${m.url}/tracker.js`)).status).toBe(200);

      await redis.start();
      await expect
        .poll(async () => (await call(`${m.url}/visitor`, { cookie: `svcutk=${utk}` })).status, { timeout: 10_000 })
        .toBe(200);
      const after = await m.companion.events.track({ eventId: 'outage', email: 'after@example.com' });
      await expect.poll(() => recordedEvents(t, [accepted.id, after.id]), { timeout: 10_000 }).toBe(2);
      expect(m.logs.text()).toMatch(/shared store \(Redis\) is unreachable/);
      expect(m.logs.text()).not.toContain(t.portals[0].privateAppToken);
    } finally {
      await m.close();
      await redis.stop();
    }
  });
});

describe.skipIf(!haveRedis)('shared mode: the parts on their own', () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const tokens = (name: string) => ({
    accessToken: name,
    refreshToken: `${name}-refresh`,
    expiresAt: Date.now() + 60_000,
    obtainedAt: Date.now(),
  });
  /** Two processes' worth of connections to one key space. */
  const two = (name: string) => [
    sharedRedis(REDIS_URL, { prefix: `${prefix}${name}:` }),
    sharedRedis(REDIS_URL, { prefix: `${prefix}${name}:` }),
  ];

  it('token store: a process that finds the lock taken waits for the new tokens instead of refreshing', async () => {
    const [r1, r2] = two('tokens-wait');
    try {
      const a = new RedisTokenStore(r1, { clientId: 'client' });
      const b = new RedisTokenStore(r2, { clientId: 'client' });
      const refreshedByB: string[] = [];
      let locked!: () => void;
      const inside = new Promise<void>((r) => (locked = r));
      const first = a.exclusive(
        () => false,
        async () => (locked(), await sleep(200), tokens('from-a')),
      );
      await inside; // a holds the lock and is refreshing
      const second = await b.exclusive(
        (t) => t.accessToken == 'from-a',
        async () => (refreshedByB.push('b'), tokens('from-b')),
      );
      expect((await first).accessToken).toBe('from-a');
      expect(second.accessToken).toBe('from-a');
      expect(refreshedByB).toEqual([]);
      expect((await b.get())?.refreshToken).toBe('from-a-refresh'); // stored, for a new process to start from
    } finally {
      await r1.close();
      await r2.close();
    }
  });

  it('token store: a refresh that outlived its lock cannot overwrite the tokens of the one that took the lock next (fencing)', async () => {
    const [r1, r2] = two('tokens-fence');
    try {
      const slow = new RedisTokenStore(r1, { clientId: 'client', lockMs: 100 });
      const next = new RedisTokenStore(r2, { clientId: 'client', lockMs: 100 });
      let locked!: () => void;
      const inside = new Promise<void>((r) => (locked = r));
      const paused = slow.exclusive(
        () => false,
        async () => (locked(), await sleep(300), tokens('stale')),
      );
      await inside;
      await sleep(150); // the slow one's lock has expired
      expect(
        (
          await next.exclusive(
            () => false,
            async () => tokens('fresh'),
          )
        ).accessToken,
      ).toBe('fresh');
      await expect(paused).rejects.toThrow(SharedStoreError);
      expect((await slow.get())?.accessToken).toBe('fresh');
    } finally {
      await r1.close();
      await r2.close();
    }
  });

  it('budget: no window holds more than the limit across processes, and a hold stops them all', async () => {
    const [r1, r2] = two('budget');
    try {
      const b1 = redisBudget(r1, { key: 'portal', max: 5, windowMs: 400, marginMs: 0 });
      const b2 = redisBudget(r2, { key: 'portal', max: 5, windowMs: 400, marginMs: 0 });
      const waits = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? b1 : b2).take()));
      expect(waits.filter((w) => w == 0)).toHaveLength(5);
      for (const w of waits.filter((w) => w > 0)) expect(w).toBeLessThanOrEqual(401);
      await sleep(Math.max(...waits));
      expect(await b1.take()).toBe(0);
      await b2.hold(300);
      const held = await b1.take();
      expect(held).toBeGreaterThan(250);
      expect(held).toBeLessThanOrEqual(300);
    } finally {
      await r1.close();
      await r2.close();
    }
  });
});
