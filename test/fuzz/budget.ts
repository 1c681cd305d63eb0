/** How long a fuzz run goes: a small fixed budget with a fixed seed in `npm test` (the same
 * inputs every run), or `npm run fuzz -- --seconds N` (FUZZ_SECONDS, a random seed, printed so
 * a failure can be replayed with FUZZ_SEED). */
import type fc from 'fast-check';

const seconds = Number(process.env.FUZZ_SECONDS ?? 0);
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : seconds ? Date.now() % 2 ** 31 : 20261124;

/** fast-check parameters for `runs` requests in the suite, or for FUZZ_SECONDS when set. */
export function budget(runs: number): fc.Parameters<unknown> {
  if (seconds) console.log(`fuzz: seed ${seed}, ${seconds} s`);
  return seconds
    ? { seed, numRuns: Number.MAX_SAFE_INTEGER, interruptAfterTimeLimit: seconds * 1000, markInterruptAsFailure: false }
    : { seed, numRuns: runs };
}

/** The test's own timeout: the budget plus time to shrink a failure. */
export const timeoutMs = (suite: number) => (seconds ? seconds * 1000 + 120_000 : suite);

/** Prints how many requests a timed run made (the suite's fixed budget prints nothing). */
export const report = (what: string, requests: number) => {
  if (seconds) console.log(`fuzz: ${what}: ${requests} requests in ${seconds} s, no problem found`);
};
