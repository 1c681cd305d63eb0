// @vitest-environment jsdom
// @vitest-environment-options { "url": "https://app.example.com/dashboard" }
/** The ESM build (`dist/tracker.mjs`) through the package's exports map and types, as an app
 * bundler would use it. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readUtk, start, type Tracker, type TrackerConfig } from '@svc/tracker';

afterEach(() => vi.useRealTimers());

describe('ESM build', () => {
  it('starts from a config object and exposes typed commands', async () => {
    vi.useFakeTimers();
    const bodies: unknown[] = [];
    globalThis.fetch = vi.fn(async (_url: RequestInfo | URL, init?: RequestInit) => {
      bodies.push(JSON.parse(String(init!.body as string)));
      return new Response(null, { status: 204 });
    });
    const config: TrackerConfig = { portalId: '62515', collector: 'https://collect.example.net', spa: false };
    const tracker: Tracker = start(config);
    tracker.identify({ email: 'ada@example.com' });
    tracker.trackEvent({ id: 'opened-dashboard', value: 1 });
    tracker.push(['setContentType', 'app'], ['trackPageView']);
    expect(start(config)).toBe(tracker); // once per window
    expect(window._svcq!.t).toBe(tracker);
    await vi.advanceTimersByTimeAsync(5000);
    expect(fetch).toHaveBeenCalledWith('https://collect.example.net/e', expect.objectContaining({ keepalive: true }));
    const [batch] = bodies as Record<string, string>[][];
    expect(batch.map((e) => e.k)).toEqual(['1', '3', '1']);
    expect(batch[1]).toMatchObject({ n: 'opened-dashboard', m: '1', i: 'email=ada%40example.com' });
    expect(batch[2]).toMatchObject({ ct: 'app', pu: 'https://app.example.com/dashboard' });
  });

  it('reads the svcutk cookie for the form embed: only a well-formed one, only under its own name', () => {
    const utk = 'ab'.repeat(16);
    const clear = () =>
      document.cookie.split('; ').forEach((c) => (document.cookie = `${c.split('=')[0]}=; max-age=0`));
    clear();
    expect(readUtk()).toBeUndefined();
    document.cookie = `xsvcutk=${'cd'.repeat(16)}`;
    document.cookie = 'other=1';
    expect(readUtk()).toBeUndefined();
    document.cookie = `svcutk=${utk}`;
    expect(readUtk()).toBe(utk);
    document.cookie = 'svcutk=not-a-token';
    expect(readUtk()).toBeUndefined();
    clear();
  });
});
