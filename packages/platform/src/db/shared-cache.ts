/** A per-process cache of what is read from the database and rarely written (property
 * definitions), kept right when other processes share the database (PostgreSQL): each key has a
 * version row, given a new random value by every write in the writing transaction, and a read
 * compares it with the cached one: one small read instead of loading the whole value. A random
 * value rather than a counter: a rolled-back write's value is never reused by a later write.
 * On SQLite the platform is the only process: a write drops the key and nothing is read. */
import { randomUUID } from 'node:crypto';
import { type Engine, type Queryable, sql } from './engine';

const q = {
  version: sql<[string], { version: string }>('SELECT version FROM cache_versions WHERE name = ?'),
  bump: sql<[string, string]>(
    'INSERT INTO cache_versions (name, version) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET version = excluded.version',
  ),
};

/** `keep` says whether a loaded value may be cached: data written without `changed` (a new
 * portal's default properties) must not be hidden by an empty value cached before it. */
export function sharedCache<V>(engine: Engine, load: (db: Queryable, key: string) => Promise<V>, keep: (value: V) => boolean = () => true) {
  const shared = engine.kind == 'postgres';
  const entries = new Map<string, { version: string; value: V }>();
  /** What a transaction has checked already (by its `txKey`, the same for its savepoints), with
   * the `writes` count then: a batch of a thousand contacts checks the version once, not a
   * thousand times. Any write in this process makes them stale (the handle it came through may
   * be another transaction's); another process's commit is seen by the next transaction. */
  const checked = new WeakMap<object, Map<string, { writes: number; value: V }>>();
  let writes = 0;
  return {
    async get(db: Queryable, key: string): Promise<V> {
      const tx = db.txKey ?? db;
      const known = shared ? checked.get(tx)?.get(key) : undefined;
      if (known && known.writes == writes) return known.value;
      const version = shared ? ((await db.value(q.version, key)) ?? '') : '';
      const hit = entries.get(key);
      let value: V;
      if (hit && hit.version == version) value = hit.value;
      else {
        value = await load(db, key);
        if (keep(value)) entries.set(key, { version, value });
      }
      // Not the engine itself: it lives on, and would never see another process's writes.
      if (shared && db !== engine) (checked.get(tx) ?? checked.set(tx, new Map()).get(tx)!).set(key, { writes, value });
      return value;
    },
    /** Called by every write of `key`'s data, in its transaction `db`. */
    async changed(db: Queryable, key: string) {
      entries.delete(key);
      writes++;
      if (shared) await db.run(q.bump, key, randomUUID());
    },
  };
}
