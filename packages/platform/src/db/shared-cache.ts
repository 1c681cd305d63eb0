/** A per-process cache of what is read from the database and rarely written (property
 * definitions), kept right when other processes share the database (PostgreSQL): each key has a
 * version row, given a new random value by every write in the writing transaction, and a read
 * compares it with the cached one: one small read instead of loading the whole value. A random
 * value rather than a counter: a rolled-back write's value is never reused by a later write.
 * On SQLite the platform is the only process: a write drops the key and nothing is read.
 *
 * A transaction reads the versions it needs once (by its `txKey`, the same for its savepoints),
 * and the first read also takes the versions of the keys the transactions before it checked: a
 * collector bulk checks a portal's property definitions, its settings and its workflow triggers,
 * in one statement rather than three. */
import { randomUUID } from 'node:crypto';
import { type Engine, type Query, type Queryable, sql } from './engine';

const q = {
  bump: sql<[string, string]>(
    'INSERT INTO cache_versions (name, version) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET version = excluded.version',
  ),
  bumpAll: sql<[string]>('UPDATE cache_versions SET version = ?'),
};

/** The keys read along with a transaction's first: the most recently checked ones. */
const READ_ALONG = 16;

/** What the caches on one engine share: a count of this process's writes (any write makes what a
 * transaction has read stale: the handle it came through may be another transaction's), the keys
 * checked lately, and the versions each open transaction has read. */
interface Shared {
  writes: number;
  /** Moved on by forgetAll: entries cached before it are stale. */
  generation: number;
  recent: Set<string>;
  read: WeakMap<object, Read>;
  versions: Query<[string], { name: string; version: string }>;
}
/** The versions a transaction has read (`pending`: being read, see readVersionsAhead). */
type Read = { writes: number; versions: Map<string, string>; pending?: Promise<void> };
const shared = new WeakMap<Engine, Shared>();

function sharedOf(engine: Engine): Shared {
  let s = shared.get(engine);
  if (!s) {
    const versions = sql<[string], { name: string; version: string }>(
      `SELECT name, version FROM cache_versions WHERE ${engine.dialect.inJsonArray('name', '?', 'text')}`,
    );
    shared.set(engine, (s = { writes: 0, generation: 0, recent: new Set(), read: new WeakMap(), versions }));
  }
  return s;
}

/** `key`'s version as the transaction `db` sees it: read once per transaction, with the recently
 * checked keys (outside a transaction, on each call). */
async function versionOf(engine: Engine, db: Queryable, key: string): Promise<string> {
  const s = sharedOf(engine);
  s.recent.delete(key);
  s.recent.add(key);
  if (s.recent.size > READ_ALONG) s.recent.delete(s.recent.values().next().value!);
  const tx = db.txKey;
  let read = tx ? s.read.get(tx) : undefined;
  if (read?.pending && read.writes === s.writes) await read.pending;
  if (read?.writes === s.writes && read.versions.has(key)) return read.versions.get(key)!;
  if (!read || read.writes !== s.writes) read = { writes: s.writes, versions: new Map() };
  const keys = [key, ...[...s.recent].filter((k) => k != key && !read.versions.has(k))];
  await readInto(db, s, read, keys);
  if (tx) s.read.set(tx, read);
  return read.versions.get(key)!;
}

async function readInto(db: Queryable, s: Shared, read: Read, keys: string[]) {
  const rows = await db.all(s.versions, JSON.stringify(keys));
  for (const k of keys) read.versions.set(k, '');
  for (const r of rows) read.versions.set(r.name, r.version);
}

/** Starts reading, for the transaction `db`, the versions of the keys checked lately, without
 * waiting: a write that will read cached values (a collector bulk: settings, property
 * definitions) calls it before its first statements, which then carry the read (on PostgreSQL
 * one write and one round trip for both, where the first cached value would have waited for a
 * round trip of its own). Nothing on SQLite, or outside a transaction. */
export function readVersionsAhead(engine: Engine, db: Queryable) {
  const tx = db.txKey;
  if (engine.kind != 'postgres' || !tx) return;
  const s = sharedOf(engine);
  if (!s.recent.size || s.read.get(tx)?.writes === s.writes) return;
  const read: Read = { writes: s.writes, versions: new Map() };
  read.pending = readInto(db, s, read, [...s.recent]).finally(() => (read.pending = undefined));
  // A failed read fails the transaction's next statement; whoever waits for it sees its error.
  read.pending.catch(() => {});
  s.read.set(tx, read);
}

/** `keep` says whether a loaded value may be cached: data written without `changed` (a new
 * portal's default properties) must not be hidden by an empty value cached before it. */
export function sharedCache<V>(
  engine: Engine,
  load: (db: Queryable, key: string) => Promise<V>,
  keep: (value: V) => boolean = () => true,
) {
  const isShared = engine.kind == 'postgres';
  const entries = new Map<string, { version: string; generation: number; value: V }>();
  return {
    async get(db: Queryable, key: string): Promise<V> {
      const version = isShared ? await versionOf(engine, db, key) : '';
      const { generation } = sharedOf(engine);
      const hit = entries.get(key);
      if (hit && hit.version == version && hit.generation == generation) return hit.value;
      const value = await load(db, key);
      if (keep(value)) entries.set(key, { version, generation, value });
      return value;
    },
    /** Called by every write of `key`'s data, in its transaction `db`. */
    async changed(db: Queryable, key: string) {
      entries.delete(key);
      sharedOf(engine).writes++;
      if (isShared) await db.run(q.bump, key, randomUUID());
    },
  };
}

/** Every cache on `engine` drops what it holds: a whole portal's rows were deleted or replaced
 * (admin/portal-routes.ts) without a `changed` per key. On PostgreSQL the versions the other
 * processes compare move on too, in `db`'s transaction. */
export async function forgetAll(engine: Engine, db: Queryable) {
  const s = sharedOf(engine);
  s.generation++;
  s.writes++;
  if (engine.kind == 'postgres') await db.run(q.bumpAll, randomUUID());
}
