/** Rate-limit counters in PostgreSQL's `rate_limits` table (made by the schema, in
 * rate-limiter-flexible's layout: a row per counter key, its points and its expiry in ms), shared
 * by every platform process on the database: the library's RateLimiterPostgres, with a way to read
 * many keys' counts in one statement. The rolling window (http/rolling-window.ts) reads a key's
 * earlier slices with it: nine at once for a key new to the process (a visitor's address), where
 * the library's `get` took a statement and a pool connection each — nine of the pool's ten, for
 * every new address. The reads of the requests that arrive while one runs go together in the next. */
import type pg from 'pg';
import { RateLimiterPostgres, type RateLimiterAbstract } from 'rate-limiter-flexible';

/** Counters, and optionally a way to read many keys' counts at once (0 for a key without one). */
export type SliceCounters = RateLimiterAbstract & { getMany?: (keys: string[]) => Promise<number[]> };

/** What the library's `get` reads (a row past its expiry counts nothing), for one key or many, each
 * looked up by the index on its own (LATERAL … LIMIT 1: a plain `key = ANY(…)` was planned as a scan
 * of the whole table while the table's statistics lagged behind its growth). */
const GET_ONE = 'SELECT key, points FROM rate_limits WHERE key = $1 AND (expire > $2 OR expire IS NULL)';
const GET_MANY = `SELECT x.key, x.points FROM unnest($1::text[]) AS k (key)
  CROSS JOIN LATERAL (SELECT key, points FROM rate_limits WHERE key = k.key AND (expire > $2 OR expire IS NULL) LIMIT 1) AS x`;

/** Counters of `durationSeconds` in `rate_limits`, their keys under `prefix` (which separates the
 * limits). */
export function postgresSliceCounters(pool: pg.Pool, durationSeconds: number, prefix: string): SliceCounters {
  const counters = new RateLimiterPostgres({
    storeClient: pool,
    storeType: 'pool',
    tableName: 'rate_limits',
    tableCreated: true,
    keyPrefix: prefix,
    // Each slice is a row of its own: delete the rows that expired an hour ago every five minutes
    // (the library's timer, unref'd), or the table grows by a row per key and slice for good.
    clearExpiredByTimeout: true,
    points: Number.MAX_SAFE_INTEGER,
    duration: durationSeconds,
  });
  type Row = { key: string; points: number };
  // Date.now, not the platform's clock, on purpose: a row's expiry is housekeeping the library
  // writes on the wall clock, and a read must compare with the same clock. Which requests count
  // together follows the platform's clock through the slice keys (http/rolling-window.ts), so a
  // moved clock (the admin surface's) moves the window.

  // A statement of one key where there is one (a plain statement, whose plan PostgreSQL keeps), of
  // many otherwise (an array's statement is planned again on each run).
  const getMany = batched(async (keys: string[]) => {
    const { rows } =
      keys.length == 1
        ? await pool.query<Row>({
            name: 'rate-limits-get-one',
            text: GET_ONE,
            values: [counters.getKey(keys[0]), Date.now()],
          })
        : await pool.query<Row>({
            name: 'rate-limits-get-many',
            text: GET_MANY,
            values: [keys.map((k) => counters.getKey(k)), Date.now()],
          });
    const points = new Map(rows.map((r) => [counters.parseKey(r.key), Number(r.points)]));
    return keys.map((k) => points.get(k) ?? 0);
  });
  return Object.assign(counters, { getMany });
}

/** `fn` over lists, one run at a time: the calls made together (in one synchronous stretch) go
 * into one run, those that arrive while it runs into the next, and each call gets its own part of
 * the answer (or the run's error). */
function batched<I, O>(fn: (items: I[]) => Promise<O[]>) {
  type Call = { items: I[]; resolve: (values: O[]) => void; reject: (err: unknown) => void };
  let waiting: Call[] = [];
  /** A run is under way, or due once the calls being made are made (a microtask). */
  let busy = false;
  function run() {
    const calls = waiting;
    waiting = [];
    fn(calls.flatMap((c) => c.items))
      .then(
        (values) => {
          let at = 0;
          for (const c of calls) c.resolve(values.slice(at, (at += c.items.length)));
        },
        (err: unknown) => calls.forEach((c) => c.reject(err)),
      )
      .finally(() => {
        if (waiting.length) run();
        else busy = false;
      });
  }
  return (items: I[]) =>
    new Promise<O[]>((resolve, reject) => {
      waiting.push({ items, resolve, reject });
      if (!busy) {
        busy = true;
        queueMicrotask(run);
      }
    });
}
