/** The collector's batches, taken in bulk: the batches read in one turn of the event loop, and
 * those that arrive while earlier ones are being written, go through tracking intake together, in
 * one write. Most of a batch's work is per write,
 * not per event (its transaction, its visitors' links and sessions read, its contacts' analytics
 * written, the dynamic lists read, the rollups stored): under load a bulk of ten batches does it
 * once. On PostgreSQL, where each of those is a round trip and the database's work per statement
 * is what caps the writes, that is most of the cost; on SQLite it is the JavaScript around each
 * statement.
 *
 * At most `inFlight` bulks are written at once (services: one, on either engine; on PostgreSQL
 * more bulks at once made smaller ones and fewer events a second): a batch that arrives meanwhile
 * waits for the next bulk. A quiet collector is not slowed down: a batch alone is written at
 * the end of its turn, alone (SQLite's group commit waits for that end anyway).
 *
 * A bulk that fails is retried one batch at a time, each in its own write, so that a batch never
 * fails for another's sake; a database that is unreachable fails them all at once, as it would
 * have (a 503 each). */
import { PlatformError } from '../domain/errors';
import type { TrackedEvent } from '../store/tracking';
import type { Intake, TrackingIntake } from './tracking-intake';

type Write = <T>(fn: (t: import('../db/engine').Queryable) => T) => Promise<Awaited<T>>;

/** One batch as it waits: its events, the address they came from, and its answer. */
interface Waiting {
  events: TrackedEvent[];
  ip?: string;
  resolve: (outcomes: Intake[]) => void;
  reject: (err: unknown) => void;
}

export interface BulkOptions {
  /** Bulks written at once. */
  inFlight: number;
  /** A bulk's events at most (the batches beyond wait for the next bulk). */
  maxEvents?: number;
}

export function intakeBulk(write: Write, intake: TrackingIntake, { inFlight, maxEvents = 1000 }: BulkOptions) {
  const queue: Waiting[] = [];
  let writing = 0;
  let scheduled = false;

  const run = (bulk: Waiting[]) => write((db) => intake.acceptAll(db, bulk));

  async function writeBulk(bulk: Waiting[]) {
    try {
      const outcomes = await run(bulk);
      bulk.forEach((b, i) => b.resolve(outcomes[i]));
    } catch (err) {
      // A database that is unreachable fails every batch alike, and at once: retried one by one,
      // each would wait for a connection in turn while the next bulks queue behind them.
      if (bulk.length == 1 || (err instanceof PlatformError && err.kind == 'unavailable')) for (const b of bulk) b.reject(err);
      else for (const b of bulk) await run([b]).then((o) => b.resolve(o[0]), b.reject);
    }
  }

  /** Starts bulks while there are waiting batches and room for them. */
  function next() {
    while (queue.length && writing < inFlight) {
      let events = 0;
      let n = 0;
      while (n < queue.length && (n == 0 || events + queue[n].events.length <= maxEvents)) events += queue[n++].events.length;
      const bulk = queue.splice(0, n);
      writing++;
      void writeBulk(bulk).finally(() => {
        writing--;
        next();
      });
    }
  }

  return {
    /** What became of each of `events` (one batch, from `ip`), once written. */
    accept(events: TrackedEvent[], ip?: string): Promise<Intake[]> {
      return new Promise((resolve, reject) => {
        queue.push({ events, ip, resolve, reject });
        // The batches read in this turn of the event loop go together: started at its end, a bulk
        // takes them all (started at once, the first would go alone and the rest wait for its commit).
        if (!scheduled && writing < inFlight) {
          scheduled = true;
          setImmediate(() => {
            scheduled = false;
            next();
          });
        }
      });
    },
  };
}

export type IntakeBulk = ReturnType<typeof intakeBulk>;
