/** Two platforms on one PostgreSQL database, as two processes would be (each its own pool): they
 * migrate once between them, and share what the database keeps — OAuth tokens, and the rate limits'
 * counts, so a portal's budget is one across them. PostgreSQL only by nature. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type TestPlatform } from './harness';
import { havePostgres, PG_URL, pgSchema, withSearchPath } from './postgres';

const schema = await pgSchema('processes');

describe.skipIf(!havePostgres)('two platforms on one PostgreSQL database', () => {
  let a: TestPlatform;
  let b: TestPlatform;
  // One clock: the rate limits' windows are the same time on both.
  const clock = { now: Date.now() };
  const options = {
    database: withSearchPath(PG_URL, schema),
    now: () => clock.now,
    rateLimit: { max: 5, windowMs: 10_000 },
    publicRateLimit: { max: 3, windowMs: 60_000 },
    collectorRateLimit: { max: 3, windowMs: 60_000 },
  };

  beforeAll(async () => {
    // Started together: one migrates, the other waits for it under the migration lock.
    [a, b] = await Promise.all([
      startPlatform({ ...options, portals: [{ id: 62515 }, { id: 99999 }] }),
      startPlatform({ ...options, portals: [] }),
    ]);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  const settings = (p: TestPlatform, headers: Record<string, string>) =>
    p.call('GET', '/settings/v1/settings', { portal: null, headers });
  const refresh = (p: TestPlatform, refreshToken: string) => {
    const { clientId, clientSecret } = a.portals[0].oauth;
    return p.call('POST', '/auth/v1/refresh', {
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        client_id: clientId,
        client_secret: clientSecret,
        refresh_token: refreshToken,
      }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '203.0.113.9' },
      portal: null,
    });
  };

  it('has no SQLite database, and serves what either wrote', async () => {
    expect(a.platform.db).toBeUndefined();
    expect(
      (await b.call('PUT', '/settings/v1/settings', { body: { name: 'theme', value: 'dark' }, portal: a.portals[0] }))
        .status,
    ).toBe(204);
    expect((await a.call('GET', '/settings/v1/settings?name=theme')).json).toEqual({ name: 'theme', value: 'dark' });
  });

  it('takes a token one issued at the other', async () => {
    const token = await refresh(a, a.portals[0].oauth.refreshToken);
    expect(token.status).toBe(200);
    expect((await settings(b, { authorization: `Bearer ${token.json.access_token}` })).status).toBe(200);
  });

  it('spends one API budget per portal across both', async () => {
    clock.now += 60_000; // a window of its own
    const auth = a.portals[1].auth;
    const statuses = [];
    for (const p of [a, b, a, b, a, b]) statuses.push((await settings(p, auth)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const last = await settings(a, auth);
    expect([last.status, last.headers.get('x-svc-ratelimit-remaining'), last.json.policyName]).toEqual([
      429,
      '0',
      'TEN_SECONDLY_ROLLING',
    ]);
    clock.now += 10_000;
    expect((await settings(b, auth)).status).toBe(200);
  });

  it('limits a public route per address across both', async () => {
    clock.now += 120_000;
    const statuses = [];
    for (const p of [a, b, a, b]) statuses.push((await refresh(p, 'svc-refresh-wrong')).status);
    expect(statuses).toEqual([400, 400, 400, 429]);
  });

  it('limits the collector per address across both, in a count of its own', async () => {
    clock.now += 120_000;
    const vi = '9'.repeat(32);
    const collect = (p: TestPlatform, i: number) =>
      p.call('POST', '/collect/e', {
        body: JSON.stringify([
          {
            eid: String(i).padStart(32, '9'),
            k: '1',
            a: '62515',
            v: '1',
            cts: String(clock.now),
            pu: 'https://acme.test/',
            vi,
          },
        ]),
        headers: { 'content-type': 'text/plain', 'x-forwarded-for': '203.0.113.9' },
        portal: null,
      });
    const statuses = [];
    for (const [i, p] of [a, b, a, b].entries()) statuses.push((await collect(p, i)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    // The address's refresh count is another: its first refresh in this window is still let through.
    expect((await refresh(a, 'svc-refresh-wrong')).status).toBe(400);
  });

  it('ends its pool on close: the other goes on', async () => {
    const { engine } = b.platform.services;
    await b.close();
    await b.close(); // twice is harmless
    await expect(engine.value({ text: 'SELECT 1' })).rejects.toThrow(/pool/i);
    expect((await a.call('GET', '/settings/v1/settings?name=theme')).status).toBe(200);
  });
});
