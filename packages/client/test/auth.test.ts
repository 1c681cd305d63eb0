/** Credentials: API keys where the spec allows them, fixed bearer tokens, and OAuth with
 * single-flight refresh ahead of expiry, rotated refresh tokens kept in a token store, and one
 * forced refresh on EXPIRED_AUTHENTICATION. Against the real platform, on its moved clock. */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueCredential } from '../../platform/src/store/portals';
import {
  createClient,
  FileTokenStore,
  MemoryTokenStore,
  SvcApiError,
  type Client,
  type TokenSet,
  type TokenStore,
} from '../src';
import {
  countingProxy,
  faultServer,
  oauthFor,
  platformClock,
  sqliteOf,
  startTestPlatform,
  type TestPlatform,
  type TestPortal,
} from './harness';

let t: TestPlatform;
const dir = mkdtempSync(join(tmpdir(), 'svc-client-auth-'));
beforeAll(async () => {
  t = await startTestPlatform();
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Access tokens the platform has issued to a portal: one per refresh. */
const issued = (p: TestPortal, platform = t) =>
  (
    sqliteOf(platform)
      .prepare("SELECT count(*) AS n FROM credentials WHERE kind = 'access' AND portal_id = ?")
      .get(p.portalId) as { n: number }
  ).n;

/** An OAuth client on the platform's moved clock. */
const oauthClient = (p: TestPortal, tokenStore: TokenStore = new MemoryTokenStore(), platform = t) =>
  createClient({
    baseUrl: platform.baseUrl,
    auth: { oauth: { ...oauthFor(p), tokenStore } },
    rateLimit: { max: Infinity },
    concurrency: 50,
    clock: { now: () => platform.clock.now },
  });

describe('API key and bearer token', () => {
  it('sends an API key as hapikey on the content API only, and refuses it elsewhere before any request', async () => {
    const p = t.portals[0];
    const c = createClient({ baseUrl: t.baseUrl, auth: { apiKey: p.apiKey }, retries: 0 });
    // The platform answers the list: the key was accepted.
    await expect(c.content.blogPosts.list()).resolves.toMatchObject({ offset: 0, objects: expect.any(Array) });
    const wrong = createClient({ baseUrl: t.baseUrl, auth: { apiKey: 'not-a-key' }, retries: 0 });
    await expect(wrong.content.blogPosts.list()).rejects.toMatchObject({ status: 401 });
    await expect(c.contacts.statistics()).rejects.toThrow(TypeError);
    await expect(c.contacts.statistics()).rejects.toThrow('contacts.statistics needs an OAuth or private-app token');
  });

  it('sends a fixed bearer token, and does not loop when the platform says it expired', async () => {
    expect(
      (
        await createClient({
          baseUrl: t.baseUrl,
          auth: { accessToken: t.portals[0].privateAppToken },
        }).contacts.statistics()
      ).contacts,
    ).toBe(0);
    const expired = await issueCredential(t.platform.services.engine, 'access', {
      portalId: t.portals[0].portalId,
      now: t.clock.now,
      expiresAt: t.clock.now - 60_000,
    });
    const c = createClient({ baseUrl: t.baseUrl, auth: { accessToken: expired } });
    await expect(c.contacts.statistics()).rejects.toMatchObject({ status: 401, category: 'EXPIRED_AUTHENTICATION' });
  });

  it('sends no credential at all to public routes (form submission, token refresh, pixel)', async () => {
    const server = await faultServer((_req, res) => void res.writeHead(204).end());
    try {
      for (const auth of [{ apiKey: 'key-123456789' }, { accessToken: 'token-123456789' }]) {
        const c = createClient({ baseUrl: server.url, formsUrl: server.url, auth });
        await c.forms.submit(1, 'guid', { email: 'a@x.test' });
        await c.events.trigger({ _n: 'x', _a: 1, email: 'a@x.test' });
        await c.auth.refresh({ grant_type: 'refresh_token', client_id: 'c', client_secret: 's', refresh_token: 'r' });
      }
      expect(server.seen).toHaveLength(6);
      for (const r of server.seen) {
        expect(r.headers.authorization).toBeUndefined();
        expect(r.url).not.toContain('hapikey');
      }
    } finally {
      await server.close();
    }
  });
});

describe('OAuth', () => {
  it('refreshes once for 1,000 concurrent calls, and once more for 1,000 calls within the margin before expiry', async () => {
    const p = t.portals[1];
    const store = new MemoryTokenStore();
    const c = oauthClient(p, store);
    const before = issued(p);
    const answers = await Promise.all(Array.from({ length: 1000 }, () => c.contacts.statistics()));
    expect(answers.every((a) => a.contacts >= 0)).toBe(true);
    expect(issued(p) - before).toBe(1);

    const first = store.get()!;
    expect(first.expiresAt - first.obtainedAt!).toBe(1800_000);
    // 61 s before expiry the token is still used; 59 s before, the next calls refresh it, once.
    t.clock.now = first.expiresAt - 61_000;
    await Promise.all(Array.from({ length: 100 }, () => c.contacts.statistics()));
    expect(issued(p) - before).toBe(1);
    t.clock.now = first.expiresAt - 59_000;
    await Promise.all(Array.from({ length: 1000 }, () => c.contacts.statistics()));
    expect(issued(p) - before).toBe(2);
    expect(store.get()!.accessToken).not.toBe(first.accessToken);
  });

  it('takes the lifetime only from expires_in, with a margin of at most 10 % of it', async () => {
    for (const seconds of [30, 1800, 21600, 28799]) {
      const platform = await startTestPlatform({ tokenLifetimeSeconds: seconds, portals: [{ id: 4242 }] });
      try {
        const p = platform.portals[0];
        const store = new MemoryTokenStore();
        const c = oauthClient(p, store, platform);
        await c.contacts.statistics();
        const tokens = store.get()!;
        expect(tokens.expiresAt - tokens.obtainedAt!, `${seconds} s`).toBe(seconds * 1000);
        const margin = Math.min(60_000, seconds * 100);
        platform.clock.now = tokens.expiresAt - margin - 1000;
        await c.contacts.statistics();
        expect(issued(p, platform), `${seconds} s: before the margin`).toBe(1);
        platform.clock.now = tokens.expiresAt - margin + 1000;
        await c.contacts.statistics();
        expect(issued(p, platform), `${seconds} s: within the margin`).toBe(2);
      } finally {
        await platform.close();
      }
    }
  });

  it('keeps a rotated refresh token in a file store that a new client instance picks up', async () => {
    const platform = await startTestPlatform({ rotateRefreshTokens: true, portals: [{ id: 5151 }] });
    try {
      const p = platform.portals[0];
      const file = join(dir, 'tokens', 'portal.json');
      const c = oauthClient(p, new FileTokenStore(file), platform);
      await c.contacts.statistics();
      const saved = JSON.parse(readFileSync(file, 'utf8')) as TokenSet;
      expect(saved.refreshToken).not.toBe(p.oauth.refreshToken);
      expect(statSync(file).mode & 0o777).toBe(0o600);

      // A new instance (a restarted process) uses the saved access token without refreshing...
      const again = oauthClient(p, new FileTokenStore(file), platform);
      await again.contacts.statistics();
      expect(issued(p, platform)).toBe(1);
      // ...and refreshes with the rotated refresh token when the access token is due.
      platform.clock.now = saved.expiresAt;
      await again.contacts.statistics();
      expect(issued(p, platform)).toBe(2);
      const rotatedAgain = JSON.parse(readFileSync(file, 'utf8')) as TokenSet;
      expect(rotatedAgain.refreshToken).not.toBe(saved.refreshToken);

      // The original refresh token was discarded by the platform: a client that kept it fails.
      const stale = oauthClient(p, new MemoryTokenStore(), platform);
      const err: SvcApiError = await stale.contacts.statistics().catch((e) => e);
      expect(err).toMatchObject({ status: 400, category: 'BAD_REFRESH_TOKEN', path: '/auth/v1/refresh' });
      for (const text of [JSON.stringify(err), err.message, err.stack ?? ''])
        expect(text).not.toContain(p.oauth.refreshToken);
    } finally {
      await platform.close();
    }
  });

  it('takes the token after its pacing slot: calls queued past the expiry go out with a new token, none is refused', async () => {
    // 30 s tokens (refreshed 3 s early) and a bucket of 2 per 10 s (one more every 5 s): of 12
    // calls made at once, the last ones leave 30–50 s later, after the first token expired.
    const platform = await startTestPlatform({ tokenLifetimeSeconds: 30, portals: [{ id: 6161 }] });
    const proxy = await countingProxy(platform.baseUrl);
    try {
      const p = platform.portals[0];
      const start = platform.clock.now;
      // Time moves only while no call is running, so each request meets the platform when it left.
      const c: Client = createClient({
        baseUrl: proxy.url,
        auth: { oauth: oauthFor(p) },
        rateLimit: { max: 2, windowMs: 10_000 },
        clock: platformClock(platform, () => c.stats().running > 0),
      });
      const answers = await Promise.all(Array.from({ length: 12 }, () => c.contacts.statistics()));
      expect(answers.every((a) => a.contacts >= 0)).toBe(true);
      expect(platform.clock.now - start).toBeGreaterThanOrEqual(50_000);
      expect(proxy.answers.filter((a) => a.status == 401)).toEqual([]);
      // One token for the first 7 calls, one refresh (no slot needed) for the 5 sent after 27 s.
      expect(issued(p, platform)).toBe(2);
      expect(proxy.answers.filter((a) => a.url == '/auth/v1/refresh')).toHaveLength(2);
      expect(proxy.answers).toHaveLength(14);
    } finally {
      await proxy.close();
      await platform.close();
    }
  });

  it('refreshes without a pacing slot: a client with one slot and one request in its bucket does not lock itself out', async () => {
    const p = t.portals[0];
    const before = issued(p);
    const c = createClient({
      baseUrl: t.baseUrl,
      auth: { oauth: oauthFor(p) },
      concurrency: 1,
      rateLimit: { max: 1, windowMs: 10_000 },
      clock: { now: () => t.clock.now },
    });
    // The call holds the only slot and the only request while it waits for its token.
    await expect(c.contacts.statistics({}, { signal: AbortSignal.timeout(5000) })).resolves.toMatchObject({
      contacts: expect.any(Number),
    });
    expect(issued(p) - before).toBe(1);
  });

  it('forces one refresh and repeats the call on EXPIRED_AUTHENTICATION, but never loops on INVALID', async () => {
    const p = t.portals[1];
    const store = new MemoryTokenStore();
    // A token the client believes fresh but the platform does not know: INVALID, not EXPIRED.
    store.set({ accessToken: 'svc-at-stale', refreshToken: p.oauth.refreshToken, expiresAt: t.clock.now + 3_600_000 });
    await expect(oauthClient(p, store).contacts.statistics()).rejects.toMatchObject({
      status: 401,
      category: 'INVALID_AUTHENTICATION',
    });

    // A token the platform expired early (revocation, clock skew): one refresh, then success.
    const expired = await issueCredential(t.platform.services.engine, 'access', {
      portalId: p.portalId,
      now: t.clock.now,
      expiresAt: t.clock.now - 1000,
      clientId: p.oauth.clientId,
    });
    store.set({ accessToken: expired, refreshToken: p.oauth.refreshToken, expiresAt: t.clock.now + 3_600_000 });
    const before = issued(p);
    const c = oauthClient(p, store);
    const answers = await Promise.all(Array.from({ length: 20 }, () => c.contacts.statistics()));
    expect(answers).toHaveLength(20);
    expect(issued(p) - before).toBe(1);
    expect(store.get()!.accessToken).not.toBe(expired);
  });
});
