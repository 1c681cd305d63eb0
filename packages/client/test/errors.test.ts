/** SvcApiError: what it carries (status, category, ids, Retry-After, the parsed body) and what it
 * never carries (a token, key or secret), in every way it can be rendered. */
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, SvcApiError } from '../src';
import { faultServer, json, oauthFor, startTestPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
beforeAll(async () => {
  t = await startTestPlatform();
});
afterAll(() => t.close());

/** Every rendering of an error a log line or a response could end up with. */
const renderings = (err: SvcApiError) => [
  JSON.stringify(err),
  inspect(err),
  inspect(err, { showHidden: true, depth: 10 }),
  String(err),
  err.message,
  err.stack ?? '',
  JSON.stringify(err.body ?? ''),
];
const expectClean = (err: SvcApiError, secrets: string[]) => {
  for (const text of renderings(err)) for (const s of secrets) expect(text).not.toContain(s);
};

describe('SvcApiError', () => {
  it('carries status, category, correlation and request ids and the parsed body', async () => {
    const c = createClient({ baseUrl: t.baseUrl, auth: { accessToken: t.portals[0].privateAppToken } });
    const err: SvcApiError = await c.contacts
      .create({ properties: [{ property: 'email', value: 'nope' }] })
      .catch((e) => e);
    expect(err).toBeInstanceOf(SvcApiError);
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({
      name: 'SvcApiError',
      status: 400,
      method: 'POST',
      path: '/contacts/v1/contact',
      category: 'VALIDATION_ERROR',
    });
    expect(err.correlationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(err.requestId).toBe(err.correlationId!.replace(/-/g, ''));
    expect(err.body).toMatchObject({ validationResults: [{ error: 'INVALID_EMAIL' }] });
    expect(JSON.parse(JSON.stringify(err))).toMatchObject({
      status: 400,
      category: 'VALIDATION_ERROR',
      correlationId: err.correlationId,
    });
    expect(inspect(err)).toContain('400 VALIDATION_ERROR POST /contacts/v1/contact');
    expectClean(err, [t.portals[0].privateAppToken]);
  });

  it('carries Retry-After and the rate-limit category of a real 429', async () => {
    const limited = await startTestPlatform({ rateLimit: { max: 2, windowMs: 10_000 } });
    try {
      const c = createClient({
        baseUrl: limited.baseUrl,
        auth: { accessToken: limited.portals[0].privateAppToken },
        retries: 0,
        rateLimit: { max: Infinity },
      });
      await c.contacts.statistics();
      await c.contacts.statistics();
      const err: SvcApiError = await c.contacts.statistics().catch((e) => e);
      expect(err).toMatchObject({ status: 429, category: 'RATE_LIMIT', retryAfterMs: 10_000 });
      expect(err.body).toMatchObject({ policyName: 'TEN_SECONDLY_ROLLING' });
    } finally {
      await limited.close();
    }
  });

  it('keeps an API key out of the path and every rendering', async () => {
    const key = t.portals[0].apiKey;
    const c = createClient({ baseUrl: t.baseUrl, auth: { apiKey: key } });
    const err: SvcApiError = await c.content.blogs.get(12345).catch((e) => e);
    expect(err.status).toBe(404);
    expect(err.path).toBe('/content/api/v2/blogs/12345?hapikey=[redacted]');
    expectClean(err, [key]);
  });

  it('keeps OAuth secrets out of a failed refresh', async () => {
    const p = t.portals[1];
    const o = { ...oauthFor(p), refreshToken: 'svc-rt-made-up-but-secret' };
    const c = createClient({ baseUrl: t.baseUrl, auth: { oauth: o } });
    const err: SvcApiError = await c.contacts.statistics().catch((e) => e);
    expect(err).toMatchObject({ status: 400, category: 'BAD_REFRESH_TOKEN', path: '/auth/v1/refresh' });
    expectClean(err, [o.clientSecret, o.refreshToken]);
  });

  it('cuts secrets out of an error body that echoes them', async () => {
    const server = await faultServer((req, res) =>
      json(res, 400, {
        status: 'error',
        message: `bad request ${req.headers.authorization} ${req.url}`,
        echo: { auth: req.headers.authorization, url: req.url },
      }),
    );
    try {
      const token = 'svc-pat-echoed-secret-0001';
      const err: SvcApiError = await createClient({ baseUrl: server.url, auth: { accessToken: token } })
        .contacts.getByVid(1)
        .catch((e) => e);
      expect(err.message).toBe('bad request Bearer [redacted] /contacts/v1/contact/vid/1/profile');
      expect(err.body).toMatchObject({ echo: { auth: 'Bearer [redacted]' } });
      expectClean(err, [token]);

      const key = 'svc-key-echoed-secret-0001';
      const keyErr: SvcApiError = await createClient({ baseUrl: server.url, auth: { apiKey: key } })
        .content.pages.get(1)
        .catch((e) => e);
      expect(keyErr.status).toBe(400);
      expectClean(keyErr, [key]);
    } finally {
      await server.close();
    }
  });

  it('reports a connection failure with status 0, and a non-JSON error body as text', async () => {
    const server = await faultServer(
      (_req, res) => void res.writeHead(404, { 'content-type': 'text/html' }).end('<html>Not Found</html>'),
    );
    const url = server.url;
    try {
      const err: SvcApiError = await createClient({ baseUrl: url, auth: { accessToken: 'svc-pat-0123456789' } })
        .contacts.getByVid(1)
        .catch((e) => e);
      expect(err).toMatchObject({
        status: 404,
        body: '<html>Not Found</html>',
        message: 'GET /contacts/v1/contact/vid/1/profile answered 404',
      });
    } finally {
      await server.close();
    }
    const token = 'svc-pat-0123456789';
    const down: SvcApiError = await createClient({
      baseUrl: url,
      auth: { accessToken: token },
      retries: 1,
      backoff: { baseMs: 1, maxMs: 1 },
    })
      .contacts.getByVid(1)
      .catch((e) => e);
    expect(down).toMatchObject({ status: 0, category: 'NETWORK_ERROR' });
    expect(down.message).toMatch(/^GET \/contacts\/v1\/contact\/vid\/1\/profile failed: ECONNREFUSED/);
    expectClean(down, [token]);
  });
});
