/** The rolling window on rate-limiter-flexible's counters, on a moved clock: no double burst
 * around a window boundary, refused requests do not count, Retry-After says when one passes. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openPostgres } from '../src/db/open-postgres';
import { memoryCounters, postgresCounters, rollingWindow } from '../src/http/rolling-window';
import { havePostgres, PG_URL, pgSchema } from './postgres';

const schema = await pgSchema('rolling_window');

const clock = (start: number) => {
  const c = { t: start, now: () => c.t };
  return c;
};
const passed = async (hit: (key: string) => Promise<{ allowed: boolean }>, key: string, n: number) => {
  let ok = 0;
  for (let i = 0; i < n; i++) if ((await hit(key)).allowed) ok++;
  return ok;
};

/** What the rolling window should answer: a request passes when the requests let through in its
 * slice and the nine before it, with itself, are at most `max` (slices of a tenth of the window). */
function model(max: number, windowMs: number) {
  const passed = new Map<string, Map<number, number>>();
  return (key: string, at: number) => {
    const slice = Math.floor(at / (windowMs / 10));
    const slices = passed.get(key) ?? passed.set(key, new Map()).get(key)!;
    let total = 1;
    for (let s = slice - 9; s <= slice; s++) total += slices.get(s) ?? 0;
    if (total > max) return false;
    slices.set(slice, (slices.get(slice) ?? 0) + 1);
    return true;
  };
}

/** Requests of `keys` at the clock's steps (ms, each ≥ 0), one after another: the window's verdicts
 * and the model's. */
async function against(
  hit: (key: string) => Promise<{ allowed: boolean }>,
  c: { t: number },
  expected: (key: string, at: number) => boolean,
  steps: [number, string][],
) {
  const got: boolean[] = [];
  const want: boolean[] = [];
  for (const [step, key] of steps) {
    c.t += step;
    got.push((await hit(key)).allowed);
    want.push(expected(key, c.t));
  }
  return { got, want };
}

describe('rolling window', () => {
  it('agrees with a count of every slice, however the clock moves on (the earlier slices kept as the window rolls)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.tuple(
            fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 2_500 }), fc.integer({ min: 0, max: 25_000 })),
            fc.constantFrom('a', 'b'),
          ),
          { maxLength: 120 },
        ),
        async (steps) => {
          const c = clock(5_000_000);
          const { got, want } = await against(
            rollingWindow({ max: 5, windowMs: 10_000 }, c.now),
            c,
            model(5, 10_000),
            steps,
          );
          expect(got).toEqual(want);
        },
      ),
      { numRuns: 200, seed: 38 },
    );
  });

  it('lets max through, then refuses, per key', async () => {
    const c = clock(1_000_000);
    const hit = rollingWindow({ max: 100, windowMs: 10_000 }, c.now);
    expect(await passed(hit, 'a', 150)).toBe(100);
    expect(await passed(hit, 'b', 5)).toBe(5);
  });

  it('does not let a second burst through just after a window boundary (a fixed window let 197 of 200 through in 1.5 s)', async () => {
    const c = clock(10_000_000 + 9_000); // 1 s before a boundary of the library's 10 s windows
    const hit = rollingWindow({ max: 100, windowMs: 10_000 }, c.now);
    let ok = await passed(hit, 'k', 100);
    c.t += 1_500; // 0.5 s past the boundary
    ok += await passed(hit, 'k', 100);
    expect(ok).toBe(100);
    // Ten seconds after the first burst, its requests have left the window: the budget is whole.
    c.t += 8_600;
    expect(await passed(hit, 'k', 150)).toBe(100);
  });

  it('counts no refused request, and its Retry-After is when one more passes', async () => {
    const c = clock(50_000_000);
    const hit = rollingWindow({ max: 10, windowMs: 10_000 }, c.now);
    await passed(hit, 'k', 10);
    for (let i = 0; i < 50; i++) expect((await hit('k')).allowed).toBe(false);
    const refused = await hit('k');
    expect(refused.retryAfterMs).toBeGreaterThan(0);
    c.t += refused.retryAfterMs;
    expect((await hit('k')).allowed).toBe(true);
  });

  it('keeps the counts of one key that arrive together in one consume, each request counted as one after another would be', async () => {
    const c = clock(90_000_000);
    const counters = memoryCounters(10_000);
    const consumed: number[] = [];
    const consume = counters.consume.bind(counters);
    counters.consume = (key, points = 1) => (consumed.push(Number(points)), consume(key, points));
    const hit = rollingWindow({ max: 6, windowMs: 10_000 }, c.now, counters);
    const verdicts = await Promise.all([...Array(10).keys()].map(() => hit('k')));
    // The first alone, the nine that came while it was kept in one more; another key apart.
    expect(consumed).toEqual([1, 9]);
    expect(verdicts.map((v) => (v.allowed ? v.remaining : 'refused'))).toEqual([
      5,
      4,
      3,
      2,
      1,
      0,
      'refused',
      'refused',
      'refused',
      'refused',
    ]);
    // The refused ones gave their counts back: the slice holds six (its counter's key is the slice's number).
    expect((await counters.get(`k:${Math.floor(c.t / 1_000)}`))?.consumedPoints).toBe(6);
    c.t += 1_000;
    expect((await hit('k')).allowed).toBe(false);
    expect((await Promise.all([hit('other'), hit('other')])).map((v) => v.remaining)).toEqual([5, 4]);
  });

  it('reports what remains', async () => {
    const c = clock(70_000_000);
    const hit = rollingWindow({ max: 5, windowMs: 10_000 }, c.now);
    expect((await hit('k')).remaining).toBe(4);
    expect((await hit('k')).remaining).toBe(3);
  });
});

