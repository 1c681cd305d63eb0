/** The database engine the stores talk to: one interface, two implementations (engine-sqlite.ts,
 * engine-postgres.ts). A query is written once, in the SQL both engines speak, with `?`
 * placeholders; what truly differs between the dialects is in `Dialect`, side by side, and
 * statements (or steps) each engine writes its own way are pairs (statements.ts).
 *
 * A transaction is a handle: `tx(async (t) => …)` gives `fn` the `Transaction` whose queries run
 * in it, and `t.tx(…)` is a savepoint inside it. Code in a transaction queries through its handle,
 * never the engine (on PostgreSQL the engine is another connection). The handle is passed rather
 * than found through AsyncLocalStorage because on Node 20 that slows every promise of the
 * process: a quarter of the form submissions' throughput in bench:platform. */

export type Param = string | number | bigint | boolean | null | Uint8Array;

/** A query's text, typed with its parameters and its row. Build one with `sql`. */
export interface Query<P extends Param[] = Param[], R = Record<string, unknown>> {
  readonly text: string;
  /** Phantom fields: they carry the types only. */
  readonly _params?: P;
  readonly _row?: R;
}

export const sql = <P extends Param[] = [], R = Record<string, unknown>>(text: string): Query<P, R> => ({ text });

/** PostgreSQL only (SQLite has no LATERAL): the FROM clause of a statement that looks up each row
 * of `rows` (a dialect jsonRows or jsonIds) by its own key, `lookup` being a subquery that names
 * the row `r`, its result `x`. Its LIMIT (or OFFSET 0) keeps it a lookup by the index per row: a
 * plain join over the array could be planned as a scan of the whole table. One such statement
 * costs the database far less than a statement per row (statements.ts eachOrAll). */
export const perRow = (rows: string, lookup: string) => `FROM (${rows}) AS r CROSS JOIN LATERAL (${lookup}) AS x`;

/** PostgreSQL only: an UPDATE of many rows of `table`, each found by its `key` (its primary key),
 * from `rows` (a dialect jsonRows of the key and `columns`, the columns written). The array of
 * keys is an index condition: the rows are found by the index whatever the planner makes of the
 * join (a plain join could be planned as a scan of the whole table). */
export const updateRows = (table: string, key: string, rows: string, columns: string[]) =>
  `WITH x AS MATERIALIZED (${rows}) UPDATE ${table} SET ${columns.map((c) => `${c} = x.${c}`).join(', ')}
   FROM x WHERE ${table}.${key} = x.${key} AND ${table}.${key} = ANY (ARRAY(SELECT ${key} FROM x))`;

export type EngineKind = 'sqlite' | 'postgres';

/** The type of a value read from a JSON parameter (jsonRows' columns, inJsonArray's values). */
export type ColumnType = 'integer' | 'real' | 'text';

/** The SQL fragments the two dialects write differently. Each takes SQL expressions (column
 * names or placeholders) and returns an expression. */
