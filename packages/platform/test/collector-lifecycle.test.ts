/** The collector (http/collector.ts) is a fast path of the one request lifecycle
 * (http/catalog-call.ts): every step but parsing is the catalog routes'. Here the collector and
 * the Express routes (http/router.ts) serve over the same deps, and a collector route answers as
 * a catalog route of the same kind does: a public writing GET (the pixel beside `events.trigger`)
 * and a public POST (a batch beside `auth.token`). The same per-address limit (429, `Retry-After`,
 * the body), the 501 of a missing handler, a handler's error, an unexpected error (500, nothing
 * said, logged once as the same line), an answer off the catalog's response schema, and a 405 with
 * `Allow`. What differs is the collector's own and documented: its CORS headers. */
import express from 'express';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Queryable } from '../src/db/engine';
import { PlatformError } from '../src/domain/errors';
import { Reply, type Handler } from '../src/handlers/handler';
import type { CatalogDeps } from '../src/http/catalog-call';
import { clientIp } from '../src/http/client-ip';
import { collector, COLLECTOR_ROUTES } from '../src/http/collector';
import { addressLimiter } from '../src/http/rate-limit';
import { mountCatalog } from '../src/http/router';

const PIXEL_QUERY = new URLSearchParams({ k: '1', a: '62515', vi: 'a'.repeat(32) }).toString();
const EVENT_QUERY = new URLSearchParams({ _n: 'signup', _a: '62515' }).toString();
/** Each kind of route, as the collector serves it and as a catalog route of the same kind does. */
const PAIRS = {
  'a public GET that writes': {
    collector: { id: 'collect.pixel', method: 'GET', path: `/collect/p.gif?${PIXEL_QUERY}` },
    catalog: { id: 'events.trigger', method: 'GET', path: `/v1/event?${EVENT_QUERY}` },
  },
  'a public POST': {
    collector: { id: 'collect.batch', method: 'POST', path: '/collect/e', body: '[{}]', type: 'text/plain' },
    catalog: {
      id: 'auth.token',
      method: 'POST',
      path: '/oauth/v1/token',
      body: 'grant_type=refresh_token&client_id=c&client_secret=s&refresh_token=r',
      type: 'application/x-www-form-urlencoded',
    },
  },
} as const;
type Side = { id: string; method: string; path: string; body?: string; type?: string };

interface Served {
  url: string;
  logged: { obj: object; msg: string }[];
  server: Server;
}
let served: Served | undefined;
afterEach(async () => {
  await new Promise((resolve) => served?.server.close(resolve));
  served = undefined;
});

/** The collector in front of the Express routes, as app.ts puts them, over one set of deps whose
 * handlers are `handlers` (by route id) and whose per-address limit lets one request through. */
async function serve(handlers: Record<string, Handler<never>>): Promise<Served> {
  const logged: Served['logged'] = [];
  const engine = {} as Queryable;
  const deps: CatalogDeps = {
    handlers,
    clientIp: clientIp(),
    authenticate: async () => ({ kind: 'none', scopes: [] }),
    limit: async () => {},
    limitAddress: addressLimiter({ max: 1, windowMs: 60_000 }, () => 1_700_000_000_000),
    log: { error: (obj, msg) => void logged.push({ obj, msg }) },
    checkResponses: true,
    write: async <T>(fn: (t: Queryable) => T): Promise<Awaited<T>> => await fn(engine),
    engine,
    settled: async () => {},
  };
  const app = express();
  mountCatalog(app, 'base', deps, COLLECTOR_ROUTES);
  const collect = collector(deps);
  const server = createServer((req, res) => collect(req, res) || app(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (served = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, logged, server });
}

/** A request from `address` (the forwarded one: the test is on loopback, a trusted proxy). */
async function call(side: Side, address: string, method: string = side.method) {
  const res = await fetch(`${served!.url}${side.path}`, {
    method,
    headers: { 'x-forwarded-for': address, ...(side.type && { 'content-type': side.type }) },
    ...(method == 'POST' && side.body !== undefined && { body: side.body }),
  });
  const text = await res.text();
  const json = (res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : undefined) as
    Record<string, unknown> | undefined;
  // The ids of an error body are new each time.
  const { correlationId, requestId, ...body } = json ?? {};
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    allow: res.headers.get('allow'),
    contentType: res.headers.get('content-type'),
    body,
    ids: [typeof correlationId, typeof requestId],
  };
}

const gif: Handler<never> = () => new Reply(200, Buffer.from('GIF89a'), { 'Content-Type': 'image/gif' });

