/** The log of the background work's errors (scheduler, workflow engine, webhook sender). Each runs
 * on a timer, so while the database is unreachable each would log the same error every second:
 * of a run of "unavailable" errors the first is logged, then at most one a minute, with how many
 * were left out in between. Any other error is a fault worth seeing each time. */
import type { Logger } from 'pino';
import { PlatformError } from './domain/errors';

export const QUIET_MS = 60_000;

export function backgroundErrors(log: Pick<Logger, 'error'>, now: () => number = Date.now) {
  /** The error handler of one piece of background work, named `what` in the log. */
  return (what: string) => {
    let loggedAt: number | undefined;
    let leftOut = 0;
    return (err: unknown) => {
      if (!(err instanceof PlatformError && err.kind == 'unavailable')) return log.error({ err }, what);
      if (loggedAt !== undefined && now() - loggedAt < QUIET_MS) return void leftOut++;
      log.error(
        { err, ...(leftOut && { leftOut }) },
        `${what}: ${err.message}${leftOut ? ` (${leftOut} more since the last report)` : ''}`,
      );
      loggedAt = now();
      leftOut = 0;
    };
  };
}
