// The shared cache (db/shared-cache.ts) on PostgreSQL, where several processes share the data: a
// transaction reads the versions it needs once, the recently checked keys along with its first;
// a write by another process (another engine on the same schema) is seen by the next transaction;
// a write in this one is seen at once; a transaction may read them ahead, with its first
// statements. On SQLite nothing is read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Engine, type Queryable, sql } from '../src/db/engine';
import { postgresEngine } from '../src/db/engine-postgres';
import { sqliteEngine } from '../src/db/engine-sqlite';
import { openDatabase } from '../src/db/open';
import { readVersionsAhead, sharedCache } from '../src/db/shared-cache';
import { havePostgres, PG_URL, pgSchema } from './postgres';

const schema = await pgSchema('shared_cache');
const setValue = sql<[string, string]>(
  'INSERT INTO kv (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v',
);
const getValue = sql<[string], { v: string }>('SELECT v FROM kv WHERE k = ?');

/** A cache of the kv table, and how many times it loaded a value and read versions. */
function cacheOn(engine: Engine) {
  const counts = { loads: 0, versionReads: 0 };
  const cache = sharedCache(engine, async (db, key) => (counts.loads++, (await db.value(getValue, key)) ?? ''));
  /** `t` that counts the statements reading cache_versions. */
  const counting = (t: Queryable): Queryable => ({
    ...t,
    all: (q, ...params) => (q.text.includes('cache_versions') && counts.versionReads++, t.all(q, ...params)),
  });
  return { cache, counts, counting };
}

describe.skipIf(!havePostgres)('the shared cache on PostgreSQL', () => {
  let one: Engine;
  let other: Engine;
  beforeAll(async () => {
    one = postgresEngine(PG_URL, { schema });
    other = postgresEngine(PG_URL, { schema });
    await one.exec(
      'CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT NOT NULL); CREATE TABLE IF NOT EXISTS cache_versions (name TEXT PRIMARY KEY, version TEXT NOT NULL)',
    );
  });
  afterAll(async () => {
    await one.close();
    await other.close();
  });

  it('reads the versions a transaction needs once, the recently checked keys along with the first', async () => {
    const a = cacheOn(one);
    const b = cacheOn(one);
    // A first transaction checks both caches' keys (two reads: nothing was checked before it).
    await one.tx(async (t) => {
      expect(await a.cache.get(a.counting(t), 'x')).toBe('');
      expect(await b.cache.get(b.counting(t), 'y')).toBe('');
    });
    expect(a.counts.versionReads + b.counts.versionReads).toBe(2);
    // The next reads both in one statement, and each again (savepoints too) without reading.
    a.counts.versionReads = b.counts.versionReads = 0;
    await one.tx(async (t) => {
      await a.cache.get(a.counting(t), 'x');
      await t.tx(async (s) => void (await b.cache.get(b.counting(s), 'y')));
      await a.cache.get(a.counting(t), 'x');
    });
    expect(a.counts.versionReads + b.counts.versionReads).toBe(1);
  });

  it("sees another process's write in the next transaction, and its own at once", async () => {
    const here = cacheOn(one);
    const there = cacheOn(other);
    await one.tx(async (t) => {
      await t.run(setValue, 'z', 'first');
      await here.cache.changed(t, 'z');
    });
    expect(await one.tx((t) => here.cache.get(t, 'z'))).toBe('first');
    expect(await one.tx((t) => here.cache.get(t, 'z'))).toBe('first');
    expect(here.counts.loads).toBe(1);
    // Another process writes it: the next transaction here loads it again.
    await other.tx(async (t) => {
      await t.run(setValue, 'z', 'second');
      await there.cache.changed(t, 'z');
    });
    expect(await one.tx((t) => here.cache.get(t, 'z'))).toBe('second');
    // A write in this process, read in the same transaction.
    await one.tx(async (t) => {
      expect(await here.cache.get(t, 'z')).toBe('second');
      await t.run(setValue, 'z', 'third');
      await here.cache.changed(t, 'z');
      expect(await here.cache.get(t, 'z')).toBe('third');
    });
  });

  it('reads the recently checked keys with the first statements, which the gets then wait for instead of reading', async () => {
    const here = cacheOn(one);
    const there = cacheOn(other);
    await one.tx(async (t) => void (await here.cache.get(t, 'ahead')));
    expect(here.counts.loads).toBe(1);
    // Another process changes it between two transactions here; the read ahead sees the change.
    await other.tx(async (t) => {
      await t.run(setValue, 'ahead', 'changed');
      await there.cache.changed(t, 'ahead');
    });
    const statements: string[] = [];
    await one.tx(async (t) => {
      const watched: Queryable = { ...t, all: (q, ...params) => (statements.push(q.text), t.all(q, ...params)) };
      readVersionsAhead(one, watched);
      expect(statements).toHaveLength(1); // sent at once, not waited for
      expect(await here.cache.get(watched, 'ahead')).toBe('changed');
      expect(await here.cache.get(watched, 'ahead')).toBe('changed');
    });
    expect(statements.filter((s) => s.includes('cache_versions'))).toHaveLength(1);
    expect(here.counts.loads).toBe(2);
    // A write in the transaction after the read ahead: its own change is seen, not the read one.
    await one.tx(async (t) => {
      readVersionsAhead(one, t);
      await t.run(setValue, 'ahead', 'mine');
      await here.cache.changed(t, 'ahead');
      expect(await here.cache.get(t, 'ahead')).toBe('mine');
    });
  });

  it('does nothing outside a transaction, nor when nothing was checked yet', async () => {
    const fresh = postgresEngine(PG_URL, { schema });
    const statements: string[] = [];
    await fresh.tx(async (t) => {
      readVersionsAhead(fresh, { ...t, all: (q, ...params) => (statements.push(q.text), t.all(q, ...params)) });
    });
    readVersionsAhead(fresh, { ...fresh, all: (q, ...params) => (statements.push(q.text), fresh.all(q, ...params)) });
    expect(statements).toEqual([]);
    await fresh.close();
  });
});

describe('the shared cache on SQLite', () => {
  it('reads no version: the one process drops a key it writes', async () => {
    const engine = sqliteEngine(openDatabase(':memory:'));
    await engine.exec('CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT NOT NULL)');
    const { cache, counts, counting } = cacheOn(engine);
    await engine.tx(async (t) => void (await cache.get(counting(t), 'x')));
    await engine.tx(async (t) => void (await cache.get(counting(t), 'x')));
    expect(counts).toEqual({ loads: 1, versionReads: 0 });
    await engine.tx(async (t) => {
      await t.run(setValue, 'x', 'new');
      await cache.changed(t, 'x');
    });
    expect(await engine.tx((t) => cache.get(t, 'x'))).toBe('new');
    await engine.close();
  });
});