export interface Dialect {
  /** The text at a JSON path (`$.a.b`) of a JSON text column; null when absent. */
  jsonText(this: void, column: string, path: string): string;
  /** The number at a JSON path of a JSON text column; null when absent (PostgreSQL: also when
   * it is not a JSON number, which SQLite's comparisons never find equal to a number either). */
  jsonNumber(this: void, column: string, path: string): string;
  /** A text expression as a number; null when it is not one (a value kept while its property
   * had another type): a sort key that never fails. */
  textNumber(this: void, text: string): string;
  /** A JSON boolean at a JSON path as 1 or 0 (how SQLite reads one); null when absent. */
  jsonBoolean(this: void, column: string, path: string): string;
  /** The value at a JSON path to sort by, as SQLite sorts it: null (or absent) first, then
   * numbers in number order, then text. */
  jsonSortKey(this: void, column: string, path: string): string;
  /** Whether the value at a JSON path is the number `value`, or an array holding it. */
  jsonHas(this: void, column: string, path: string, value: string): string;
  /** A JSON object text column without its top-level `key` (a text expression). */
  jsonRemoveKey(this: void, column: string, key: string): string;
  /** Whether a JSON object text column has the top-level `key` (a text expression). */
  jsonHasKey(this: void, column: string, key: string): string;
  /** The position of `needle` in `haystack` from 1, 0 when absent. */
  instr(this: void, haystack: string, needle: string): string;
  /** Whether `expr` is one of the values of the JSON array `array` (a text parameter), read as
   * `type` (integers for ids, so that an index on them finds them). On PostgreSQL
   * the array is read once, into an array the index is searched with (`= ANY`). A plain `IN
   * (subquery)` over it was planned, with statistics from when the table was small (a server
   * without autovacuum), as a loop that read the whole array again for each of the table's rows:
   * a dynamic list's re-check of a contact batch against 9,000 form submissions took 1.7 s. */
  inJsonArray(this: void, expr: string, array: string, type: ColumnType): string;
  /** A subquery: the integers of a JSON array (a text parameter), one row each, in the column
   * `id`, typed as the ids they are joined with (perRow, an insert of many rows). To test whether
   * a value is among them, `inJsonArray`. */
  jsonIds(this: void, array: string): string;
  /** A subquery: the objects of a JSON array (a text parameter), one row each, with `columns` (name
   * → type) as typed columns. For writes of many rows in one statement (a batch of contacts):
   * one parameter, one prepared text, whatever the number of rows. */
  jsonRows(this: void, array: string, columns: Record<string, ColumnType>): string;
  /** A subquery: the next `count` (a parameter) ids of `table`'s auto-numbered key, in the
   * column `id`, ascending; taken for the caller, who inserts the rows with them (so that rows
   * pointing at them can be written first). On PostgreSQL from the identity's sequence (a
   * rolled-back transaction's ids are skipped); on SQLite after the largest ever given
   * (AUTOINCREMENT's sqlite_sequence), which only this transaction can take meanwhile. */
  nextIds(this: void, table: string, column: string, count: string): string;
  /** Ends an INSERT of one row run by `Queryable.insert`, whose answer is the row's auto-numbered
   * key `column`: PostgreSQL returns it; SQLite returns nothing, its engine reads the rowid the
   * insert gave instead (RETURNING makes SQLite build a temporary table for every statement,
   * which cost a contact's history row several times its insert). */
  returningKey(this: void, column: string): string;
  /** Case-insensitive LIKE (SQLite's LIKE is, PostgreSQL's is not). */
  ilike(this: void, expr: string, pattern: string): string;
  /** Concatenation of the group's values with `separator` (a SQL string literal). */
  groupConcat(this: void, expr: string, separator: string): string;
  /** Ends a SELECT of due work (scheduled posts, waiting broadcasts, workflow steps): locks the
   * rows it reads for its transaction, leaving out those another transaction holds, so two runs
   * side by side (two processes on PostgreSQL) take different rows and never wait for each other.
   * Nothing on SQLite: its one writer runs transactions one at a time. */
  readonly forUpdateSkipLocked: string;
  /** Ends a SELECT whose rows the transaction is about to change from what it read (a contact's
   * properties, counters): another transaction doing the same waits instead of overwriting
   * them. Nothing on SQLite, for the same reason. */
  readonly forUpdate: string;
  /** The type of an auto-numbered primary key column, in CREATE TABLE. */
  readonly autoId: string;
}

/** What runs queries: the engine itself (each statement on its own), or a transaction's handle. */
export interface Queryable {
  /** The first row, or undefined. */
  get<P extends Param[], R>(query: Query<P, R>, ...params: P): Promise<R | undefined>;
  all<P extends Param[], R>(query: Query<P, R>, ...params: P): Promise<R[]>;
  /** The first column of the first row, or undefined. */
  value<P extends Param[], R>(query: Query<P, R>, ...params: P): Promise<R[keyof R] | undefined>;
  /** Runs an INSERT of one row that ends with the dialect's `returningKey(column)`, `column`
   * being the table's auto-numbered key (on SQLite the rowid: INTEGER PRIMARY KEY); resolves to
   * the new row's key, or undefined when it inserted none (ON CONFLICT DO NOTHING). */
  insert<P extends Param[]>(query: Query<P, unknown>, ...params: P): Promise<number | undefined>;
  /** Runs a write; resolves to the number of rows it changed. */
  run<P extends Param[]>(query: Query<P, unknown>, ...params: P): Promise<number>;
  /** Runs a write whose answer nobody needs. In a PostgreSQL transaction it is sent without
   * waiting (pipelined, like SAVEPOINT): the transaction's next statement or its commit fails
   * with its error, if it fails. So only for a write whose failure means the whole transaction
   * fails (no savepoint to catch it in): an insert of a row that cannot conflict. */
  send<P extends Param[]>(query: Query<P, unknown>, ...params: P): Promise<void>;
  /** Runs statements without parameters (schema); several separated by `;`. */
  exec(text: string): Promise<void>;
  /** Runs `fn` in a transaction (on a handle: a savepoint in its transaction), committed when it
   * resolves, rolled back when it rejects. */
  tx<T>(fn: (t: Transaction) => Promise<T>): Promise<T>;
  /** The same object for every handle of one transaction, its savepoints' too, and another for
   * the next transaction (what caches per transaction key on); none outside a transaction, and on
   * SQLite, whose caches need none. */
  readonly txKey?: object;
}

/** A transaction's handle: its queries, and what only a transaction can do. */
export interface Transaction extends Queryable {
  /** Holds the lock `name` until the transaction ends; another transaction taking it waits until
   * then. For a write decided by what the database holds (the next id after the largest) when
   * another process may decide the same meanwhile: neither would see the other's uncommitted
   * row. A `shared` hold waits only for an exclusive one (and it for them): many transactions
   * that decide by the same rows without changing them, against the one that changes them (the
   * contact writes re-checking a portal's dynamic lists, against a list's refresh). On PostgreSQL
   * a transaction's advisory lock, named within the schema, sent without waiting for its answer:
   * the transaction's next statement runs once it is held (what follows a lock must be a query,
   * not a decision on what was read before it); nothing on SQLite, whose one writer runs
   * transactions one at a time. Several names: all of them, in one statement, in one order
   * whoever takes them (two transactions taking some of the same never wait for each other). */
  lock(name: string | readonly string[], mode?: 'exclusive' | 'shared'): Promise<void>;
}

