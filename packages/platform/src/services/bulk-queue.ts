/** Work taken in bulk: the items that arrive in one turn of the event loop, and those that
 * arrive while earlier bulks are being written, are written together, in one transaction. On
 * PostgreSQL most of a small write's cost is per transaction (its round trips, BEGIN and COMMIT,
 * the versions of the cached values, the dynamic lists' lock and rows, the rollups): a bulk pays
 * them once. The collector's batches (intake-bulk.ts) and, on PostgreSQL, form submissions
 * (writesInBulk) go this way.
 *
 * At most `inFlight` bulks are written at once: an item that arrives meanwhile waits for the next
 * bulk. A quiet queue is not slowed down: an item alone is written at the end of its turn, alone.
 *
 * A bulk that fails is retried one item at a time, each in its own write, so that an item never
 * fails for another's sake; a database that is unreachable fails them all at once, as it would
 * have (a 503 each). */
import type { Queryable } from '../db/engine';
import { PlatformError } from '../domain/errors';

export type Write = <T>(fn: (t: Queryable) => T) => Promise<Awaited<T>>;

export interface BulkOptions<I> {
  /** Bulks written at once. */
  inFlight: number;
  /** An item's weight (default 1), and a bulk's at most: the items beyond wait for the next bulk
   * (a bulk holds at least one item, however heavy). */
  weight?: (item: I) => number;
  maxWeight?: number;
}

interface Waiting<I, R> {
  item: I;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

/** `run` writes a bulk of items and answers each one's result, in their order. Returns the
 * function that queues an item and resolves with its result once written. */
export function bulkQueue<I, R>(
  run: (items: I[]) => Promise<R[]>,
  { inFlight, weight = () => 1, maxWeight = Infinity }: BulkOptions<I>,
) {
  const queue: Waiting<I, R>[] = [];
  let writing = 0;
  let scheduled = false;

  async function writeBulk(bulk: Waiting<I, R>[]) {
    try {
      const results = await run(bulk.map((w) => w.item));
      bulk.forEach((w, i) => w.resolve(results[i]));
    } catch (err) {
      // A database that is unreachable fails every item alike, and at once: retried one by one,
      // each would wait for a connection in turn while the next bulks queue behind them.
      if (bulk.length == 1 || (err instanceof PlatformError && err.kind == 'unavailable'))
        for (const w of bulk) w.reject(err);
      else for (const w of bulk) await run([w.item]).then((r) => w.resolve(r[0]), w.reject);
    }
  }

  /** Starts bulks while there are waiting items and room for them. */
  function next() {
    while (queue.length && writing < inFlight) {
      let total = 0;
      let n = 0;
      while (n < queue.length && (n == 0 || total + weight(queue[n].item) <= maxWeight))
        total += weight(queue[n++].item);
      const bulk = queue.splice(0, n);
      writing++;
      void writeBulk(bulk).finally(() => {
        writing--;
        next();
      });
    }
  }

  return (item: I): Promise<R> =>
    new Promise((resolve, reject) => {
      queue.push({ item, resolve, reject });
      // The items of this turn of the event loop go together: started at its end, a bulk takes
      // them all (started at once, the first would go alone and the rest wait for its commit).
      if (!scheduled && writing < inFlight) {
        scheduled = true;
        setImmediate(() => {
          scheduled = false;
          next();
        });
      }
    });
}

/** Writes in bulk: each `fn` runs in a transaction shared with the writes queued with it, one
 * after another in their order (so the second of two submissions of one visitor sees the first),
 * with `write`'s work at its end (the contact changes announced, the rollups kept) done once for
 * all of them. For writes that may run again alone after their bulk failed (their `fn` does
 * nothing outside the transaction) and that nothing else orders: the form submissions. */
export function writesInBulk(write: Write, { inFlight, maxWrites }: { inFlight: number; maxWrites?: number }): Write {
  const queued = bulkQueue<(t: Queryable) => unknown, unknown>(
    (fns) =>
      write(async (t) => {
        const results: unknown[] = [];
        for (const fn of fns) results.push(await fn(t));
        return results;
      }),
    { inFlight, maxWeight: maxWrites },
  );
  return <T>(fn: (t: Queryable) => T) => queued(fn) as Promise<Awaited<T>>;
}