describe.skipIf(!havePostgres)('rolling window on PostgreSQL counters', () => {
  it('holds the limit across processes that share the database', async () => {
    // Two engines: two pools, as two platform processes would have.
    const [a, b] = await Promise.all([openPostgres(PG_URL, { schema }), openPostgres(PG_URL, { schema })]);
    try {
      const clock = { now: 1_000_000 };
      const options = { max: 10, windowMs: 10_000 };
      const hits = [a, b].map((e) =>
        rollingWindow(options, () => clock.now, postgresCounters(e.pool, options.windowMs, 'api')),
      );
      const verdicts = [];
      for (let i = 0; i < 20; i++) verdicts.push(await hits[i % 2]('portal-1'));
      expect(verdicts.filter((v) => v.allowed)).toHaveLength(10);
      expect(verdicts.slice(10).every((v) => !v.allowed)).toBe(true);
      expect((await hits[1]('portal-2')).allowed).toBe(true); // another key has its own budget
      // Requests of one key at once, in both (each process keeps its own in one count): still ten.
      const together = await Promise.all(Array.from({ length: 30 }, (_, i) => hits[i % 2]('portal-3')));
      expect(together.filter((v) => v.allowed)).toHaveLength(10);
      clock.now += options.windowMs + 1;
      expect((await hits[0]('portal-1')).allowed).toBe(true);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('reads many keys\u2019 earlier slices in one statement, counts each exactly, and agrees with a count of every slice as the clock moves on', async () => {
    const e = await openPostgres(PG_URL, { schema });
    try {
      const c = clock(2_000_000);
      const options = { max: 5, windowMs: 10_000 };
      const hit = rollingWindow(options, c.now, postgresCounters(e.pool, options.windowMs, 'many'));
      let statements = 0;
      const query = e.pool.query.bind(e.pool) as (...args: unknown[]) => unknown;
      (e.pool as { query: unknown }).query = (...args: unknown[]) => (statements++, query(...args));
      // Eight requests from each of six addresses at once: five of each pass. The earlier slices of
      // the six are read in one statement (the library's `get` took 54); each address's count is
      // two statements (its first request, then the seven that came while it was kept); each
      // refused request's count is given back.
      const verdicts = await Promise.all(
        Array.from({ length: 48 }, (_, i) => hit(`address-${i % 6}`).then((v) => [i % 6, v.allowed] as const)),
      );
      for (let k = 0; k < 6; k++) expect(verdicts.filter(([key, allowed]) => key == k && allowed)).toHaveLength(5);
      expect(statements).toBe(1 + 6 * 2 + 6 * 3);
      (e.pool as { query: unknown }).query = query;
      // One address over 30 s, a request every 0.7 to 2.3 s.
      const steps = Array.from({ length: 24 }, (_, i): [number, string] => [700 + ((i * 1_300) % 1_700), 'walker']);
      const { got, want } = await against(hit, c, model(options.max, options.windowMs), steps);
      expect(got).toEqual(want);
      expect(got.filter((x) => !x).length).toBeGreaterThan(0);
    } finally {
      await e.close();
    }
  });
});
