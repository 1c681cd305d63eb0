import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type TestPlatform } from './harness';
import { issueCredential } from '../src/store/portals';

let t: TestPlatform;
let rotating: TestPlatform;
beforeAll(async () => {
  t = await startPlatform({ rateLimit: { max: 5, windowMs: 10_000 } });
  rotating = await startPlatform({ rotateRefreshTokens: true, tokenLifetimeSeconds: 60 });
});
afterAll(async () => {
  await t.close();
  await rotating.close();
});

const refresh = (p: TestPlatform, fields: Record<string, string>) =>
  p.call('POST', '/auth/v1/refresh', {
    body: new URLSearchParams({ grant_type: 'refresh_token', ...fields }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    portal: null,
  });
const clientOf = (p: TestPlatform) => ({
  client_id: p.portals[0].oauth.clientId,
  client_secret: p.portals[0].oauth.clientSecret,
  refresh_token: p.portals[0].oauth.refreshToken,
});

describe('OAuth refresh', () => {
  it('issues an access token that works until it expires, then EXPIRED_AUTHENTICATION', async () => {
    const res = await refresh(rotating, clientOf(rotating));
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ token_type: 'bearer', expires_in: 60, portal_id: 62515 });
    const headers = { authorization: `Bearer ${res.json.access_token}` };
    expect((await rotating.call('GET', '/contacts/v1/contacts/statistics', { portal: null, headers })).status).toBe(
      200,
    );
    rotating.clock.now += 61_000;
    const expired = await rotating.call('GET', '/contacts/v1/contacts/statistics', { portal: null, headers });
    expect(expired.status).toBe(401);
    expect(expired.json).toMatchObject({
      category: 'EXPIRED_AUTHENTICATION',
      message: 'The OAuth token used to make this call expired 1 minute(s) ago.',
    });
  });

  it('takes the same exchange at the OAuth token endpoint, which the legacy client calls', async () => {
    const res = await t.call('POST', '/oauth/v1/token', {
      body: new URLSearchParams({ grant_type: 'refresh_token', ...clientOf(t) }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      portal: null,
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ token_type: 'bearer', portal_id: 62515 });
    const headers = { authorization: `Bearer ${res.json.access_token}` };
    expect((await t.call('GET', '/contacts/v1/contacts/statistics', { portal: null, headers })).status).toBe(200);
  });

  it('takes the access token as ?access_token= too (the OAuth 1-era way hapipy and older clients send it), the header winning', async () => {
    t.clock.now += 11_000; // a fresh rate-limit window (5 in 10 s here)
    const { json } = await refresh(t, clientOf(t));
    const token = encodeURIComponent(json.access_token);
    expect(
      (await t.call('GET', `/contacts/v1/contacts/statistics?access_token=${token}`, { portal: null })).status,
    ).toBe(200);
    // A write: past authentication to the body's check (a contact made would change the usage test's count).
    const write = await t.call('POST', `/contacts/v1/contact?access_token=${token}`, {
      portal: null,
      body: { properties: 'none' },
    });
    expect([write.status, write.json.message]).toEqual([400, expect.stringMatching(/^body\.properties: /)]);
    const wrong = await t.call('GET', '/contacts/v1/contacts/statistics?access_token=not-a-token', { portal: null });
    expect([wrong.status, wrong.json.category, wrong.text.includes('not-a-token')]).toEqual([
      401,
      'INVALID_AUTHENTICATION',
      false,
    ]);
    const both = await t.call('GET', `/contacts/v1/contacts/statistics?access_token=${token}`, {
      portal: null,
      headers: { authorization: 'Bearer not-a-token' },
    });
    expect(both.status).toBe(401);
    // Expired, as by the header.
    t.clock.now += 1_801_000;
    expect(
      (await t.call('GET', `/contacts/v1/contacts/statistics?access_token=${token}`, { portal: null })).json.category,
    ).toBe('EXPIRED_AUTHENTICATION');
  });

  it('ignores credentials sent to a public route (clients attach their token to every call)', async () => {
    const stale = { authorization: 'Bearer svc-at-expired-or-unknown' };
    const res = await t.call('POST', '/auth/v1/refresh', {
      body: new URLSearchParams({ grant_type: 'refresh_token', ...clientOf(t) }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...stale },
      portal: null,
    });
    expect(res.status).toBe(200);
    const pixel = await t.call('GET', `/v1/event?_n=seen&_a=62515&utk=${'a'.repeat(32)}&hapikey=not-a-key`, {
      headers: stale,
      portal: null,
    });
    expect(pixel.status).toBe(200);
  });

  it('rotates the refresh token when configured: the old one stops working', async () => {
    const first = await refresh(rotating, {
      ...clientOf(rotating),
      refresh_token: rotating.portals[1].oauth.refreshToken,
      client_id: rotating.portals[1].oauth.clientId,
      client_secret: rotating.portals[1].oauth.clientSecret,
    });
    expect(first.status).toBe(200);
    expect(first.json.refresh_token).not.toBe(rotating.portals[1].oauth.refreshToken);
    const again = await refresh(rotating, {
      refresh_token: rotating.portals[1].oauth.refreshToken,
      client_id: rotating.portals[1].oauth.clientId,
      client_secret: rotating.portals[1].oauth.clientSecret,
    });
    expect(again.status).toBe(400);
  });

  it('refuses wrong secrets without echoing them, and validates the form', async () => {
    const bad = await refresh(t, { ...clientOf(t), client_secret: 'svc-secret-wrong' });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toBe('The client credentials or the refresh token are not valid.');
    expect(bad.text).not.toContain('svc-secret-wrong');
    const other = await refresh(t, { ...clientOf(t), client_id: t.portals[1].oauth.clientId });
    expect(other.status).toBe(400);
    const missing = await refresh(t, { client_id: 'x', client_secret: 'y' });
    expect(missing.json.message).toBe('body.refresh_token: is required');
  });
});

