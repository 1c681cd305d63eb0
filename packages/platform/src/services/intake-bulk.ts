/** The collector's batches, taken in bulk (bulk-queue.ts): the batches read in one turn of the
 * event loop, and those that arrive while earlier ones are being written, go through tracking
 * intake together, in one write. Most of a batch's work is per write, not per event (its
 * transaction, its visitors' links and sessions read, its contacts' analytics written, the
 * dynamic lists read, the rollups stored): under load a bulk of ten batches does it once. On
 * PostgreSQL, where each of those is a round trip and the database's work per statement is what
 * caps the writes, that is most of the cost; on SQLite it is the JavaScript around each statement.
 *
 * Services write one bulk at a time, on either engine (on PostgreSQL more bulks at once made
 * smaller ones and fewer events a second). A bulk that fails is retried one batch at a time. */
import type { TrackedEvent } from '../store/tracking';
import { bulkQueue, type Write } from './bulk-queue';
import type { Intake, TrackingIntake } from './tracking-intake';

export interface IntakeBulkOptions {
  /** Bulks written at once. */
  inFlight: number;
  /** A bulk's events at most (the batches beyond wait for the next bulk). */
  maxEvents?: number;
}

/** One batch: its events and the address they came from. */
interface Batch {
  events: TrackedEvent[];
  ip?: string;
}

export function intakeBulk(write: Write, intake: TrackingIntake, { inFlight, maxEvents = 1000 }: IntakeBulkOptions) {
  const queued = bulkQueue<Batch, Intake[]>((bulk) => write((db) => intake.acceptAll(db, bulk)), {
    inFlight,
    weight: (b) => b.events.length,
    maxWeight: maxEvents,
  });
  return {
    /** What became of each of `events` (one batch, from `ip`), once written. */
    accept: (events: TrackedEvent[], ip?: string): Promise<Intake[]> => queued({ events, ip }),
  };
}

export type IntakeBulk = ReturnType<typeof intakeBulk>;
