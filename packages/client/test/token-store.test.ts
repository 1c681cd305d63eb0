/** Token stores shared between processes: a store with `exclusive` runs every refresh (one at a
 * time across all clients sharing it) and stores what it answers, so the client never calls `set`
 * itself; its `usable` refuses a due token and the one the platform just called expired. A store
 * that throws fails the call with TOKEN_STORE_FAILED; a failed refresh request stays what it is.
 * Against the real platform, on its moved clock. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueCredential } from '../../platform/src/store/portals';
import { createClient, SvcApiError, type RefreshEvent, type TokenSet, type TokenStore } from '../src';
import { countingProxy, oauthFor, sqliteOf, startTestPlatform, type TestPlatform, type TestPortal } from './harness';

let t: TestPlatform;
beforeAll(async () => {
  t = await startTestPlatform({ portals: [{ id: 7101 }, { id: 7102 }, { id: 7103 }, { id: 7104 }] });
});
afterAll(() => t.close());

const issued = (p: TestPortal) =>
  (
    sqliteOf(t)
      .prepare("SELECT count(*) AS n FROM credentials WHERE kind = 'access' AND portal_id = ?")
      .get(p.portalId) as { n: number }
  ).n;

const oauthClient = (
  p: TestPortal,
  tokenStore: TokenStore,
  onRefresh?: (e: RefreshEvent) => void,
  baseUrl = t.baseUrl,
) =>
  createClient({
    baseUrl,
    auth: { oauth: { ...oauthFor(p), tokenStore } },
    rateLimit: { max: Infinity },
    concurrency: 50,
    clock: { now: () => t.clock.now },
    onRefresh,
  });

/** A shared store as a Redis one would be, in memory: `exclusive` holds a lock (a promise chain)
 * and records what `usable` said of each stored token and how often it had to refresh. */
class ExclusiveStore implements TokenStore {
  tokens?: TokenSet;
  sets = 0;
  calls = 0;
  refreshes = 0;
  verdicts: { token: string; usable: boolean }[] = [];
  private lock: Promise<unknown> = Promise.resolve();
  get() {
    return this.tokens;
  }
  set(tokens: TokenSet) {
    this.sets++;
    this.tokens = tokens;
  }
  exclusive(usable: (stored: TokenSet) => boolean, refresh: (stored: TokenSet | undefined) => Promise<TokenSet>) {
    this.calls++;
    const run = this.lock.then(async () => {
      if (this.tokens) {
        const ok = usable(this.tokens);
        this.verdicts.push({ token: this.tokens.accessToken, usable: ok });
        if (ok) return this.tokens;
      }
      this.refreshes++;
      this.tokens = await refresh(this.tokens); // stored before anyone uses it
      return this.tokens;
    });
    this.lock = run.catch(() => {});
    return run;
  }
}

