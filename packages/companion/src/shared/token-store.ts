/** OAuth tokens in Redis, shared by every companion process of one OAuth client: exactly one
 * refresh per expiry across all of them, and a new or restarted process starts from the current
 * tokens.
 *
 * A refresh runs under a lock (`SET NX PX`) that carries a fencing number (INCR at each
 * acquisition). The new tokens are written by a script that checks, in one step, that the writer
 * still holds the lock and that its fencing number is above the stored tokens' — so a process that
 * was paused past its lock's expiry can never overwrite newer tokens — and only then are they
 * used: a rotated refresh token is stored before the new access token goes out. Processes that
 * find the lock taken wait for the new tokens (polling every 25 ms) instead of refreshing. */
import { randomBytes } from 'node:crypto';
import type { TokenSet, TokenStore } from '@svc/client';
import { lockRelease, script, shared, SharedStoreError, type SharedRedis } from './redis';

// KEYS: lock, fencing counter. ARGV: owner, ms. → the fencing number, or 0 when the lock is taken.
const ACQUIRE = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return redis.call('INCR', KEYS[2]) end
return 0`;

// KEYS: tokens, lock. ARGV: owner, tokens JSON, fencing number. → 1 stored, 0 refused.
const COMMIT = `
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
local cur = redis.call('GET', KEYS[1])
if cur then
  local f = cjson.decode(cur).fence
  if f and tonumber(f) >= tonumber(ARGV[3]) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('DEL', KEYS[2])
return 1`;

type Stored = TokenSet & { fence?: number };

export interface RedisTokenStoreOptions {
  /** Whose tokens: the OAuth client id. */
  clientId: string;
  /** How long a refresh may hold the lock; default 30 s (well above a refresh's timeout). */
  lockMs?: number;
  /** How long a process waits for another's refresh before giving up; default lockMs + 5 s. */
  waitMs?: number;
}

export class RedisTokenStore implements TokenStore {
  private readonly key: string;
  private readonly lock: string;
  private readonly fences: string;
  private readonly lockMs: number;
  private readonly waitMs: number;
  private readonly acquire;
  private readonly commit;
  private readonly release;

  constructor(
    private readonly r: SharedRedis,
    o: RedisTokenStoreOptions,
  ) {
    this.key = `${r.prefix}oauth:${o.clientId}`;
    this.lock = `${this.key}:lock`;
    this.fences = `${this.key}:fence`;
    this.lockMs = o.lockMs ?? 30_000;
    this.waitMs = o.waitMs ?? this.lockMs + 5_000;
    this.acquire = script<number>(r.redis, 'svcTokenLock', 2, ACQUIRE);
    this.commit = script<number>(r.redis, 'svcTokenCommit', 2, COMMIT);
    this.release = lockRelease(r.redis);
  }

  async get(): Promise<Stored | undefined> {
    const raw = await shared(this.r.redis.get(this.key));
    if (!raw) return undefined;
    const t = JSON.parse(raw) as Stored;
    return typeof t.accessToken == 'string' && typeof t.refreshToken == 'string' && typeof t.expiresAt == 'number'
      ? t
      : undefined;
  }

  /** Writes tokens outside a refresh (e.g. seeding a store), under the lock like a refresh. */
  async set(tokens: TokenSet) {
    await this.exclusive(
      () => false,
      () => Promise.resolve(tokens),
    );
  }

  async exclusive(
    usable: (stored: TokenSet) => boolean,
    refresh: (stored: TokenSet | undefined) => Promise<TokenSet>,
  ): Promise<TokenSet> {
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      let stored = await this.get();
      if (stored && usable(stored)) return stored;
      const owner = randomBytes(12).toString('base64url');
      const fence = await this.acquire(this.lock, this.fences, owner, this.lockMs);
      if (fence > 0) {
        try {
          // Another process may have stored new tokens between our read and our lock.
          stored = await this.get();
          if (stored && usable(stored)) return stored;
          const tokens = await refresh(stored);
          const ok = await this.commit(this.key, this.lock, owner, JSON.stringify({ ...tokens, fence }), fence);
          if (!ok)
            throw new SharedStoreError(
              new Error('the token refresh outlived its lock; another process owns the tokens now'),
            );
          return tokens;
        } finally {
          await this.release(this.lock, owner).catch(() => undefined);
        }
      }
      // Another process is refreshing: wait for its tokens, or for its lock to go (then try again).
      const before = stored?.fence;
      while (Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 25));
        const [now, locked] = await shared(Promise.all([this.get(), this.r.redis.exists(this.lock)]));
        if (now && now.fence !== before && usable(now)) return now;
        if (!locked) break;
      }
      if (Date.now() >= deadline)
        throw new SharedStoreError(new Error('waited too long for another process to refresh the OAuth token'));
    }
  }
}
