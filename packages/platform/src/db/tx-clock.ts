/** A transaction's own time, for writes that replay something as of when it happened: a spam
 * submission released from review is stored with the time it was sent (services/
 * form-submissions.ts). Bound to the transaction's handle (db/tx-context.ts), not to the process:
 * other requests' writes meanwhile keep the clock's time. */
import type { Queryable } from './engine';
import { txContext } from './tx-context';

const replayed = txContext<number>();

/** `db`, whose writes that ask `timeOf` happen at `at`. */
export const atTime = <Q extends Queryable>(db: Q, at: number): Q => replayed.bind(db, at);

/** The time a write through `db` happens: the time it replays, else `now()`. */
export const timeOf = (db: Queryable, now: () => number): number => replayed.of(db) ?? now();