export interface Engine extends Queryable {
  readonly kind: EngineKind;
  readonly dialect: Dialect;
  /** Runs `fn` unless `name` is already running, in this process or (PostgreSQL) any process on
   * the same schema: the background jobs (scheduled publishing, workflow steps, …) run once at a
   * time across processes rather than each process's timer racing the others. Resolves to
   * `undefined` when it did not run. A process that dies lets go at once (the lock is its
   * connection's). */
  exclusive<T>(name: string, fn: () => Promise<T>): Promise<T | undefined>;
  /** SQLite only: the state `key` keeps in the transaction open now (the group commit's, shared
   * by many requests' savepoints), made by `make` on first use and handed to `flush`, in that
   * transaction, right before it commits; undefined when none is open. For what every request
   * adds to the same rows (the dashboard's counters): summed in memory, written once per commit.
   * What a savepoint adds must be its last act, as nothing rolls it back (see rollups.batch).
   * PostgreSQL has none: each request's transaction is its own. */
  atCommit?<S>(key: object, make: () => S, flush: (t: Queryable, state: S) => Promise<void>): S | undefined;
  /** Runs `fn`'s reads on one connection, no transaction (each statement sees what was committed
   * when it ran). PostgreSQL: the connection is held for `fn`, and the statements of one turn of
   * the event loop go to the server together, pipelined: reads issued at once cost one write and
   * one round trip, not one each. SQLite: `fn` on the engine. */
  reading<T>(fn: (db: Queryable) => Promise<T>): Promise<T>;
  /** Resolves once every transaction open now has ended: a read made before then may have seen
   * writes that are not yet durable (SQLite's group commit), so its answer waits for this. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/** `fn`'s reads on one connection when `db` is the engine (Engine.reading); in the transaction
 * when it is one. */
export const reading = <T>(db: Queryable, fn: (db: Queryable) => Promise<T>): Promise<T> =>
  'reading' in db ? (db as Engine).reading(fn) : fn(db);

/** Savepoints rolled back so far in each transaction, by its txKey (PostgreSQL): a lock taken
 * inside one is released with it, so what was read under that lock may have changed since
 * (lists.ts reads dynamic lists ahead). */
const rolledBack = new WeakMap<object, number>();
export const savepointsRolledBack = (txKey: object) => rolledBack.get(txKey) ?? 0;
export const noteSavepointRolledBack = (txKey: object) => void rolledBack.set(txKey, savepointsRolledBack(txKey) + 1);

/** Reads a transaction sent ahead of the statement that needs them (PostgreSQL: in a write being
 * sent rather than in a round trip of their own), by transaction and key (a portal). What was read
 * is good while no savepoint of the transaction has rolled back since: that may have released the
 * locks it was read under. */
export function readsAhead<V>() {
  const byTx = new WeakMap<object, Map<number, { value: V; rollbacks: number }>>();
  return {
    set(txKey: object, key: number, value: V) {
      (byTx.get(txKey) ?? byTx.set(txKey, new Map()).get(txKey)!).set(key, {
        value,
        rollbacks: savepointsRolledBack(txKey),
      });
    },
    /** What was read ahead for `key` in the transaction, if it is still good. */
    get(txKey: object | undefined, key: number): V | undefined {
      const read = txKey && byTx.get(txKey)?.get(key);
      return read && read.rollbacks === savepointsRolledBack(txKey) ? read.value : undefined;
    },
    drop: (txKey: object | undefined, key: number) => void (txKey && byTx.get(txKey)?.delete(key)),
  };
}

/** Whether `db` is a transaction's handle (or a savepoint's) rather than the engine. */
export const isTransaction = (db: Queryable): db is Transaction => 'lock' in db;

/** Runs `fn` in the transaction `db` is a handle of, without a savepoint of its own, or in a
 * transaction of its own when `db` is the engine. Without the savepoint, a failure of `fn` fails
 * the caller's whole transaction: for writes whose callers do not catch a failure and go on (a
 * caller that does takes a savepoint itself, `t.tx`). A savepoint costs two statements: on
 * PostgreSQL each is sent to the server, and one that wrote takes a subtransaction id. */
export const within = <T>(db: Queryable, fn: (t: Transaction) => Promise<T>): Promise<T> =>
  isTransaction(db) ? fn(db) : db.tx(fn);

/** Serializes the nested transactions of one transaction: savepoints are a stack, so two started
 * side by side (Promise.all) must not interleave. */
export function serial() {
  let last: Promise<unknown> = Promise.resolve();
  return <T>(fn: () => Promise<T>): Promise<T> => {
    const run = last.then(fn, fn);
    last = run.catch(() => {});
    return run;
  };
}
