/** The engine on SQLite (better-sqlite3). Statements run synchronously, so a query resolves at
 * once, and there is one connection: a statement made outside a transaction while one is open
 * runs inside it (as with synchronous code). So transactions do not await other I/O (a webhook is
 * called between transactions), and a read's answer waits for `settled()`.
 *
 * With `groupCommit`, the transactions begun in one turn of the event loop share one SQLite
 * transaction, committed once when the turn ends: each is a savepoint inside it, so a failing one
 * rolls back alone, and each resolves only after the commit, so what it wrote is durable when its
 * caller answers. One commit per turn instead of one per request means the WAL receives each page
 * that several requests touched once; under load that is most of the cost of a small write. */
import type { Statement } from 'better-sqlite3';
import { type Dialect, type Engine, type Param, type Query, type Queryable, serial, type Transaction } from './engine';
import type { Db } from './open';

export const sqliteDialect: Dialect = {
  jsonText: (column, path) => `json_extract(${column}, '${path}')`,
  jsonNumber: (column, path) => `json_extract(${column}, '${path}')`,
  // Digits, with only number characters around them: what CAST reads whole (it would read 'abc' as 0).
  textNumber: (text) =>
    `CASE WHEN ${text} GLOB '*[0-9]*' AND trim(${text}) NOT GLOB '*[^0-9.eE+-]*' THEN CAST(${text} AS REAL) END`,
  jsonBoolean: (column, path) => `json_extract(${column}, '${path}')`,
  jsonSortKey: (column, path) => `json_extract(${column}, '${path}')`,
  jsonHas: (column, path, value) => `EXISTS (SELECT 1 FROM json_each(${column}, '${path}') WHERE value = ${value})`,
  jsonRemoveKey: (column, key) => `json_remove(${column}, '$.' || ${key})`,
  jsonHasKey: (column, key) => `json_type(${column}, '$.' || ${key}) IS NOT NULL`,
  instr: (haystack, needle) => `instr(${haystack}, ${needle})`,
  inJsonArray: (expr, array) => `${expr} IN (SELECT value FROM json_each(${array}))`,
  jsonIds: (array) => `SELECT value AS id FROM json_each(${array})`,
  jsonRows: (array, columns) =>
    `SELECT ${Object.keys(columns)
      .map((c) => `json_extract(value, '$.${c}') AS ${c}`)
      .join(', ')} FROM json_each(${array})`,
  nextIds: (table, _column, count) =>
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})
     SELECT (SELECT coalesce(max(seq), 0) FROM sqlite_sequence WHERE name = '${table}') + i AS id FROM n ORDER BY i`,
  returningKey: () => '',
  ilike: (expr, pattern) => `${expr} LIKE ${pattern}`,
  groupConcat: (expr, separator) => `group_concat(${expr}, ${separator})`,
  forUpdate: '',
  forUpdateSkipLocked: '',
  autoId: 'INTEGER PRIMARY KEY AUTOINCREMENT',
};

export interface SqliteEngineOptions {
  groupCommit?: boolean;
  /** Runs after each commit, outside any transaction (the WAL checkpointer). */
  afterCommit?: () => void;
}

/** One level of a transaction: savepoints inside it are a stack, taken one at a time. */
interface Level {
  depth: number;
  nested: ReturnType<typeof serial>;
}

/** An open SQLite transaction: one caller's, or a group's. */
interface Open {
  ended: Promise<void>;
  root: Level;
  /** A group stops taking members when its turn ends; later ones open the next group. */
  closing: boolean;
  /** engine.atCommit's states, flushed in the order they were made. */
  atCommit: Map<object, { state: unknown; flush: (t: Queryable, state: unknown) => Promise<void> }>;
}

/** better-sqlite3 binds no booleans, and Buffers rather than plain byte arrays. Most statements
 * have neither: their parameters go as they are, without a copy. */
const convert = (p: Param) =>
  typeof p == 'boolean' ? Number(p) : p instanceof Uint8Array && !Buffer.isBuffer(p) ? Buffer.from(p) : p;
const needsConverting = (p: Param) => typeof p == 'boolean' || (p instanceof Uint8Array && !Buffer.isBuffer(p));
const bind = (params: Param[]) => (params.some(needsConverting) ? params.map(convert) : params);

export function sqliteEngine(db: Db, options: SqliteEngineOptions = {}): Engine {
  const statements = new Map<string, Statement>();
  const prepare = (text: string) => statements.get(text) ?? statements.set(text, db.prepare(text)).get(text)!;
  let open: Open | undefined;
  /** The names of the exclusive jobs running now: one process holds the database. */
  const running = new Set<string>();

  /** The statements, the same for the engine and every handle: there is one connection. */
  const queries = {
    get: async (query: Query, ...params: Param[]) => prepare(query.text).get(...bind(params)),
    all: async (query: Query, ...params: Param[]) => prepare(query.text).all(...bind(params)),
    async value(query: Query, ...params: Param[]) {
      const row = prepare(query.text).get(...bind(params)) as Record<string, unknown> | undefined;
      return row && Object.values(row)[0];
    },
    async insert(query: Query, ...params: Param[]) {
      const { changes, lastInsertRowid } = prepare(query.text).run(...bind(params));
      return changes ? Number(lastInsertRowid) : undefined;
    },
    run: async (query: Query, ...params: Param[]) => prepare(query.text).run(...bind(params)).changes,
    send: async (query: Query, ...params: Param[]) => void prepare(query.text).run(...bind(params)),
    exec: async (text: string) => void db.exec(text),
  } as unknown as Omit<Queryable, 'tx'>;

  // One writer: a transaction holds every lock already.
  const handle = (level: Level): Transaction => ({
    ...queries,
    tx: (fn) => savepoint(level, fn),
    lock: async () => {},
  });

  function savepoint<T>(parent: Level, fn: (t: Transaction) => Promise<T>): Promise<T> {
    return parent.nested(async () => {
      const level = { depth: parent.depth + 1, nested: serial() };
      // Prepared once, like the queries: exec would compile the statement on every request.
      const name = `sp${level.depth}`;
      prepare(`SAVEPOINT ${name}`).run();
      try {
        const result = await fn(handle(level));
        prepare(`RELEASE ${name}`).run();
        return result;
      } catch (err) {
        prepare(`ROLLBACK TO ${name}`).run();
        prepare(`RELEASE ${name}`).run();
        throw err;
      }
    });
  }

  /** Begins a transaction; `end` commits it (or rolls back after `err`), then settles `ended`. */
  function begin() {
    db.exec('BEGIN IMMEDIATE');
    let settle!: (err?: Error) => void;
    const ended = new Promise<void>(
      (resolve, reject) => (settle = (err) => (err === undefined ? resolve() : reject(err))),
    );
    ended.catch(() => {}); // its members see a failed commit; an unobserved one must not crash the process
    const tx: Open = { ended, root: { depth: 0, nested: serial() }, closing: false, atCommit: new Map() };
    open = tx;
    const end = (err?: unknown) => {
      try {
        if (err === undefined) db.exec('COMMIT');
      } catch (commitErr) {
        err = commitErr;
      }
      if (err !== undefined && db.inTransaction) db.exec('ROLLBACK');
      open = undefined;
      settle(err as Error | undefined);
      if (err === undefined) options.afterCommit?.();
    };
    return { tx, end };
  }

  /** engine.atCommit's work, in the transaction about to commit. */
  async function flushAtCommit(tx: Open) {
    for (const { state, flush } of tx.atCommit.values()) await flush(handle(tx.root), state);
  }

  /** Transactions of their own, one after another. */
  async function alone<T>(fn: (t: Transaction) => Promise<T>): Promise<T> {
    while (open) await open.ended.catch(() => {});
    const { tx, end } = begin();
    let result: T;
    try {
      result = await fn(handle(tx.root));
      await flushAtCommit(tx);
    } catch (err) {
      end(err);
      throw err;
    }
    end();
    await tx.ended;
    return result;
  }

  async function inGroup<T>(fn: (t: Transaction) => Promise<T>): Promise<T> {
    while (open?.closing) await open.ended.catch(() => {});
    if (!open) {
      const { tx, end } = begin();
      setImmediate(() => {
        tx.closing = true;
        // After the members already queued: none joins a closing group.
        tx.root.nested(() => flushAtCommit(tx)).then(() => end(), end);
      });
    }
    const group = open!;
    const result = await savepoint(group.root, fn);
    await group.ended;
    return result;
  }

  const engine: Engine = {
    ...queries,
    kind: 'sqlite',
    dialect: sqliteDialect,
    tx(fn) {
      // Inside a transaction this engine did not open (synchronous code's, on the same
      // connection): a savepoint in it, committed or not by its owner.
      if (db.inTransaction && !open) return savepoint({ depth: 100, nested: serial() }, fn);
      return options.groupCommit ? inGroup(fn) : alone(fn);
    },
    async exclusive(name, fn) {
      if (running.has(name)) return undefined;
      running.add(name);
      try {
        return await fn();
      } finally {
        running.delete(name);
      }
    },
    atCommit<S>(key: object, make: () => S, flush: (t: Queryable, state: S) => Promise<void>): S | undefined {
      if (!open) return undefined;
      let entry = open.atCommit.get(key);
      if (!entry)
        open.atCommit.set(
          key,
          (entry = { state: make(), flush: flush as (t: Queryable, state: unknown) => Promise<void> }),
        );
      return entry.state as S;
    },
    // One connection already.
    reading: (fn) => fn(engine),
    async settled() {
      while (open) await open.ended.catch(() => {});
    },
    async close() {
      while (open) await open.ended.catch(() => {});
      db.close();
    },
  };
  return engine;
}
