/** The group commit (the SQLite engine's, src/db/engine-sqlite.ts) and the schema migration, on a
 * real database file. */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { sql } from '../src/db/engine';
import { sqliteEngine } from '../src/db/engine-sqlite';
import { openDatabase, type Db } from '../src/db/open';
import { SCHEMA_VERSION } from '../src/db/schema';

const dirs: string[] = [];
const tempFile = () => {
  const dir = mkdtempSync(join(os.tmpdir(), 'svc-group-'));
  dirs.push(dir);
  return join(dir, 'platform.db');
};
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A second connection: it sees only what is committed. */
const committed = (file: string, sql: string) => {
  const other = new Database(file, { readonly: true });
  try {
    return other.prepare(sql).pluck().all();
  } finally {
    other.close();
  }
};

describe('group commit', () => {
  const setup = () => {
    const file = tempFile();
    const db: Db = openDatabase(file);
    db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE)');
    const engine = sqliteEngine(db, { groupCommit: true });
    const run = <T>(fn: () => T) => engine.tx(async () => fn());
    return { file, db, engine, run, insert: db.prepare('INSERT INTO notes (text) VALUES (?)') };
  };

  it('commits the writes of one turn together, once, and answers only after the commit', async () => {
    const { file, db, run, insert } = setup();
    const runs = ['a', 'b', 'c'].map((text) => run(() => insert.run(text).lastInsertRowid));
    // The group is open, and no other connection sees its writes yet.
    expect(db.inTransaction).toBe(true);
    await new Promise((resolve) => queueMicrotask(() => resolve(undefined)));
    expect(committed(file, 'SELECT text FROM notes')).toEqual([]);
    expect(await Promise.all(runs)).toEqual([1, 2, 3]);
    expect(db.inTransaction).toBe(false);
    expect(committed(file, 'SELECT text FROM notes ORDER BY id')).toEqual(['a', 'b', 'c']);
    db.close();
  });

  it('undoes only the failing member: the others of its group commit', async () => {
    const { file, db, run, insert } = setup();
    const ok = run(() => insert.run('kept'));
    const failing = run(() => {
      insert.run('half-written');
      insert.run('kept'); // UNIQUE violation after a first write
    });
    const after = run(() => insert.run('also kept'));
    await expect(failing).rejects.toThrow(/UNIQUE/);
    await Promise.all([ok, after]);
    expect(committed(file, 'SELECT text FROM notes ORDER BY id')).toEqual(['kept', 'also kept']);
    db.close();
  });

  it('lets a read wait for what it saw to be committed', async () => {
    const { file, db, engine, run, insert } = setup();
    const write = run(() => insert.run('x'));
    let settled = false;
    const read = engine.settled().then(() => {
      settled = true;
      return committed(file, 'SELECT text FROM notes');
    });
    expect(settled).toBe(false);
    expect(await read).toEqual(['x']);
    await write;
    await expect(engine.settled()).resolves.toBeUndefined(); // nothing open: at once
    db.close();
  });

  describe('atCommit', () => {
    /** A sum the members add to, written by one statement right before their commit. */
    const summing = (engine: ReturnType<typeof sqliteEngine>, flushes: number[][] = []) => {
      const KEY = {};
      const add = (n: number) =>
        engine.atCommit!(
          KEY,
          () => [] as number[],
          async (t, sum) => {
            flushes.push([...sum]);
            await t.run(sql<[string]>('INSERT INTO notes (text) VALUES (?)'), `sum ${sum.reduce((a, b) => a + b, 0)}`);
          },
        )!.push(n);
      return { add, flushes };
    };

    it("keeps one state for a group's members, flushed once in their transaction before it commits", async () => {
      const { file, engine, run, insert } = setup();
      const { add, flushes } = summing(engine);
      expect(
        engine.atCommit!(
          {},
          () => 1,
          async () => {},
        ),
      ).toBeUndefined(); // no transaction open
      const members = [1, 2, 3].map((n) => run(() => (insert.run(`member ${n}`), add(n))));
      await Promise.all(members);
      expect(flushes).toEqual([[1, 2, 3]]);
      expect(committed(file, 'SELECT text FROM notes ORDER BY id')).toEqual([
        'member 1',
        'member 2',
        'member 3',
        'sum 6',
      ]);
      // The next group starts afresh.
      await run(() => add(10));
      expect(flushes).toEqual([[1, 2, 3], [10]]);
    });

    it('rolls the whole group back when its flush fails, every member told so', async () => {
      const { file, engine, run, insert } = setup();
      insert.run('sum 3'); // the flush's insert will break the UNIQUE constraint
      const { add } = summing(engine);
      const members = [1, 2].map((n) => run(() => (insert.run(`member ${n}`), add(n))));
      for (const m of members) await expect(m).rejects.toThrow(/UNIQUE/);
      expect(committed(file, 'SELECT text FROM notes ORDER BY id')).toEqual(['sum 3']);
    });

    it('flushes each transaction of its own without the group commit', async () => {
      const file = tempFile();
      const db = openDatabase(file);
      db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE)');
      const engine = sqliteEngine(db, { groupCommit: false });
      const { add, flushes } = summing(engine);
      await Promise.all([1, 2].map((n) => engine.tx(async () => add(n))));
      expect(flushes).toEqual([[1], [2]]);
      expect(committed(file, 'SELECT text FROM notes ORDER BY id')).toEqual(['sum 1', 'sum 2']);
      db.close();
    });
  });

  it('nests in a transaction it did not open instead of committing it', async () => {
    const { db, run, insert } = setup();
    db.exec('BEGIN');
    await run(() => insert.run('inside'));
    expect(db.inTransaction).toBe(true);
    db.exec('ROLLBACK');
    expect(db.prepare('SELECT count(*) FROM notes').pluck().get()).toBe(0);
    db.close();
  });
});

