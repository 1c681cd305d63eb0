/** Pacing, retries, timeouts and aborts against a local fault-injecting server: 429 with
 * Retry-After, 5xx bursts, connection resets, slow bodies, tokens that expire mid-stream. Waits
 * run on a moved clock, so the tests check how long the client decided to wait, not how long it
 * took. */
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type ClientOptions, type RetryEvent } from '../src';
import { faultServer, json, movedClock, profile } from './harness';

type Server = Awaited<ReturnType<typeof faultServer>>;
let server: Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A client on the fault server with a moved clock; `retries` records every retry it reports. */
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

const ok = (res: Parameters<typeof json>[0]) => json(res, 200, profile(1));
const error = (res: Parameters<typeof json>[0], status: number, headers: Record<string, string> = {}) =>
  json(
    res,
    status,
    { status: 'error', message: `failure ${status}`, correlationId: '00000000-0000-4000-8000-000000000000' },
    headers,
  );

describe('429 and Retry-After', () => {
  it('waits as long as Retry-After says (seconds or a date), then succeeds', async () => {
    const inThreeSeconds = new Date(Date.now() + 3000).toUTCString();
    const { client, server, retries } = await setup((_r, res, n) =>
      n == 0
        ? error(res, 429, { 'retry-after': '2' })
        : n == 1
          ? error(res, 429, { 'retry-after': inThreeSeconds })
          : ok(res),
    );
    expect((await client.contacts.getByUtk('a'.repeat(32))).vid).toBe(1);
    expect(server.seen).toHaveLength(3);
    expect(retries.map((r) => r.status)).toEqual([429, 429]);
    expect(retries[0].delayMs).toBeGreaterThanOrEqual(2000);
    expect(retries[1].delayMs).toBeGreaterThanOrEqual(1000); // an HTTP date has whole seconds
  });

  it('retries a 429 even on a POST that is not idempotent: the platform refused it before doing anything', async () => {
    const { client, server } = await setup((_r, res, n) =>
      n == 0 ? error(res, 429, { 'retry-after': '1' }) : json(res, 200, profile(7)),
    );
    expect((await client.contacts.create({ properties: [{ property: 'email', value: 'a@x.test' }] })).vid).toBe(7);
    expect(server.seen).toHaveLength(2);
  });

  it('holds every request of the client until Retry-After has passed, but not another client’s', async () => {
    const { client, server, moved } = await setup(
      (_r, res, n) => (n == 0 ? error(res, 429, { 'retry-after': '5' }) : ok(res)),
      { retries: 0 },
    );
    const err = await client.contacts.getByVid(1).catch((e) => e);
    expect(err).toMatchObject({ status: 429, retryAfterMs: 5000 });
    expect(moved.elapsed()).toBe(0);
    await client.contacts.getByVid(2);
    expect(moved.elapsed()).toBeGreaterThanOrEqual(5000);
    expect(server.seen).toHaveLength(2);

    const other = movedClock();
    await createClient({
      baseUrl: server.url,
      auth: { accessToken: 'other-token-01' },
      clock: other.clock,
    }).contacts.getByVid(3);
    expect(other.elapsed()).toBe(0);
  });

  it('gives up at once when Retry-After is longer than maxRetryAfterMs', async () => {
    const { client, server } = await setup((_r, res) => error(res, 429, { 'retry-after': '120' }), {
      maxRetryAfterMs: 60_000,
    });
    await expect(client.contacts.getByVid(1)).rejects.toMatchObject({ status: 429, retryAfterMs: 120_000 });
    expect(server.seen).toHaveLength(1);
  });

  it('paces by the rate-limit headers: no requests left means the next one waits for a token', async () => {
    const { client, moved } = await setup((_r, res) =>
      json(res, 200, profile(1), { 'x-svc-ratelimit-remaining': '0', 'x-svc-ratelimit-max': '100' }),
    );
    await client.contacts.getByVid(1);
    expect(moved.elapsed()).toBe(0);
    await client.contacts.getByVid(1);
    expect(moved.elapsed()).toBeGreaterThanOrEqual(100); // one token of 100 per 10 s
  });
});

