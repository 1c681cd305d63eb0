/** The part-2 scheduler: publishes posts and pages whose publish_date has come, and due
 * broadcasts. Like the workflow engine it runs on a timer while the servers listen;
 * tests move the clock and call `runDue()`. Each run is one write in the group commit.
 *
 * Every process sharing a PostgreSQL database runs this timer: a run is `exclusive`, so the
 * processes take turns instead of racing, and each job claims its due rows besides (see
 * `forUpdateSkipLocked`), so a thing is done once even by two runs at once. */
import type { Engine, Queryable } from '../db/engine';

export interface Job {
  name: string;
  /** Does the due work in the run's transaction `t`; resolves to how many things it did. */
  run: (t: Queryable) => Promise<number>;
}

export function scheduler(
  engine: Pick<Engine, 'exclusive'>,
  write: <T>(fn: (t: Queryable) => Promise<T>) => Promise<T>,
  jobs: Job[],
) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();

  /** Runs every job once, one after the other; resolves to what each did here, by name (nothing,
   * when another process was running them). */
  function runDue(): Promise<Record<string, number>> {
    const run = running.then(async () => {
      const done = await engine.exclusive('scheduler', () =>
        write(async (t) => {
          const did: Record<string, number> = {};
          for (const j of jobs) did[j.name] = await j.run(t);
          return did;
        }),
      );
      return done ?? Object.fromEntries(jobs.map((j) => [j.name, 0]));
    });
    running = run.catch(() => {});
    return run;
  }

  return {
    runDue,
    /** The timer is unref'd so it never keeps the process alive. */
    start(intervalMs = 1000, onError: (err: unknown) => void = console.error) {
      if (timer) return;
      timer = setInterval(() => void runDue().catch(onError), intervalMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