describe('credentials and scopes', () => {
  it('accepts hapikey only where the spec allows it (content API v2)', async () => {
    const res = await t.call('GET', `/contacts/v1/contacts/statistics?hapikey=${t.portals[0].apiKey}`, {
      portal: null,
    });
    expect(res.status).toBe(401);
    expect(res.json.message).toContain('does not accept the hapikey parameter');
    expect(res.text).not.toContain(t.portals[0].apiKey);
  });

  it('answers a content API v2 401 with succeeded: false, as the real one, beside the legacy keys', async () => {
    for (const query of ['', '?hapikey=not-a-key', '?access_token=not-a-token']) {
      const res = await t.call('GET', `/content/api/v2/blog-posts${query}`, { portal: null });
      expect([res.status, res.json.succeeded, res.json.status, res.json.category]).toEqual([
        401,
        false,
        'error',
        'INVALID_AUTHENTICATION',
      ]);
    }
    // Elsewhere the legacy body alone.
    expect((await t.call('GET', '/contacts/v1/contacts/statistics', { portal: null })).json).not.toHaveProperty(
      'succeeded',
    );
  });

  it('answers 403 MISSING_SCOPES with the required scopes', async () => {
    const token = await issueCredential(t.platform.services.engine, 'privateApp', {
      portalId: 62515,
      scopes: ['forms'],
      now: t.clock.now,
    });
    const res = await t.call('GET', '/contacts/v1/lists/all/contacts/all', {
      portal: null,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({
      category: 'MISSING_SCOPES',
      errors: [{ context: { requiredScopes: ['crm.objects.contacts.read', 'crm.objects.contacts.write', 'content'] } }],
    });
  });

  it('rate-limits per token with X-Svc-RateLimit headers and 429 + Retry-After', async () => {
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof t.call>> | undefined;
    for (let i = 0; i < 6; i++) {
      last = await t.call('GET', '/contacts/v1/contacts/statistics', { portal: t.portals[1] });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect(last!.headers.get('x-svc-ratelimit-max')).toBe('5');
    expect(last!.headers.get('x-svc-ratelimit-remaining')).toBe('0');
    expect(last!.headers.get('retry-after')).toBe('10');
    expect(last!.json).toMatchObject({ errorType: 'RATE_LIMIT', policyName: 'TEN_SECONDLY_ROLLING' });
    // Another token has its own budget; the window ends.
    expect((await t.call('GET', '/contacts/v1/contacts/statistics')).status).toBe(200);
    t.clock.now += 10_000;
    expect((await t.call('GET', '/contacts/v1/contacts/statistics', { portal: t.portals[1] })).status).toBe(200);
  });
});

describe('rate limits that mean what they say', () => {
  let r: TestPlatform;
  beforeAll(async () => {
    r = await startPlatform({
      rateLimit: { max: 20, windowMs: 10_000 },
      publicRateLimit: { max: 3, windowMs: 60_000 },
    });
  });
  afterAll(() => r.close());
  const stats = (headers: Record<string, string>) =>
    fetch(`${r.baseUrl}/contacts/v1/contacts/statistics`, { headers }).then((res) => res.status);

  it('rolls: a burst at the end of one window and another at the start of the next pass no more than the limit (a fixed window passed 197 of 200 at 100)', async () => {
    const portal = r.portals[1];
    r.clock.now = Math.ceil(r.clock.now / 10_000) * 10_000 + 9_000; // 1 s before a fixed window's boundary
    const burst = async () =>
      (await Promise.all(Array.from({ length: 20 }, () => stats(portal.auth)))).filter((s) => s == 200).length;
    let passed = await burst();
    r.clock.now += 1_500;
    passed += await burst();
    expect(passed).toBe(20);
    r.clock.now += 8_600;
    expect(await burst()).toBe(20);
  });

  it('counts per portal: a portal\u2019s tokens and API key share one budget; an OAuth app has its own in the portal', async () => {
    const portal = r.portals[0];
    r.clock.now += 60_000;
    const bearer = { authorization: `Bearer ${portal.privateAppToken}` };
    const statuses = [];
    for (let i = 0; i < 10; i++) statuses.push(await stats(bearer));
    for (let i = 0; i < 10; i++)
      statuses.push(
        await fetch(`${r.baseUrl}/content/api/v2/blog-posts?hapikey=${portal.apiKey}`).then((res) => res.status),
      );
    expect(statuses.every((s) => s == 200)).toBe(true);
    expect(await stats(bearer)).toBe(429);
    const token = await fetch(`${r.baseUrl}/auth/v1/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        client_id: portal.oauth.clientId,
        client_secret: portal.oauth.clientSecret,
        refresh_token: portal.oauth.refreshToken,
      }),
    }).then((res) => res.json());
    expect(await stats({ authorization: `Bearer ${token.access_token}` })).toBe(200);
  });

  it('limits each public route per address, with Retry-After', async () => {
    r.clock.now += 120_000;
    const refresh = () =>
      fetch(`${r.baseUrl}/auth/v1/refresh`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          client_id: 'x',
          client_secret: 'wrong',
          refresh_token: 'wrong',
        }),
      });
    const statuses = [];
    let last: Response | undefined;
    for (let i = 0; i < 5; i++) statuses.push((last = await refresh()).status);
    expect(statuses).toEqual([400, 400, 400, 429, 429]);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(50);
    expect(await last!.json()).toMatchObject({ errorType: 'RATE_LIMIT', policyName: 'PER_ADDRESS' });
    // Each public route has its own count: form submissions are still let through.
    const submit = await fetch(`${r.formsUrl}/uploads/form/v2/${r.portals[0].portalId}/no-such-form`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=a%40b.co',
    });
    expect(submit.status).toBe(404);
    r.clock.now += 60_000;
    expect((await refresh()).status).toBe(400);
  });
});

describe('record limits', () => {
  it('reports real contact usage', async () => {
    await t.call('POST', '/contacts/v1/contact', { body: { properties: [{ property: 'email', value: 'x@y.test' }] } });
    const res = await t.call('GET', '/crm/v3/limits/records');
    expect(res.status).toBe(200);
    expect(res.json.svcDefinedObjectTypes[0]).toEqual({
      objectTypeId: '0-1',
      singularLabel: 'Contact',
      pluralLabel: 'Contacts',
      limit: 10_000_000,
      usage: 1,
      percentage: 0,
    });
    expect(res.json.customObjectTypes).toMatchObject({ overallLimit: 500_000, overallUsage: 0 });
  });
});

describe('references stay inside the portal', () => {
  it('refuses a write that names another portal\u2019s blog, list or form, with a 404 naming the reference', async () => {
    const [a, b] = t.portals;
    t.clock.now += 60_000; // a fresh rate-limit window
    const as = (portal: typeof a) => ({ portal });
    const blogOfB = (await t.call('GET', '/content/api/v2/blogs', as(b))).json.objects[0].id;
    const listOfB = (await t.call('POST', '/contacts/v1/lists', { body: { name: 'B list' }, ...as(b) })).json.listId;
    const formOfB = (
      await t.call('POST', '/contacts/v1/forms', { body: { name: 'B form', fields: [{ name: 'email' }] }, ...as(b) })
    ).json.guid;

    const mapping = await t.call('POST', '/content/api/v2/url-mappings', {
      body: { route_prefix: '/x', destination: '/y', redirect_style: 301, content_group_id: blogOfB },
      ...as(a),
    });
    expect([mapping.status, mapping.json.message]).toEqual([
      404,
      `body.content_group_id: no blog ${blogOfB} in this portal`,
    ]);
    const flow = await t.call('POST', '/automation/v2/workflows', {
      body: { name: 'Cross', actions: [{ type: 'ADD_TO_LIST', listId: listOfB }] },
      ...as(a),
    });
    expect([flow.status, flow.json.message]).toEqual([404, `body.actions.0.listId: no list ${listOfB} in this portal`]);
    const list = await t.call('POST', '/contacts/v1/lists', {
      body: { name: 'Cross', dynamic: true, filters: [[{ operator: 'HAS_FILLED_OUT_FORM', form: formOfB }]] },
      ...as(a),
    });
    expect([list.status, list.json.message]).toEqual([404, `body.filters.0.0.form: no form ${formOfB} in this portal`]);
    // Their own references are fine.
    const blogOfA = (await t.call('GET', '/content/api/v2/blogs', as(a))).json.objects[0].id;
    expect(
      (
        await t.call('POST', '/content/api/v2/url-mappings', {
          body: { route_prefix: '/x', destination: '/y', redirect_style: 301, content_group_id: blogOfA },
          ...as(a),
        })
      ).status,
    ).toBe(201);
  });
});
