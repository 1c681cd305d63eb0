/** The platform's clock: the wall clock (or a test's) plus an offset that the admin surface's
 * clock controls move (`POST /_admin/clock`). It keeps running after a set or an advance: the
 * timers, the rate limits' counters (which rate-limiter-flexible expires on the wall clock) and
 * the order of writes all expect time to go on; a test that needs an exact instant sets it and
 * reads it back. It never goes backwards: what was written at a later time (a token's expiry, a
 * step's due time, an id made from the time) would be in the future. */
export interface Clock {
  /** Milliseconds since the epoch, as the whole platform sees them. */
  now: () => number;
  /** Moves the clock to `ms`; a RangeError when that is earlier than now. */
  set: (ms: number) => void;
  /** Moves the clock on by `ms` (zero or more; a RangeError when negative). */
  advance: (ms: number) => void;
  /** Stops the clock where it is until `release` (only set and advance move it meanwhile): an
   * advance's stops are exact times, and what is scheduled at one ("an hour from now") falls
   * due at exactly that time, not a few milliseconds after. */
  hold: () => void;
  /** Lets the clock run on from where it was held. */
  release: () => void;
}

export function settableClock(base: () => number = Date.now): Clock {
  let offset = 0;
  let held: number | undefined;
  const now = () => held ?? base() + offset;
  const check = (ms: number, what: string) => {
    // Date's own range: beyond it no instant can be shown or stored as one.
    if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15)
      throw new RangeError(`${what} must be a number of milliseconds within JavaScript dates' range`);
  };
  return {
    now,
    set(ms) {
      check(ms, 'the time');
      const current = now();
      if (ms < current)
        throw new RangeError(
          `the clock never goes backwards: ${new Date(ms).toISOString()} is before its time, ${new Date(current).toISOString()}`,
        );
      if (held !== undefined) held = ms;
      else offset += ms - current;
    },
    advance(ms) {
      check(ms, 'advanceMs');
      if (ms < 0) throw new RangeError('advanceMs must be zero or more: the clock never goes backwards');
      if (held !== undefined) held += ms;
      else offset += ms;
    },
    hold() {
      held = now();
    },
    release() {
      if (held === undefined) return;
      offset = held - base();
      held = undefined;
    },
  };
}
