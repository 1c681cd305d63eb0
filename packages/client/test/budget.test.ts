/** A pacing budget shared beyond one client (`budget`): the call takes its slot, then takes from
 * the budget as often as it is told to wait, and goes out at once; a 429 holds the budget too; a
 * budget that cannot be reached fails the call with PACING_FAILED, unretried, its slot freed.
 * Against a local fault-injecting server, waits on a moved clock. */
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, SvcApiError, type ClientOptions, type RateBudget, type RetryEvent } from '../src';
import { faultServer, json, movedClock, profile } from './harness';

type Server = Awaited<ReturnType<typeof faultServer>>;
let server: Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A budget that answers `waits` in turn (then 0), and records what it was asked. */
function budget(waits: number[] = [], log: string[] = []) {
  const holds: number[] = [];
  let takes = 0;
  const b: RateBudget = {
    async take() {
      takes++;
      const wait = waits.shift() ?? 0;
      log.push(`take ${wait}`);
      return wait;
    },
    hold: (ms) => void holds.push(ms),
  };
  return { budget: b, holds, takes: () => takes };
}

async function setup(handle: Parameters<typeof faultServer>[0], options: Partial<ClientOptions> = {}) {
  server = await faultServer(handle);
  const moved = movedClock();
  const retries: RetryEvent[] = [];
  const client = createClient({
    baseUrl: server.url,
    auth: { accessToken: 'test-token-0001' },
    clock: moved.clock,
    onRetry: (e) => retries.push(e),
    ...options,
  });
  return { client, server, moved, retries };
}

describe('a shared pacing budget', () => {
  it('waits as long as the budget says, asks again, and sends once it gets a request', async () => {
    const b = budget([30, 0]);
    const { client, server, moved } = await setup((_r, res) => json(res, 200, profile(1)), { budget: b.budget });
    expect((await client.contacts.getByVid(1)).vid).toBe(1);
    expect(b.takes()).toBe(2);
    expect(moved.slept).toEqual([30]);
    expect(server.seen).toHaveLength(1);
  });

  it('replaces the token bucket but keeps the cap on requests in flight: a slot first, then the budget', async () => {
    const log: string[] = [];
    const b = budget([], log);
    const { client, server, moved } = await setup(
      (req, res) => {
        log.push(`send ${req.url.split('/')[5]}`);
        setTimeout(() => json(res, 200, profile(1)), 5);
      },
      { budget: b.budget, concurrency: 1, rateLimit: { max: 1, windowMs: 60_000 } },
    );
    await Promise.all([1, 2, 3].map((vid) => client.contacts.getByVid(vid)));
    expect(log).toEqual(['take 0', 'send 1', 'take 0', 'send 2', 'take 0', 'send 3']);
    expect(moved.elapsed()).toBe(0); // the bucket of 1 per minute is not used
    expect(server.inFlight.max).toBe(1);
  });

  it('holds the budget as well as the client on a 429, and drains only the local bucket on Remaining: 0', async () => {
    const b = budget();
    const { client, server, moved } = await setup(
      (_r, res, n) =>
        n == 0
          ? json(res, 429, { status: 'error', message: 'slow down' }, { 'retry-after': '2' })
          : json(res, 200, profile(1), { 'x-svc-ratelimit-remaining': '0' }),
      { budget: b.budget },
    );
    expect((await client.contacts.getByVid(1)).vid).toBe(1);
    expect(b.holds).toEqual([2000]);
    expect(server.seen).toHaveLength(2);
    const after429 = moved.elapsed();
    expect(after429).toBeGreaterThanOrEqual(2000);
    await client.contacts.getByVid(1);
    expect(moved.elapsed()).toBe(after429); // no local bucket to drain: the budget decides
    expect(b.holds).toEqual([2000]);
  });

  it('fails with PACING_FAILED when the budget cannot be reached: nothing sent, no retry, the slot freed', async () => {
    const down = new Error('connect ECONNREFUSED 127.0.0.1:6379');
    let fail = true;
    const b: RateBudget = {
      take: async () => {
        if (fail) throw down;
        return 0;
      },
      hold: () => {},
    };
    const { client, server, retries } = await setup((_r, res) => json(res, 200, profile(1)), {
      budget: b,
      concurrency: 1,
    });
    const err: SvcApiError = await client.contacts.getByVid(1).catch((e) => e);
    expect(err).toBeInstanceOf(SvcApiError);
    expect(err).toMatchObject({
      status: 0,
      category: 'PACING_FAILED',
      method: 'GET',
      path: '/contacts/v1/contact/vid/1/profile',
    });
    expect(err.cause).toBe(down);
    expect(err.message).toBe('GET /contacts/v1/contact/vid/1/profile: the pacing budget failed (see cause)');
    expect(server.seen).toHaveLength(0);
    expect(retries).toHaveLength(0);
    expect(client.stats()).toEqual({ running: 0, queued: 0 });
    // The one slot was given back: the next call runs once the budget answers again.
    fail = false;
    expect((await client.contacts.getByVid(2)).vid).toBe(1);
    expect(server.seen).toHaveLength(1);
  });

  it('fails with PACING_FAILED, unretried, when the budget cannot be held after a 429', async () => {
    const down = new Error('budget gone');
    const b: RateBudget = { take: async () => 0, hold: async () => Promise.reject(down) };
    const { client, server, retries } = await setup(
      (_r, res) => json(res, 429, { status: 'error', message: 'slow down' }, { 'retry-after': '1' }),
      { budget: b },
    );
    await expect(client.contacts.getByVid(1)).rejects.toMatchObject({
      status: 0,
      category: 'PACING_FAILED',
      cause: down,
    });
    expect(server.seen).toHaveLength(1);
    expect(retries).toHaveLength(0);
    expect(client.stats()).toEqual({ running: 0, queued: 0 });
  });

  it('aborts a call waiting on the budget, which is then never sent', async () => {
    const ac = new AbortController();
    let takes = 0;
    const b: RateBudget = {
      take: async () => {
        if (++takes == 2) ac.abort();
        return 60_000;
      },
      hold: () => {},
    };
    const { client, server } = await setup((_r, res) => json(res, 200, profile(1)), { budget: b });
    await expect(client.contacts.getByVid(1, {}, { signal: ac.signal })).rejects.toMatchObject({
      status: 0,
      category: 'ABORTED',
    });
    expect(server.seen).toHaveLength(0);
    expect(client.stats()).toEqual({ running: 0, queued: 0 });
  });
});