describe('a token store with exclusive', () => {
  it('refreshes once for two clients sharing it, with the tokens exclusive answers, never calling set itself', async () => {
    const p = t.portals[0];
    const store = new ExclusiveStore();
    const events: RefreshEvent[] = [];
    const a = oauthClient(p, store, (e) => events.push(e));
    const b = oauthClient(p, store, (e) => events.push(e));
    const both = (n: number) => Promise.all(Array.from({ length: n }, (_, i) => (i % 2 ? a : b).contacts.statistics()));
    expect(await both(200)).toHaveLength(200);
    expect(issued(p)).toBe(1);
    expect(store.refreshes).toBe(1);
    expect(store.calls).toBe(2); // one per client, not one per call
    expect(store.sets).toBe(0);
    expect(events).toHaveLength(1); // only the client that refreshed reports it

    // Within the margin before expiry: one of them refreshes, the other is answered the new tokens.
    const first = store.tokens!;
    t.clock.now = first.expiresAt - 30_000;
    expect(await both(200)).toHaveLength(200);
    expect(issued(p)).toBe(2);
    expect(store.refreshes).toBe(2);
    expect(store.calls).toBe(4);
    expect(store.sets).toBe(0);
    const second = store.tokens!;
    expect(store.verdicts.slice(-2)).toEqual([
      { token: first.accessToken, usable: false }, // due
      { token: second.accessToken, usable: true },
    ]);
    expect(events).toHaveLength(2);
  });

  it('refuses the token the platform called expired, though it looks fresh, and refreshes once for every client that got the 401', async () => {
    const p = t.portals[1];
    const expired = await issueCredential(t.platform.services.engine, 'access', {
      portalId: p.portalId,
      now: t.clock.now,
      expiresAt: t.clock.now - 1000,
      clientId: p.oauth.clientId,
    });
    const store = new ExclusiveStore();
    store.tokens = {
      accessToken: expired,
      refreshToken: p.oauth.refreshToken,
      expiresAt: t.clock.now + 3_600_000,
      obtainedAt: t.clock.now,
    };
    const before = issued(p);
    const [a, b] = [oauthClient(p, store), oauthClient(p, store)];
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).contacts.statistics()));
    expect(answers).toHaveLength(20);
    expect(issued(p) - before).toBe(1);
    expect(store.sets).toBe(0);
    expect(store.verdicts[0]).toEqual({ token: expired, usable: false });
    expect(store.verdicts.slice(1).every((v) => v.usable && v.token == store.tokens!.accessToken)).toBe(true);
  });

  it('keeps a failed refresh request what it is, not a store failure', async () => {
    const p = t.portals[2];
    const store = new ExclusiveStore();
    const c = createClient({
      baseUrl: t.baseUrl,
      auth: { oauth: { ...oauthFor(p), refreshToken: 'svc-rt-not-issued', tokenStore: store } },
    });
    await expect(c.contacts.statistics()).rejects.toMatchObject({
      status: 400,
      category: 'BAD_REFRESH_TOKEN',
      path: '/auth/v1/refresh',
    });
  });
});

describe('a token store that fails', () => {
  it('fails the call with TOKEN_STORE_FAILED and the store’s error as cause, sending nothing; a store that recovers is asked again', async () => {
    const p = t.portals[3];
    const proxy = await countingProxy(t.baseUrl);
    try {
      const down = new Error('READONLY You can’t write against a read only replica.');
      let broken: 'get' | 'set' | 'exclusive' | undefined = 'get';
      const tokens: { saved?: TokenSet } = {};
      const store: TokenStore = {
        get: async () => (broken == 'get' ? Promise.reject(down) : tokens.saved),
        set: (next) => {
          if (broken == 'set') throw down;
          tokens.saved = next;
        },
      };
      const c = oauthClient(p, store, undefined, proxy.url);
      const err: SvcApiError = await c.contacts.statistics().catch((e) => e);
      expect(err).toBeInstanceOf(SvcApiError);
      expect(err).toMatchObject({
        status: 0,
        category: 'TOKEN_STORE_FAILED',
        method: 'GET',
        path: '/contacts/v1/contacts/statistics',
      });
      expect(err.message).toBe('GET /contacts/v1/contacts/statistics: the token store failed (see cause)');
      expect(err.cause).toBe(down);
      expect(proxy.answers).toHaveLength(0);

      // set failing after the platform answered the refresh: the call fails, nothing is used.
      broken = 'set';
      await expect(c.contacts.statistics()).rejects.toMatchObject({ category: 'TOKEN_STORE_FAILED', cause: down });
      expect(proxy.answers.map((a) => a.url)).toEqual(['/auth/v1/refresh']);

      broken = undefined;
      await expect(c.contacts.statistics()).resolves.toMatchObject({ contacts: expect.any(Number) });
      expect(tokens.saved?.accessToken).toBeDefined();

      // exclusive itself failing (its lock cannot be taken) is the store's failure too.
      const locked: TokenStore = { get: () => undefined, set: () => {}, exclusive: () => Promise.reject(down) };
      await expect(oauthClient(p, locked, undefined, proxy.url).contacts.statistics()).rejects.toMatchObject({
        status: 0,
        category: 'TOKEN_STORE_FAILED',
        cause: down,
      });
    } finally {
      await proxy.close();
    }
  });
});
