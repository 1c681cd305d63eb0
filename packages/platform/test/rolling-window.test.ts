/** The rolling window on rate-limiter-flexible's counters, on a moved clock: no double burst
 * around a window boundary, refused requests do not count, Retry-After says when one passes. */
import { describe, expect, it } from 'vitest';
import { rollingWindow } from '../src/http/rolling-window';

const clock = (start: number) => {
  const c = { t: start, now: () => c.t };
  return c;
};
const passed = async (hit: (key: string) => Promise<{ allowed: boolean }>, key: string, n: number) => {
  let ok = 0;
  for (let i = 0; i < n; i++) if ((await hit(key)).allowed) ok++;
  return ok;
};

describe('rolling window', () => {
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

  it('reports what remains', async () => {
    const c = clock(70_000_000);
    const hit = rollingWindow({ max: 5, windowMs: 10_000 }, c.now);
    expect((await hit('k')).remaining).toBe(4);
    expect((await hit('k')).remaining).toBe(3);
  });
});
