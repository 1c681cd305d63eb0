/** The part-2 scheduler: publishes posts and pages whose publish_date has come (and, once social
 * exists, due broadcasts). Like the workflow engine it runs on a timer while the servers listen;
 * tests move the clock and call `runDue()`. Each run is one write in the group commit. */
import type { Queryable } from './db/engine';

export interface Job {
  name: string;
  /** Does the due work in the run's transaction `t`; resolves to how many things it did. */
  run: (t: Queryable) => Promise<number>;
}

export function scheduler(write: <T>(fn: (t: Queryable) => T) => Promise<Awaited<T>>, jobs: Job[]) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();

  /** Runs every job once, one after the other; resolves to what each did, by name. */
  function runDue(): Promise<Record<string, number>> {
    const run = running.then(() =>
      write(async (t) => {
        const done: Record<string, number> = {};
        for (const j of jobs) done[j.name] = await j.run(t);
        return done;
      }),
    );
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
