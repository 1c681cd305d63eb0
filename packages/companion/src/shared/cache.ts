/** A cache in Redis shared by every companion process, with the embedded cache's rules: values
 * live `ttlMs`, "not found" (`undefined`) `missTtlMs`, failures are not cached, and one load at a
 * time per key — across all processes, not just within one. In a process, concurrent callers of a
 * key share one promise; across processes, the first takes a short lock (`SET NX PX`) and loads,
 * the others poll for its value (every 10–50 ms) and load themselves only if the lock goes away
 * without one (the loader failed or died). */
import { randomBytes } from 'node:crypto';
import { lockRelease, shared, type SharedRedis } from './redis';

export interface SharedCacheOptions {
  /** Key space, e.g. `visitor`. */
  name: string;
  ttlMs: number;
  missTtlMs: number;
  /** Longest a load may take (its lock's lifetime, and how long others wait for it). */
  loadTimeoutMs: number;
}

/** What the cache stores: `null` stands for "not found". */
type Entry<V> = { v: V | null };

export class SharedCache<V> {
  private readonly inflight = new Map<string, Promise<V | undefined>>();
  private readonly release;

  constructor(
    private readonly r: SharedRedis,
    private readonly o: SharedCacheOptions,
  ) {
    this.release = lockRelease(r.redis);
  }

  private key(k: string) {
    return `${this.r.prefix}${this.o.name}:${k}`;
  }

  private async read(key: string): Promise<Entry<V> | undefined> {
    const raw = await shared(this.r.redis.get(key));
    return raw ? (JSON.parse(raw) as Entry<V>) : undefined;
  }

  /** The cached value, or `load()`'s. */
  get(k: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const running = this.inflight.get(k);
    if (running) return running;
    const p = this.fetch(this.key(k), load).finally(() => this.inflight.delete(k));
    this.inflight.set(k, p);
    return p;
  }

  private async fetch(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const deadline = Date.now() + this.o.loadTimeoutMs;
    for (let wait = 10; ; wait = Math.min(wait * 2, 50)) {
      const hit = await this.read(key);
      if (hit) return hit.v ?? undefined;
      const owner = randomBytes(9).toString('base64url');
      if (await shared(this.r.redis.set(`${key}:lock`, owner, 'PX', this.o.loadTimeoutMs, 'NX'))) {
        try {
          const value = await load();
          await this.store(key, value);
          return value;
        } finally {
          await this.release(`${key}:lock`, owner).catch(() => undefined);
        }
      }
      // Another process is loading this key.
      if (Date.now() >= deadline) return load();
      await new Promise((r) => setTimeout(r, wait));
    }
  }

  private async store(key: string, value: V | undefined) {
    const ttl = value === undefined ? this.o.missTtlMs : this.o.ttlMs;
    if (ttl > 0)
      await shared(this.r.redis.set(key, JSON.stringify({ v: value ?? null } satisfies Entry<V>), 'PX', ttl));
  }

  async delete(k: string) {
    await shared(this.r.redis.del(this.key(k)));
  }
}