describe('5xx, resets, slow bodies', () => {
  it('retries a burst of 5xx on idempotent calls, with backoff under the full-jitter cap', async () => {
    const { client, server, retries } = await setup(
      (_r, res, n) => (n < 3 ? error(res, [503, 502, 500][n]) : ok(res)),
      { backoff: { baseMs: 100, maxMs: 250 } },
    );
    expect((await client.contacts.getByUtk('b'.repeat(32))).vid).toBe(1);
    expect(server.seen).toHaveLength(4);
    expect(retries.map((r) => [r.retry, r.status])).toEqual([
      [1, 503],
      [2, 502],
      [3, 500],
    ]);
    retries.forEach((r, i) => expect(r.delayMs).toBeLessThan(Math.min(250, 100 * 2 ** i)));
  });

  it('fails with the last error when the retries run out', async () => {
    const { client, server } = await setup((_r, res) => error(res, 503), { retries: 2 });
    await expect(client.contacts.getByVid(1)).rejects.toMatchObject({ status: 503, message: 'failure 503' });
    expect(server.seen).toHaveLength(3);
  });

  it('does not repeat a non-idempotent POST on 5xx unless the call is marked safe; upserts are safe by nature', async () => {
    const { client, server } = await setup((_r, res, n) =>
      [0, 1, 3].includes(n) ? error(res, 503) : json(res, 200, profile(9)),
    );
    await expect(client.contacts.create({ properties: [] })).rejects.toMatchObject({ status: 503 });
    expect(server.seen).toHaveLength(1);
    expect((await client.contacts.create({ properties: [] }, { safe: true })).vid).toBe(9);
    expect(server.seen).toHaveLength(3);
    await client.lists.add(1, { vids: [1] }); // membership changes repeat harmlessly
    expect(server.seen).toHaveLength(5);
  });

  it('never retries 501 or 4xx', async () => {
    const { client, server } = await setup((req, res) => error(res, req.url.startsWith('/content') ? 501 : 404));
    await expect(client.content.pages.list()).rejects.toMatchObject({ status: 501 });
    await expect(client.contacts.getByVid(5)).rejects.toMatchObject({ status: 404 });
    expect(server.seen).toHaveLength(2);
  });

  it('retries connection resets on idempotent calls only', async () => {
    const { client, server, retries } = await setup((_r, res, n) =>
      n < 2 || n == 3 ? void res.socket?.destroy() : ok(res),
    );
    expect((await client.contacts.getByVid(1)).vid).toBe(1);
    expect(retries.map((r) => r.category)).toEqual(['NETWORK_ERROR', 'NETWORK_ERROR']);
    await expect(client.contacts.create({ properties: [] })).rejects.toMatchObject({
      status: 0,
      category: 'NETWORK_ERROR',
    });
    expect(server.seen).toHaveLength(4);
  });

  it('times out a body that trickles in too slowly, then succeeds on the retry', async () => {
    const { client, server, retries } = await setup(
      (_r, res, n) => {
        if (n == 1) return ok(res);
        // The first answer trickles; the third is slow to start (for the per-call timeout below).
        if (n == 0) res.writeHead(200, { 'content-type': 'application/json' }).write('{"vid":');
        setTimeout(() => (n == 0 ? res.end('1}') : ok(res)), 5000).unref();
      },
      { timeoutMs: 1000 }, // generous: the retry must not time out on a busy machine
    );
    expect((await client.contacts.getByVid(1)).vid).toBe(1);
    expect(retries).toMatchObject([{ category: 'TIMEOUT', status: 0 }]);
    expect(server.seen).toHaveLength(2);
    // A per-call timeout wins over the client's (a local answer can beat a 1 ms timer, so the
    // server holds this one back).
    await expect(client.contacts.getByVid(1, {}, { timeoutMs: 50, retries: 0 })).rejects.toMatchObject({
      status: 0,
      category: 'TIMEOUT',
    });
  });
});

