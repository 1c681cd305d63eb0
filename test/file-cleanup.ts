/** Cleanup of what a shared test helper makes for one test file. Most test files share a worker
 * and its loaded modules with the files it ran before (vitest.config.ts, `isolate: false`), so a
 * hook at a helper's top level would be registered by the first of those files only: a helper
 * hands its cleanup to `afterThisFile`, and test/setup.ts, which runs for each file, runs what
 * was handed in after the file's tests. */
const pending: (() => void | Promise<void>)[] = [];

/** Runs `cleanup` after the tests of the file running now (even when called inside a test). */
export function afterThisFile(cleanup: () => void | Promise<void>) {
  pending.push(cleanup);
}

/** test/setup.ts: the cleanups handed in since the last file, oldest first. */
export async function runFileCleanups() {
  for (const cleanup of pending.splice(0)) await cleanup();
}