describe.each(Object.entries(PAIRS))('the collector beside a catalog route: %s', (_kind, pair) => {
  const both = (fn: Handler<never>) => ({ [pair.collector.id]: fn, [pair.catalog.id]: fn });

  it('admits with the same per-address limit: the same 429, Retry-After and body', async () => {
    await serve(
      both(pair.collector.method == 'GET' ? gif : () => ({ accepted: 0, duplicates: 0, rejected: [] }) as never),
    );
    // The catalog route's handler answers what its schema allows; only the 429s are compared.
    await call(pair.collector, '203.0.113.1');
    await call(pair.catalog, '203.0.113.1');
    const [collected, cataloged] = [await call(pair.collector, '203.0.113.1'), await call(pair.catalog, '203.0.113.1')];
    expect(collected.status).toBe(429);
    expect(collected.body).toEqual({
      status: 'error',
      message: `Too many requests from this address: at most 1 in 60 s; try again in ${collected.retryAfter} s.`,
      errorType: 'RATE_LIMIT',
      policyName: 'PER_ADDRESS',
    });
    expect(collected).toEqual(cataloged);
    // Another address is not limited by the first one's requests.
    expect((await call(pair.collector, '203.0.113.2')).status).not.toBe(429);
  });

  it("answers a handler's error as a catalog route does", async () => {
    await serve(
      both(() => {
        throw new PlatformError('forbidden', 'not for this portal', { category: 'MISSING_SCOPES' });
      }),
    );
    const collected = await call(pair.collector, '198.51.100.1');
    expect(collected).toMatchObject({ status: 403, body: { status: 'error', message: 'not for this portal' } });
    expect(collected).toEqual(await call(pair.catalog, '198.51.100.1'));
  });

  it('answers an unexpected error 500 without a word about it, and logs it as the same line', async () => {
    await serve(
      both(() => {
        throw new Error('secret detail');
      }),
    );
    const collected = await call(pair.collector, '198.51.100.2');
    expect(collected).toMatchObject({ status: 500, body: { status: 'error', message: 'internal error' } });
    expect(collected).toEqual(await call(pair.catalog, '198.51.100.2'));
    expect(served!.logged.map((l) => l.msg)).toEqual(['unhandled error', 'unhandled error']);
    expect(served!.logged.map((l) => (l.obj as { err: Error }).err.message)).toEqual([
      'secret detail',
      'secret detail',
    ]);
  });

  it('answers a route without a handler 501, as every catalog route does', async () => {
    await serve({});
    const [collected, cataloged] = [
      await call(pair.collector, '198.51.100.3'),
      await call(pair.catalog, '198.51.100.3'),
    ];
    for (const [side, answer] of [
      [pair.collector, collected],
      [pair.catalog, cataloged],
    ] as const)
      expect(answer).toMatchObject({
        status: 501,
        body: {
          status: 'error',
          message: `${side.method} ${side.path.split('?')[0]} is not implemented by this platform yet`,
          category: 'NOT_IMPLEMENTED',
        },
      });
    expect({ ...collected, body: undefined }).toEqual({ ...cataloged, body: undefined });
  });

  it("checks the handler's answer against the catalog's response schema", async () => {
    await serve(both(() => ({ off: 'schema' }) as never));
    const collected = await call(pair.collector, '198.51.100.5');
    const cataloged = await call(pair.catalog, '198.51.100.5');
    for (const [side, answer] of [
      [pair.collector, collected],
      [pair.catalog, cataloged],
    ] as const) {
      expect(answer.status).toBe(500);
      expect(answer.body.message).toMatch(
        new RegExp(`^${side.id.replace('.', '\\.')} answered off its catalog schema: `),
      );
    }
    expect({ ...collected, body: undefined }).toEqual({ ...cataloged, body: undefined });
  });

  it('answers another method 405, Allow naming the methods the path takes (the collector its preflight too)', async () => {
    await serve({});
    const other = pair.collector.method == 'GET' ? 'PUT' : 'GET';
    const collected = await call(pair.collector, '198.51.100.6', other);
    const cataloged = await call(pair.catalog, '198.51.100.6', other);
    expect(collected.allow).toBe(`${pair.collector.method}, OPTIONS`);
    for (const answer of [collected, cataloged]) {
      const methods = answer.allow!.split(', ').filter((m) => m != 'OPTIONS');
      expect(answer).toMatchObject({
        status: 405,
        body: { status: 'error', message: `${other} is not allowed here; use ${methods.join(' or ')}` },
      });
    }
    expect({ ...collected, allow: undefined, body: undefined }).toEqual({
      ...cataloged,
      allow: undefined,
      body: undefined,
    });
  });
});
