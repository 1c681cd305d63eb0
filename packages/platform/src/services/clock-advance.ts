/** Moving the platform's clock (util/clock.ts) with the work that falls due on the way: the
 * admin surface's `POST /_admin/clock`. The clock steps to each due time in order (store/
 * due-work.ts) and the jobs' passes run there (the scheduler's publishing and broadcasts, then
 * the workflow engine's steps and webhook attempts), so a two-day delay, the post scheduled after
 * it and a webhook retry between them happen in the order they would have, each at its own time;
 * only then does the call answer. The jobs' timers keep running meanwhile: they take the same
 * claims, so nothing runs twice. */
import type { Engine } from '../db/engine';
import { nextDueAfter } from '../store/due-work';
import type { Clock } from '../util/clock';

export interface DueJobs {
  scheduler: { runDue(): Promise<unknown> };
  workflows: { runDue(): Promise<unknown> };
}

/** Due times stepped through in one advance at most; past them the clock jumps to the end (a
 * workflow that loops on a short delay cannot hold the call forever). */
const MAX_STOPS = 10_000;

export function clockAdvance(engine: Engine, clock: Clock, jobs: DueJobs) {
  const runPasses = async () => {
    await jobs.scheduler.runDue();
    await jobs.workflows.runDue();
  };
  let last: Promise<unknown> = Promise.resolve();
  /** One move at a time: two advances side by side would step one clock past the other's stops. */
  const serialized = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = last.then(fn, fn);
    last = run.catch(() => {});
    return run;
  };

  /** Moves the clock to the time `targetOf` gives for its time now (not earlier than now: a
   * RangeError), running what falls due on the way; resolves to the number of due times stepped
   * through. */
  const moveTo = async (targetOf: (now: number) => number) => {
    // Held at each stop, so that a delay a step starts there ends at an exact time (within the
    // target when it should be); it runs on from the target afterwards.
    clock.hold();
    try {
      const target = targetOf(clock.now());
      // A time out of range or before now throws here, naming the problem, before anything runs.
      if (!Number.isFinite(target) || Math.abs(target) > 8.64e15 || target < clock.now()) clock.set(target);
      await runPasses(); // what is due already goes first
      let stops = 0;
      for (; stops < MAX_STOPS; stops++) {
        const next = await nextDueAfter(engine, clock.now());
        if (next === undefined || next > target) break;
        clock.set(next);
        await runPasses();
      }
      clock.set(target);
      await runPasses();
      return stops;
    } finally {
      clock.release();
    }
  };

  return {
    /** Moves the clock on by `ms` (see moveTo). */
    advance: (ms: number) =>
      serialized(() => {
        if (!(ms >= 0 && ms <= 8.64e15)) clock.advance(ms); // throws, naming the problem
        return moveTo((now) => now + ms);
      }),
    /** Moves the clock to `ms` (see moveTo). */
    set: (ms: number) => serialized(() => moveTo(() => ms)),
  };
}

export type ClockAdvance = ReturnType<typeof clockAdvance>;
/** The clock as the admin surface and `platform.clock` give it: its time, and the moves. */
export type ClockControl = ClockAdvance & { now: () => number };
