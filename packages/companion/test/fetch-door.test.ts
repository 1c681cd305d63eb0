/** What only the fetch door has, called directly with Node's own `Request` (no server): exported as
 * a Next.js route handler as it is, `basePath`, HEAD, and where the client's address comes from for
 * the rate limit (the server's `clientAddress`, else the last `X-Forwarded-For` hop). The routes
 * themselves are the shared suite's, run through both doors. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompanion as createMiddleware } from '../src';
import { createCompanion } from '../src/fetch';
import { identifiedVisitor, logCapture, newUtk, startTestPlatform, tempDir, type TestPlatform } from './harness';

let t: TestPlatform;
const ada = newUtk();
const open: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  t = await startTestPlatform();
  await identifiedVisitor(t, ada, { email: 'ada@example.com', firstname: 'Ada' });
});
afterAll(async () => {
  for (const c of open) await c.close();
  await t.close();
});

/** A fetch-door companion on the test platform. */
function companion(options: Parameters<typeof createCompanion>[0] extends infer O ? Partial<O> : never = {}) {
  const logs = logCapture();
  const c = createCompanion({
    baseUrl: t.baseUrl,
    formsUrl: t.formsUrl,
    auth: { accessToken: t.portals[0].privateAppToken },
    logger: logs.logger,
    now: () => t.clock.now,
    ...options,
    events: { outboxFile: `${tempDir()}/outbox.jsonl`, handleSigterm: false, ...options.events },
  });
  open.push(c);
  return Object.assign(c, { logs });
}

describe('the fetch handler', () => {
  it('works exported as Next.js route handlers, which pass a context with params and no `this`', async () => {
    const c = companion();
    // app/svc/[...path]/route.ts: export const GET = companion.fetch, POST = companion.fetch, ...
    const { fetch: GET } = c;
    const context = { params: Promise.resolve({ path: ['visitor'] }) };
    const res = await GET(
      new Request('http://localhost:3000/svc/visitor', { headers: { cookie: `svcutk=${ada}` } }),
      context,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.json()).toMatchObject({ known: true, properties: { firstname: 'Ada' } });
  });

  it('answers under basePath only, with a JSON 404 (and the security headers) elsewhere', async () => {
    const c = companion({ basePath: '/api/svc/' });
    expect((await c.fetch(new Request('http://x.test/api/svc/visitor'))).status).toBe(200);
    expect((await c.fetch(new Request('http://x.test/API/Svc/visitor'))).status).toBe(200);
    for (const path of ['/svc/visitor', '/api/svcvisitor', '/visitor']) {
      const res = await c.fetch(new Request(`http://x.test${path}`));
      expect(res.status, path).toBe(404);
      expect(await res.json(), path).toEqual({ status: 'error', message: `no companion route GET ${path}` });
      expect(res.headers.get('content-security-policy'), path).toContain("default-src 'self'");
    }
    const root = companion({ basePath: '/' });
    expect(await (await root.fetch(new Request('http://x.test/visitor'))).json()).toEqual({ known: false });
    expect(() => companion({ basePath: '/svc?x' })).toThrow(/basePath must be a path/);
  });

  it('answers HEAD with the headers and no body', async () => {
    const c = companion();
    const res = await c.fetch(new Request('http://x.test/svc/preferences.css', { method: 'HEAD' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(Number(res.headers.get('content-length'))).toBeGreaterThan(100);
    expect(res.body).toBeNull();
  });

  it('answers the same through both doors of one companion', async () => {
    const middleware = createMiddleware({
      baseUrl: t.baseUrl,
      auth: { accessToken: t.portals[0].privateAppToken },
      logger: false,
      events: { outboxFile: `${tempDir()}/o.jsonl`, handleSigterm: false },
    });
    open.push(middleware);
    expect(typeof middleware).toBe('function');
    const res = await middleware.fetch(new Request('http://x.test/svc/forms/no%20way'));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      status: 'error',
      message: 'guid: a form guid is 1 to 64 letters, digits or dashes',
    });
  });
});

describe('the client address, for the rate limit', () => {
  const limited = () => companion({ rateLimit: { limit: 2, windowMs: 60_000 } });
  const status = async (c: ReturnType<typeof companion>, headers: Record<string, string>, context?: unknown) =>
    (await c.fetch(new Request('http://x.test/svc/visitor', { headers }), context)).status;

  it('is the clientAddress the server gives, over any X-Forwarded-For', async () => {
    const c = limited();
    const from = (clientAddress: string, xff = '') =>
      status(c, xff ? { 'x-forwarded-for': xff } : {}, { clientAddress });
    expect([
      await from('192.0.2.1'),
      await from('192.0.2.1', '203.0.113.1'),
      await from('192.0.2.1', '203.0.113.2'),
    ]).toEqual([200, 200, 429]);
    expect(await from('192.0.2.2')).toBe(200);
  });

  it('is else the last X-Forwarded-For hop (the nearest proxy\u2019s), so a client cannot choose its own', async () => {
    const c = limited();
    const via = (xff: string) => status(c, { 'x-forwarded-for': xff });
    expect([
      await via('203.0.113.7'),
      await via('198.51.100.1, 203.0.113.7'),
      await via('198.51.100.2, 203.0.113.7'),
    ]).toEqual([200, 200, 429]);
    expect(await via('203.0.113.8')).toBe(200);
  });

  it('counts requests it cannot tell apart as one client, and says so once in the log', async () => {
    const c = limited();
    expect([await status(c, {}), await status(c, {}), await status(c, {})]).toEqual([200, 200, 429]);
    expect(c.logs.lines.filter((l) => l.includes('cannot tell clients apart'))).toHaveLength(1);
  });
});
