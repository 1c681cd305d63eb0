/** A small cache with a time-to-live and a size cap, and one lookup in flight per key: a burst of
 * requests for the same key makes one platform call. Misses are cached like hits (as `undefined`
 * values), so unknown visitors cost no more than known ones, for `missTtlMs` (default: as hits). */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();
  private readonly inflight = new Map<string, Promise<V>>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxSize: number,
    private readonly now: () => number,
    private readonly missTtlMs = ttlMs,
  ) {}

  /** The cached value, or `load()`'s; failures are not cached. */
  async get(key: string, load: () => Promise<V>): Promise<V> {
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > this.now()) return hit.value;
    if (hit) this.entries.delete(key);
    const running = this.inflight.get(key);
    if (running) return running;
    const p = load().then(
      (value) => {
        this.inflight.delete(key);
        this.set(key, value);
        return value;
      },
      (e) => {
        this.inflight.delete(key);
        throw e;
      },
    );
    this.inflight.set(key, p);
    return p;
  }

  /** The cached value if fresh, without loading. */
  peek(key: string): { value: V } | undefined {
    const hit = this.entries.get(key);
    return hit && hit.expiresAt > this.now() ? { value: hit.value } : undefined;
  }

  set(key: string, value: V) {
    const ttl = value === undefined ? this.missTtlMs : this.ttlMs;
    if (ttl <= 0) return;
    this.entries.delete(key);
    // Maps keep insertion order: the first key is the oldest.
    if (this.entries.size >= this.maxSize) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, expiresAt: this.now() + ttl });
  }

  delete(key: string) {
    this.entries.delete(key);
  }

  get size() {
    return this.entries.size;
  }
}
