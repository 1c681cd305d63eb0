/** The engine on SQLite (better-sqlite3). Statements run synchronously, so a query resolves at
 * once; what needs care is the one connection. An async transaction holds it across awaits, so
 * while one is open, queries from any other async call wait for it to end instead of landing
 * inside it. */
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

export function sqliteEngine(db: Db): Engine {
  const statements = new Map<string, Statement>();
  const prepare = (text: string) => statements.get(text) ?? statements.set(text, db.prepare(text)).get(text)!;
  const als = new AsyncLocalStorage<Tx>();
  /** The open transaction, and a promise settled when it ends. */
  let open: { ended: Promise<void> } | undefined;

  /** Whether the calling async call must wait for another's transaction to end. Checked again
   * after each wait, and the connection used in the same turn the check passes, so two waiters
   * woken together cannot both go. */
  const mustWait = () => open !== undefined && !als.getStore();

  async function statement<T>(query: Query<Param[], unknown>, use: (s: Statement) => T): Promise<T> {
    while (mustWait()) await open!.ended;
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
      while (mustWait()) await open!.ended;
      db.exec(text);
    },
    async tx(fn) {
      const parent = als.getStore();
      if (parent) return savepoint(parent, fn);
      while (open) await open.ended;
      let end!: () => void;
      open = { ended: new Promise<void>((resolve) => (end = resolve)) };
      try {
        db.exec('BEGIN IMMEDIATE');
        try {
          const result = await als.run({ depth: 0, nested: serial() }, fn);
          db.exec('COMMIT');
          return result;
        } catch (err) {
          if (db.inTransaction) db.exec('ROLLBACK');
          throw err;
        }
      } finally {
        open = undefined;
        end();
      }
    },
    inTx: () => als.getStore() !== undefined,
    async close() {
      while (open) await open.ended;
      db.close();
    },
  };
}
