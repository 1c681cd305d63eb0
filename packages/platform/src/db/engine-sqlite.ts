/** The engine on SQLite (better-sqlite3). Statements run synchronously, so a query resolves at
 * once; what needs care is the one connection. An async transaction holds it across awaits, so
 * while one is open, queries from any other async call wait for it to end instead of landing
 * inside it.
 *
 * With `groupCommit`, the transactions begun in one turn of the event loop share one SQLite
 * transaction, committed once when the turn ends: each is a savepoint inside it, so a failing one
 * rolls back alone, and each resolves only after the commit, so what it wrote is durable when its
 * caller answers. One commit per turn instead of one per request means the WAL receives each page
 * that several requests touched once; under load that is most of the cost of a small write. */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Statement } from 'better-sqlite3';
import { type Dialect, type Engine, type Param, type Query, serial } from './engine';
import type { Db } from './open';

export const sqliteDialect: Dialect = {
  jsonText: (column, path) => `json_extract(${column}, '${path}')`,
  jsonNumber: (column, path) => `json_extract(${column}, '${path}')`,
  ilike: (expr, pattern) => `${expr} LIKE ${pattern}`,
  groupConcat: (expr, separator) => `group_concat(${expr}, ${separator})`,
  autoId: 'INTEGER PRIMARY KEY AUTOINCREMENT',
};

interface Tx {
  /** 0 for the transaction, n for the nth savepoint inside it. */
  depth: number;
  nested: ReturnType<typeof serial>;
}

/** better-sqlite3 binds no booleans, and Buffers rather than plain byte arrays. */
const bind = (params: Param[]) =>
  params.map((p) => (typeof p == 'boolean' ? Number(p) : p instanceof Uint8Array && !Buffer.isBuffer(p) ? Buffer.from(p) : p));

export interface SqliteEngineOptions {
  groupCommit?: boolean;
  /** Runs after each commit, outside any transaction (the WAL checkpointer). */
  afterCommit?: () => void;
}

/** An open SQLite transaction: one caller's, or a group's. */
interface Open {
  ended: Promise<void>;
  /** The transaction's own level: its members (a group's) are savepoints in it. */
  root: Tx;
  /** A group stops taking members when its turn ends; later ones open the next group. */
  closing: boolean;
}

export function sqliteEngine(db: Db, options: SqliteEngineOptions = {}): Engine {
  const statements = new Map<string, Statement>();
  const prepare = (text: string) => statements.get(text) ?? statements.set(text, db.prepare(text)).get(text)!;
  const als = new AsyncLocalStorage<Tx>();
  let open: Open | undefined;

  /** Whether the calling async call must wait for another's transaction to end. Checked again
   * after each wait, and the connection used in the same turn the check passes, so two waiters
   * woken together cannot both go. */
  const mustWait = () => open !== undefined && !als.getStore();

  async function statement<T>(query: Query<Param[], unknown>, use: (s: Statement) => T): Promise<T> {
    while (mustWait()) await open!.ended.catch(() => {});
    return use(prepare(query.text));
  }

  async function savepoint<T>(parent: Tx, fn: () => Promise<T>): Promise<T> {
    return parent.nested(async () => {
      const name = `sp${parent.depth + 1}`;
      db.exec(`SAVEPOINT ${name}`);
      try {
        const result = await als.run({ depth: parent.depth + 1, nested: serial() }, fn);
        db.exec(`RELEASE ${name}`);
        return result;
      } catch (err) {
        db.exec(`ROLLBACK TO ${name}; RELEASE ${name}`);
        throw err;
      }
    });
  }

  /** Begins a transaction; `end` commits it (or rolls back after `err`), then settles `ended`. */
  function begin() {
    db.exec('BEGIN IMMEDIATE');
    let settle!: (err?: unknown) => void;
    const ended = new Promise<void>((resolve, reject) => (settle = (err) => (err === undefined ? resolve() : reject(err))));
    ended.catch(() => {}); // its members see a failed commit; an unobserved one must not crash the process
    const tx: Open = { ended, root: { depth: 0, nested: serial() }, closing: false };
    open = tx;
    const end = (err?: unknown) => {
      try {
        if (err === undefined) db.exec('COMMIT');
      } catch (commitErr) {
        err = commitErr;
      }
      if (err !== undefined && db.inTransaction) db.exec('ROLLBACK');
      open = undefined;
      settle(err);
      if (err === undefined) options.afterCommit?.();
    };
    return { tx, end };
  }

  async function alone<T>(fn: () => Promise<T>): Promise<T> {
    while (open) await open.ended.catch(() => {});
    const { tx, end } = begin();
    let result: T;
    try {
      result = await als.run(tx.root, fn);
    } catch (err) {
      end(err);
      throw err;
    }
    end();
    await tx.ended;
    return result;
  }

  async function inGroup<T>(fn: () => Promise<T>): Promise<T> {
    while (open?.closing) await open.ended.catch(() => {});
    if (!open) {
      const { tx, end } = begin();
      setImmediate(() => {
        tx.closing = true;
        // After the members already queued: none joins a closing group.
        tx.root.nested(async () => {}).then(() => end());
      });
    }
    const group = open!;
    const result = await savepoint(group.root, fn);
    await group.ended;
    return result;
  }

  return {
    kind: 'sqlite',
    dialect: sqliteDialect,
    get: (query, ...params) => statement(query, (s) => s.get(...bind(params)) as never),
    all: (query, ...params) => statement(query, (s) => s.all(...bind(params)) as never),
    value: (query, ...params) =>
      statement(query, (s) => {
        const row = s.get(...bind(params)) as Record<string, unknown> | undefined;
        return (row && Object.values(row)[0]) as never;
      }),
    run: (query, ...params) => statement(query, (s) => s.run(...bind(params)).changes),
    async exec(text) {
      while (mustWait()) await open!.ended.catch(() => {});
      db.exec(text);
    },
    async tx(fn) {
      const parent = als.getStore();
      if (parent) return savepoint(parent, fn);
      return options.groupCommit ? inGroup(fn) : alone(fn);
    },
    inTx: () => als.getStore() !== undefined,
    async close() {
      while (open) await open.ended.catch(() => {});
      db.close();
    },
  };
}