describe('schema migration', () => {
  it('brings a version 1 database up to date and keeps its tracking events', () => {
    const file = tempFile();
    const old = new Database(file);
    old.exec(`
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      INSERT INTO meta VALUES ('schema_version', '1');
      CREATE TABLE tracking_events (eid TEXT PRIMARY KEY, portal_id INTEGER NOT NULL, kind INTEGER NOT NULL, utk TEXT,
        vid INTEGER, timestamp INTEGER NOT NULL, received_at INTEGER NOT NULL, data TEXT NOT NULL);
      CREATE INDEX tracking_events_utk ON tracking_events(portal_id, utk, timestamp);
      CREATE INDEX tracking_events_vid ON tracking_events(vid, timestamp);
      CREATE TABLE contacts (vid INTEGER PRIMARY KEY AUTOINCREMENT, portal_id INTEGER NOT NULL, email TEXT,
        properties TEXT NOT NULL DEFAULT '{}', created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, deleted INTEGER NOT NULL DEFAULT 0);
      CREATE TABLE property_history (vid INTEGER NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL, source_type TEXT NOT NULL,
        source_id TEXT, timestamp INTEGER NOT NULL);
      INSERT INTO tracking_events VALUES ('${'a'.repeat(32)}', 1, 1, '${'f'.repeat(32)}', NULL, 10, 11, '{}');
      INSERT INTO tracking_events VALUES ('${'b'.repeat(32)}', 1, 3, NULL, 7, 20, 21, '{"m":"5"}');
    `);
    old.close();

    const db = openDatabase(file);
    expect(db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get()).toBe(
      String(SCHEMA_VERSION),
    );
    expect(db.prepare('SELECT eid, utk, vid FROM tracking_events ORDER BY seq').all()).toEqual([
      { eid: 'a'.repeat(32), utk: 'f'.repeat(32), vid: null },
      { eid: 'b'.repeat(32), utk: '', vid: 7 },
    ]);
    // The new key deduplicates per visitor.
    const insert = db.prepare(
      "INSERT OR IGNORE INTO tracking_events (eid, portal_id, kind, utk, timestamp, received_at, data) VALUES (?, 1, 1, ?, 1, 1, '{}')",
    );
    expect(insert.run('a'.repeat(32), 'f'.repeat(32)).changes).toBe(0);
    db.close();
    // Opening again changes nothing.
    expect(committed(file, 'SELECT count(*) FROM tracking_events')).toEqual([2]);
  });

  it('refuses a database from a newer version', () => {
    const file = tempFile();
    openDatabase(file).close();
    const db = new Database(file);
    db.prepare("UPDATE meta SET value = '99' WHERE key = 'schema_version'").run();
    db.close();
    expect(() => openDatabase(file)).toThrow(
      `the database has schema version 99; this platform knows up to ${SCHEMA_VERSION}`,
    );
  });
});