describe('AbortSignal', () => {
  it('aborts a call in flight, without retrying it', async () => {
    const { client, server } = await setup(() => {}); // never answers
    const ac = new AbortController();
    const call = client.contacts.getByVid(1, {}, { signal: ac.signal });
    // In flight: the server has the request (a fixed wait lost that race on a loaded machine).
    await expect.poll(() => server.seen.length).toBe(1);
    ac.abort();
    await expect(call).rejects.toMatchObject({ status: 0, category: 'ABORTED' });
    expect(server.seen).toHaveLength(1);
  });

  it('aborts a call waiting for its retry, and one waiting for a slot, which is then never sent', async () => {
    server = await faultServer((_r, res, n) => void (n == 0 ? error(res, 503) : setTimeout(() => ok(res), 100)));
    const ac = new AbortController();
    const c = createClient({
      baseUrl: server.url,
      auth: { accessToken: 'test-token-0001' },
      backoff: { baseMs: 60_000, maxMs: 60_000 },
      onRetry: () => ac.abort(),
    });
    await expect(c.contacts.getByVid(1, {}, { signal: ac.signal })).rejects.toMatchObject({ category: 'ABORTED' });
    expect(server.seen).toHaveLength(1);

    const one = createClient({ baseUrl: server.url, auth: { accessToken: 'test-token-0001' }, concurrency: 1 });
    const first = one.contacts.getByVid(1);
    const queued = new AbortController();
    const second = one.contacts.getByVid(2, {}, { signal: queued.signal });
    await new Promise((r) => setTimeout(r, 20));
    expect(one.stats()).toEqual({ running: 1, queued: 1 });
    queued.abort();
    await expect(second).rejects.toMatchObject({ category: 'ABORTED' });
    expect((await first).vid).toBe(1);
    expect(server.seen).toHaveLength(2);
  });
});

describe('pacing', () => {
  it('keeps to 100 requests per 10 s by default: the first 100 at once, the rest paced', async () => {
    const { client, moved, server } = await setup((_r, res) => ok(res));
    await Promise.all(Array.from({ length: 100 }, () => client.contacts.getByVid(1)));
    expect(moved.elapsed()).toBe(0);
    await Promise.all(Array.from({ length: 50 }, () => client.contacts.getByVid(1)));
    expect(moved.elapsed()).toBeGreaterThanOrEqual(4900);
    expect(server.seen).toHaveLength(150);
  });

  it('takes another rate and caps the requests in flight', async () => {
    const { client, moved, server } = await setup((_r, res) => void setTimeout(() => ok(res), 10), {
      rateLimit: { max: 10, windowMs: 1000 },
      concurrency: 3,
    });
    await Promise.all(Array.from({ length: 30 }, () => client.contacts.getByVid(1)));
    expect(moved.elapsed()).toBeGreaterThanOrEqual(1900);
    expect(server.inFlight.max).toBe(3);
  });
});

describe('tokens expiring mid-stream', () => {
  it('refreshes once when the platform expires the token under 200 calls in flight, and every call succeeds', async () => {
    let current = '';
    let expired = false;
    let refreshes = 0;
    const { client, server } = await setup(
      (req, res, n) => {
        if (req.url == '/auth/v1/refresh') {
          current = `access-token-${++refreshes}`;
          expired = false;
          return json(res, 200, {
            access_token: current,
            refresh_token: 'refresh-token-0001',
            expires_in: 1800,
            token_type: 'bearer',
            portal_id: 1,
          });
        }
        if (n == 60) expired = true; // the platform revokes the token while calls are running
        if (req.headers.authorization != `Bearer ${current}` || expired)
          return json(res, 401, {
            status: 'error',
            message: 'The OAuth token used to make this call expired 1 minute(s) ago.',
            category: 'EXPIRED_AUTHENTICATION',
          });
        setTimeout(() => ok(res), 2);
      },
      {
        auth: { oauth: { clientId: 'client-1', clientSecret: 'secret-0001', refreshToken: 'refresh-token-0001' } },
        rateLimit: { max: Infinity },
        concurrency: 20,
      },
    );
    const answers = await Promise.all(Array.from({ length: 200 }, () => client.contacts.getByVid(1)));
    expect(answers.every((a) => a.vid == 1)).toBe(true);
    expect(refreshes).toBe(2); // the first token, and one forced refresh
    expect(server.seen.filter((r) => r.url == '/auth/v1/refresh')).toHaveLength(2);
  });
});
