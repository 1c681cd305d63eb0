/** Shared setup for the client's tests: the real platform (in-memory SQLite, random ports), clients
 * for its portals, a moved clock, and a small fault-injecting HTTP server for what the platform
 * never does on purpose (429 bursts, 5xx, resets, slow bodies). Everything listens on 127.0.0.1
 * and is closed by the test file's afterAll. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { sqliteOf, startPlatform, type TestPlatform, type TestPortal } from '../../platform/test/harness';
import { createClient, type Clock, type ClientOptions } from '../src';

export { sqliteOf, startPlatform, type TestPlatform, type TestPortal };

/** The platform with its rate limit out of the way (the client's own pacing is tested separately). */
export const startTestPlatform = (options: Parameters<typeof startPlatform>[0] = {}) =>
  startPlatform({ rateLimit: { max: 1_000_000, windowMs: 10_000 }, ...options });

/** A client on the platform with a portal's private-app token and no client-side pacing. */
export function clientFor(t: TestPlatform, portal: TestPortal = t.portals[0], options: Partial<ClientOptions> = {}) {
  return createClient({
    baseUrl: t.baseUrl,
    formsUrl: t.formsUrl,
    auth: { accessToken: portal.privateAppToken },
    rateLimit: { max: Infinity },
    concurrency: 50,
    ...options,
  });
}

/** OAuth options for a portal of the platform. */
export const oauthFor = (portal: TestPortal) => ({
  clientId: portal.oauth.clientId,
  clientSecret: portal.oauth.clientSecret,
  refreshToken: portal.oauth.refreshToken,
});

/** A clock whose sleeps return at once and move time forward instead: waits become numbers a
 * test can check, and nothing sleeps for real. Parallel sleeps overlap, as real ones would. */
export function movedClock(start = Date.now()) {
  let t = start;
  const slept: number[] = [];
  const clock: Clock = {
    now: () => t,
    async sleep(ms, signal) {
      if (signal?.aborted) throw signal.reason;
      const from = t;
      slept.push(ms);
      await new Promise((resolve) => setImmediate(resolve));
      t = Math.max(t, from + ms);
    },
  };
  return { clock, slept, elapsed: () => t - start };
}

/** A client clock that is the platform's: a sleep moves the platform's clock forward instead of
 * waiting, so token expiry and pacing play out on one timeline. With `busy`, time moves only once
 * it is false (e.g. no call of the client running), so no request is in flight across a jump. */
export function platformClock(t: TestPlatform, busy: () => boolean = () => false): Clock {
  return {
    now: () => t.clock.now,
    async sleep(ms, signal) {
      if (signal?.aborted) throw signal.reason;
      const from = t.clock.now;
      do await new Promise((resolve) => setImmediate(resolve));
      while (busy());
      t.clock.now = Math.max(t.clock.now, from + ms);
    },
  };
}

export interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A local HTTP server whose every answer the test decides. `handle` gets the request (body read)
 * and its 0-based number; `seen` lists every request; `inFlight.max` is the most at once. */
export async function faultServer(handle: (req: Seen, res: ServerResponse, n: number) => void | Promise<void>) {
  const seen: Seen[] = [];
  const inFlight = { now: 0, max: 0 };
  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const r: Seen = {
      method: req.method!,
      url: req.url!,
      headers: req.headers,
      body: Buffer.concat(chunks).toString(),
    };
    const n = seen.push(r) - 1;
    inFlight.max = Math.max(inFlight.max, ++inFlight.now);
    res.on('close', () => inFlight.now--);
    try {
      await handle(r, res, n);
    } catch {
      res.destroy();
    }
  };
  const server = createServer((req, res) => void serve(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    seen,
    inFlight,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** Writes a JSON answer. */
export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

/** A contact profile as the platform shapes it (for fault-server answers to getByUtk / getByVid). */
export const profile = (vid: number) => ({
  vid,
  'canonical-vid': vid,
  'merged-vids': [],
  'portal-id': 1,
  'is-contact': true,
  properties: {},
  'form-submissions': [],
  'list-memberships': [],
  'identity-profiles': [],
  'merge-audits': [],
});

/** A proxy in front of a server (the platform) that records every answer's status, so a test can
 * count what the platform refused. Point a client's baseUrl at its `url`. */
export async function countingProxy(target: string) {
  const answers: { method: string; url: string; status: number }[] = [];
  const proxy = await faultServer(async (req, res) => {
    const { host: _host, connection: _connection, 'content-length': _length, ...headers } = req.headers;
    const answer = await request(target + req.url, { method: req.method, headers, body: req.body || undefined });
    const body = Buffer.from(await answer.body.arrayBuffer());
    answers.push({ method: req.method, url: req.url, status: answer.statusCode });
    res
      .writeHead(answer.statusCode, { 'content-type': String(answer.headers['content-type'] ?? 'application/json') })
      .end(body);
  });
  return { ...proxy, answers };
}
