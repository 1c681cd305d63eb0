/** The engine on PostgreSQL (node-postgres, a pool of connections). Queries are written for both
 * engines with `?` placeholders; `toPostgres` (postgres-dialect.ts) turns them into `$1, $2, …` once
 * per text. Each text becomes a named prepared statement, parsed once per connection. */
import pg from 'pg';
import {
  type Engine,
  noteSavepointRolledBack,
  type Param,
  type Query,
  type Queryable,
  serial,
  sql,
  type Transaction,
} from './engine';
import { postgresDialect, toPostgres } from './postgres-dialect';
import { asPlatformError } from './postgres-errors';

// Re-exported: importers (and tests) take the whole engine from this one module.
export { postgresDialect, toPostgres } from './postgres-dialect';
export { asPlatformError } from './postgres-errors';
export { isPostgresUrl, withoutPassword } from './postgres-url';

/** Bigints (counts, ids) as numbers: every id and count of the platform fits in 2^53. */
const INT8: number = pg.types.builtins.INT8;
const NUMERIC: number = pg.types.builtins.NUMERIC;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown =>
    oid == INT8 || oid == NUMERIC ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** Booleans as 0/1 (the schema keeps flags as integers, as on SQLite); bigints as text. */
const bind = (params: Param[]) =>
  params.map((p) =>
    typeof p == 'boolean'
      ? Number(p)
      : typeof p == 'bigint'
        ? p.toString()
        : p instanceof Uint8Array && !Buffer.isBuffer(p)
          ? Buffer.from(p)
          : p,
  );

/** An advisory lock's key: the name within the connection's schema. Advisory locks are the
 * database's, while a platform's data is its schema's: platforms in schemas of their own on one
 * database (the tests' platforms, side by side) do not hold up or skip each other's work. */
const LOCK_KEY = "hashtext(coalesce(current_schema(), '') || ':' || ?)";

/** Held by the transaction until it ends (`Transaction.lock`), alone or shared. */
const xactLock = {
  exclusive: sql<[string], { locked: string }>(`SELECT pg_advisory_xact_lock(${LOCK_KEY}) AS locked`),
  shared: sql<[string], { locked: string }>(`SELECT pg_advisory_xact_lock_shared(${LOCK_KEY}) AS locked`),
};
/** Several at once (a JSON array of names), in the order of their keys. */
const lockAll = (fn: string) =>
  sql<[string], { locked: string }>(
    `SELECT count(${fn}(k)) AS locked FROM (SELECT DISTINCT ${LOCK_KEY.replace('?', 'n')} AS k FROM json_array_elements_text(?::json) AS n ORDER BY k) AS keys`,
  );
const xactLockAll = { exclusive: lockAll('pg_advisory_xact_lock'), shared: lockAll('pg_advisory_xact_lock_shared') };
/** Held by a connection of its own while an `exclusive` job runs. */
const sessionLock = {
  try: `SELECT pg_try_advisory_lock(${toPostgres(LOCK_KEY)}) AS got`,
  unlock: `SELECT pg_advisory_unlock(${toPostgres(LOCK_KEY)})`,
};

/** One level of a transaction on its connection: savepoints inside it are a stack. */
interface Level {
  client: pg.PoolClient;
  depth: number;
  nested: ReturnType<typeof serial>;
  /** The transaction's `txKey`. */
  tx: object;
}

export interface PostgresOptions {
  /** The schema the connections use (tests give each file its own). */
  schema?: string;
  /** The pool's size. */
  max?: number;
  /** Where connection errors of idle clients go (the pool recovers from them). */
  onError?: (err: Error) => void;
  /** How long a query waits for a connection before answering 503 (default 5 s). */
  connectTimeoutMs?: number;
}

/** The engine, and its pool for what keeps its own tables through it (shared rate limits). */
export interface PostgresEngine extends Engine {
  readonly pool: pg.Pool;
}

