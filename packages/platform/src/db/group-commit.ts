/** Group commit. The writes of all requests handled in one turn of the event loop share one SQLite
 * transaction, committed once when the turn ends (`setImmediate`). Each request's writes are a
 * savepoint inside it, so a failing request rolls back alone; and its answer waits for the
 * commit, so an acknowledged write is durable. One commit per turn instead of one per request
 * means the WAL receives each page that several requests touched once — under load that is most
 * of the cost of a small write. */
import type { Db } from './open';

export interface GroupCommit {
  /** Runs `fn` now inside the open group (opening one if needed); resolves with its result once
   * the group is committed. If `fn` throws, its own writes are undone and the promise rejects. */
  run<T>(fn: () => T): Promise<Awaited<T>>;
  /** Resolves when everything written so far is committed (a read answers after it, so it never
   * shows a write that could still be lost). */
  settled(): Promise<void>;
  /** Commits the open group now (before the database closes). */
  flush(): void;
  /** `fn` runs after each group's commit, outside the transaction (the WAL checkpointer). */
  onCommit(fn: (() => void) | undefined): void;
}

export function groupCommit(db: Db): GroupCommit {
  let group: { done: Promise<void>; commit: () => void } | undefined;
  let afterCommit: (() => void) | undefined;
  // Prepared once: parsing these on every request showed up in profiles.
  const sql = Object.fromEntries(
    Object.entries({ begin: 'BEGIN IMMEDIATE', commit: 'COMMIT', rollback: 'ROLLBACK', save: 'SAVEPOINT request', release: 'RELEASE request', undo: 'ROLLBACK TO request' }).map(
      ([k, v]) => [k, db.prepare(v)],
    ),
  );

  function open() {
    sql.begin.run();
    let resolve!: () => void;
    let reject!: (err: unknown) => void;
    const done = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
    done.catch(() => {}); // the members see the rejection; an unobserved one must not crash the process
    const commit = () => {
      if (group?.done !== done) return;
      group = undefined;
      try {
        sql.commit.run();
        resolve();
      } catch (err) {
        if (db.inTransaction) sql.rollback.run();
        reject(err);
        return;
      }
      afterCommit?.();
    };
    setImmediate(commit);
    return { done, commit };
  }

  return {
    async run<T>(fn: () => T): Promise<Awaited<T>> {
      // Someone else's transaction is open (not ours): nest in it like any other write.
      if (db.inTransaction && !group) return await fn();
      group ??= open();
      const { done } = group;
      sql.save.run();
      let result: T;
      try {
        result = fn();
        sql.release.run();
      } catch (err) {
        sql.undo.run();
        sql.release.run();
        throw err;
      }
      // An async handler's later writes land in whatever transaction is open then: they are
      // not part of this savepoint, but they are committed before anyone reads them.
      const value = await result;
      await done;
      return value;
    },
    settled: () => group?.done ?? Promise.resolve(),
    flush: () => group?.commit(),
    onCommit: (fn) => (afterCommit = fn),
  };
}