export function postgresEngine(url: string, options: PostgresOptions = {}): PostgresEngine {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    // Without it, a query waits for a connection forever while the server is down.
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    types,
    // Each query is sent at once, not after the answer to the one before: see `control`.
    pipeline: true,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  });
  pool.on('error', options.onError ?? (() => {}));
  const names = new Map<string, { name: string; text: string }>();
  const prepared = (text: string) =>
    names.get(text) ?? names.set(text, { name: `q${names.size}`, text: toPostgres(text) }).get(text)!;

  /** Sends the prepared statement of `text` on a transaction's connection. As a `pg.Query` made
   * from its text rather than a config object: node-postgres copies a config object through its
   * property descriptors, a visible share of a form submission's main-thread time. */
  function submit(client: pg.PoolClient, text: string, params: Param[]) {
    const statement = prepared(text);
    return new Promise<pg.QueryResult>((resolve, reject) => {
      const query = new pg.Query(statement.text, bind(params), (err, result) => (err ? reject(err) : resolve(result)));
      (query as { name?: string }).name = statement.name;
      void client.query(query);
    });
  }

  /** A transaction's statements sent in one turn of the event loop go to the server in one write:
   * its connection's socket is corked from the first until the turn ends (setImmediate). Each
   * write is a system call that, on the loopback, also wakes the server's process; a form
   * submission sent 17, each statement on its own, and they were a third of the process's time. */
  const corked = new WeakSet<pg.PoolClient>();
  function corkTurn(client: pg.PoolClient) {
    if (corked.has(client)) return;
    const stream = (client as unknown as { connection?: { stream?: { cork?(): void; uncork?(): void } } }).connection
      ?.stream;
    if (!stream?.cork || !stream.uncork) return;
    corked.add(client);
    stream.cork();
    setImmediate(() => {
      corked.delete(client);
      stream.uncork!();
    });
  }

  /** A transaction's statements whose answer nobody waits for (BEGIN, SAVEPOINT, RELEASE, its
   * locks), by connection: sent at once, the next query following them on the wire in pipeline
   * mode rather than a round trip later (a form submission made six of them, in 26 round trips).
   * The server answers them in order, so the next query runs once a lock is held. The next
   * query, or the commit, waits for their answer: a failed one's error is the one thrown (the
   * queries after it fail only because the transaction was aborted). */
  const unanswered = new WeakMap<pg.PoolClient, Promise<unknown>>();
  function control(client: pg.PoolClient, query: string | { text: string; params: Param[] }) {
    corkTurn(client);
    const sent = typeof query == 'string' ? client.query(query) : submit(client, query.text, query.params);
    sent.catch(() => {}); // seen by whoever waits next
    const before = unanswered.get(client);
    unanswered.set(client, before ? Promise.all([before, sent]) : sent);
  }
  async function answered(on: pg.Pool | pg.PoolClient) {
    const pending = unanswered.get(on as pg.PoolClient);
    if (!pending) return;
    unanswered.delete(on as pg.PoolClient);
    await pending;
  }

  /** The statements on a connection: the pool's (each on its own) or a transaction's. */
  function queriesOn(on: pg.Pool | pg.PoolClient) {
    const query = async (q: Query, params: Param[]) => {
      let sent: Promise<pg.QueryResult>;
      if (on instanceof pg.Pool) {
        const { name, text } = prepared(q.text);
        sent = on.query({ name, text, values: bind(params) });
      } else {
        corkTurn(on);
        sent = submit(on, q.text, params);
      }
      try {
        await answered(on);
        return await sent;
      } catch (err) {
        sent.catch(() => {});
        throw asPlatformError(err);
      }
    };
    const value = async (q: Query, ...params: Param[]) => {
      const row = (await query(q, params)).rows[0] as Record<string, unknown> | undefined;
      return row && Object.values(row)[0];
    };
    return {
      get: async (q: Query, ...params: Param[]): Promise<unknown> => (await query(q, params)).rows[0],
      all: async (q: Query, ...params: Param[]) => (await query(q, params)).rows as unknown[],
      value,
      // The key its RETURNING answers (a bigint column comes as text).
      async insert(q: Query, ...params: Param[]) {
        const key = await value(q, ...params);
        return key === undefined ? undefined : Number(key);
      },
      run: async (q: Query, ...params: Param[]) => (await query(q, params)).rowCount ?? 0,
      // In a transaction, pipelined (see `control`); on the pool (no transaction), run.
      async send(q: Query, ...params: Param[]) {
        if (on instanceof pg.Pool) return void (await query(q, params));
        control(on, { text: q.text, params });
      },
      async exec(text: string) {
        const sent = on.query(text);
        sent.catch(() => {});
        await answered(on);
        await sent;
      },
    } as unknown as Omit<Queryable, 'tx'>;
  }

  const handle = (level: Level): Transaction => {
    const queries = queriesOn(level.client);
    return {
      ...queries,
      txKey: level.tx,
      tx: (fn) => savepoint(level, fn),
      // Keys of their own (not `exclusive`'s): a job may take a lock inside its exclusive run.
      // Pipelined (`control`): the statements after it wait for it on the server.
      lock: async (name, mode = 'exclusive') => {
        const many = typeof name != 'string';
        if (many && !name.length) return;
        control(level.client, {
          text: (many ? xactLockAll : xactLock)[mode].text,
          params: [many ? JSON.stringify(name.map((n) => `svc-tx:${n}`)) : `svc-tx:${name}`],
        });
      },
    };
  };

  function savepoint<T>(parent: Level, fn: (t: Transaction) => Promise<T>): Promise<T> {
    return parent.nested(async () => {
      const level = { ...parent, depth: parent.depth + 1, nested: serial() };
      const name = `sp${level.depth}`;
      control(parent.client, `SAVEPOINT ${name}`);
      try {
        const result = await fn(handle(level));
        control(parent.client, `RELEASE SAVEPOINT ${name}`);
        return result;
      } catch (err) {
        await answered(parent.client).catch(() => {});
        noteSavepointRolledBack(level.tx);
        await parent.client.query(`ROLLBACK TO SAVEPOINT ${name}`);
        throw err;
      }
    });
  }

  /** A connection of the pool for a transaction or a lock. While it is out the pool does not
   * listen to it: a connection lost then (the server restarting) would be an uncaught error,
   * ending the process, without a listener of its own; its queries fail (a 503) and it is closed
   * when released. */
  async function checkout() {
    const client = await pool.connect().catch((err: unknown) => {
      throw asPlatformError(err);
    });
    let lostWith: Error | undefined;
    const onError = (err: Error) => (lostWith = err);
    client.on('error', onError);
    return {
      client,
      lost: () => {
        client.off('error', onError);
        return lostWith;
      },
    };
  }

  const engine: PostgresEngine = {
    ...queriesOn(pool),
    pool,
    kind: 'postgres',
    dialect: postgresDialect,
    async tx(fn) {
      const { client, lost } = await checkout();
      let broken: Error | undefined;
      try {
        control(client, 'BEGIN');
        try {
          const result = await fn(handle({ client, depth: 0, nested: serial(), tx: {} }));
          corkTurn(client);
          const commit = client.query('COMMIT');
          commit.catch(() => {});
          await answered(client);
          await commit;
          return result;
        } catch (err) {
          await answered(client).catch(() => {});
          await client.query('ROLLBACK').catch((rollbackErr: Error) => (broken = rollbackErr));
          throw err;
        }
      } catch (err) {
        // A commit lost with its connection is a 503: whether it landed is unknown, as with any
        // request whose answer did not arrive.
        throw asPlatformError(err);
      } finally {
        // A connection that could not roll back is closed, not given to the next caller.
        client.release(broken ?? lost());
      }
    },
    async exclusive(name, fn) {
      // A session lock on a connection of its own, held while `fn` runs: another process's
      // try fails at once; if this process dies, its connection and the lock go with it.
      const { client, lost } = await checkout();
      let broken: Error | undefined;
      try {
        const { rows } = await client.query<{ got: boolean }>(sessionLock.try, [`svc:${name}`]);
        if (!rows[0].got) return undefined;
        try {
          return await fn();
        } finally {
          await client.query(sessionLock.unlock, [`svc:${name}`]).catch((err: Error) => (broken = err));
        }
      } catch (err) {
        throw asPlatformError(err);
      } finally {
        // A connection whose unlock failed still holds the lock: closing it lets go.
        client.release(broken ?? lost());
      }
    },
    async reading(fn) {
      const { client, lost } = await checkout();
      // The statements still running when `fn` ends (one of several sent at once failed): the
      // connection goes back to the pool once they have their answers (`send`'s: `answered`).
      const running = new Set<Promise<unknown>>();
      const tracked =
        <A extends unknown[]>(method: (...args: A) => Promise<unknown>) =>
        (...args: A) => {
          const answer = method(...args);
          running.add(answer);
          const done = () => running.delete(answer);
          answer.then(done, done);
          return answer;
        };
      const queries = queriesOn(client);
      try {
        // Not a transaction: a write inside goes to a transaction of its own.
        const handle = {
          get: tracked(queries.get),
          all: tracked(queries.all),
          value: tracked(queries.value),
          insert: tracked(queries.insert),
          run: tracked(queries.run),
        };
        return await fn({ ...queries, ...handle, tx: (write) => engine.tx(write) } as Queryable);
      } finally {
        await Promise.allSettled(running);
        await answered(client).catch(() => {});
        client.release(lost());
      }
    },
    // A read sees committed rows only: nothing to wait for.
    settled: async () => {},
    close: () => pool.end(),
  };
  return engine;
}
