import { afterEach, describe, expect, it } from 'vitest';
import { openPage, type Page, type WireEvent } from './harness';

let page: Page;
afterEach(() => page?.close());

const events = (page: Page, n: number) => {
  for (let i = 0; i < n; i++) page.push(['trackEvent', { id: 'e' + i }]);
};
const stored = (page: Page): WireEvent[] => JSON.parse(page.storage().svc_retry || '[]');

describe('batching', () => {
  it('sends up to 10 events in one keepalive POST, or what it has after 5 s', async () => {
    page = openPage();
    events(page, 8); // + the page view = 9
    await page.tick(4999);
    expect(page.sent).toEqual([]);
    await page.tick(1);
    expect(page.sent).toHaveLength(1);
    expect(page.sent[0]).toMatchObject({ via: 'fetch', url: 'https://collect.example.net/e', keepalive: true });
    expect(page.sent[0].events).toHaveLength(9);

    events(page, 10);
    await page.tick(0);
    expect(page.sent).toHaveLength(2);
    expect(page.sent[1].events).toHaveLength(10);
    const ids = page.events().map((e) => e.eid);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('hands the buffer to sendBeacon when the page is hidden or left, never waiting for unload', async () => {
    page = openPage();
    events(page, 2);
    page.hide();
    expect(page.sent).toHaveLength(1);
    expect(page.sent[0]).toMatchObject({ via: 'beacon', url: 'https://collect.example.net/e' });
    expect(page.sent[0].events).toHaveLength(3);
    events(page, 1);
    page.pagehide();
    expect(page.sent.map((s) => s.via)).toEqual(['beacon', 'beacon']);
    await page.tick(60_000);
    expect(page.events()).toHaveLength(4);
  });

  it('uses keepalive fetch on hide where sendBeacon is missing', async () => {
    page = openPage({ beacon: 'missing' });
    page.pagehide();
    await page.tick(0);
    expect(page.sent).toMatchObject([{ via: 'fetch', keepalive: true }]);
  });

  it('keeps what sendBeacon refuses for the next page', async () => {
    page = openPage({ beacon: false });
    page.pagehide();
    expect(stored(page)).toHaveLength(1);
    const next = page.next({ beacon: true });
    await next.tick(0);
    expect(next.sent[0].events.map((e) => e.k)).toEqual(['1']); // the stored view, sent at once
    await next.tick(5000);
    expect(next.events().map((e) => e.k)).toEqual(['1', '1']);
    expect(stored(next)).toEqual([]);
    next.close();
  });

  it('falls back to an image GET pixel with the same parameters where fetch is missing', async () => {
    page = openPage({ fetch: 'missing' });
    page.push(['trackEvent', { id: 'signup', value: 5 }]);
    await page.tick(5000);
    expect(page.sent.map((s) => [s.via, s.url])).toEqual([
      ['pixel', 'https://collect.example.net/p.gif'],
      ['pixel', 'https://collect.example.net/p.gif'],
    ]);
    expect(page.sent[1].events[0]).toMatchObject({ k: '3', n: 'signup', m: '5', a: '62515' });
  });
});

describe('retry', () => {
  it('stores failed batches in localStorage and retries with exponential backoff until delivered', async () => {
    let answer = 503;
    const attempts: number[] = [];
    page = openPage({
      collector: () => {
        attempts.push(page.clock.now);
        return answer;
      },
    });
    await page.tick(5000);
    expect(stored(page).map((e) => e.k)).toEqual(['1']);
    await page.tick(10_000);
    const gaps = attempts.slice(1).map((t, i) => t - attempts[i]);
    // 0.5 s, 1 s, 2 s, 4 s ... each within 10 % jitter
    gaps.forEach((gap, i) => {
      expect(gap).toBeGreaterThanOrEqual(500 * 2 ** i * 0.9);
      expect(gap).toBeLessThanOrEqual(500 * 2 ** i * 1.1 + 1);
    });
    expect(gaps.length).toBeGreaterThanOrEqual(3);
    answer = 204;
    await page.tick(10_000);
    expect(page.delivered().map((e) => e.k)).toEqual(['1']);
    expect(stored(page)).toEqual([]);
  });

  it('caps the backoff at 60 s', async () => {
    const attempts: number[] = [];
    page = openPage({ collector: () => (attempts.push(page.clock.now), 500) });
    await page.tick(30 * 60_000);
    const gaps = attempts.slice(1).map((t, i) => t - attempts[i]);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(66_000);
    expect(Math.max(...gaps)).toBeGreaterThanOrEqual(54_000);
    expect(attempts.length).toBeLessThan(45);
  });

  it('honours Retry-After on 429 and retries 408', async () => {
    const attempts: number[] = [];
    let answers: (number | { status: number; headers: Record<string, string> })[] = [
      { status: 429, headers: { 'Retry-After': '30' } },
      408,
    ];
    page = openPage({
      collector: () => (attempts.push(page.clock.now), answers.shift() ?? 204),
    });
    await page.tick(5000);
    await page.tick(29_000);
    expect(attempts).toHaveLength(1);
    await page.tick(1_100);
    expect(attempts).toHaveLength(2);
    await page.tick(5000);
    expect(attempts).toHaveLength(3);
    expect(stored(page)).toEqual([]);
    answers = [];
  });

  it('drops batches the collector rejects with another 4xx', async () => {
    let calls = 0;
    page = openPage({ collector: () => (calls++, 400) });
    await page.tick(5000);
    await page.tick(120_000);
    expect(calls).toBe(1);
    expect(stored(page)).toEqual([]);
  });

  it('sends nothing while offline and delivers once back online', async () => {
    page = openPage({ online: false });
    events(page, 2);
    await page.tick(60_000);
    expect(page.sent).toEqual([]);
    expect(stored(page)).toHaveLength(3);
    page.setOnline(true);
    await page.tick(0);
    expect(page.events()).toHaveLength(3);
    expect(stored(page)).toEqual([]);
  });

  it('keeps events fired offline for the next page when the tab closes before they are sent (no beacon, which the browser would accept and lose)', async () => {
    page = openPage({ online: false });
    events(page, 2);
    page.pagehide();
    expect(page.sent).toEqual([]);
    expect(stored(page)).toHaveLength(3);
    const next = page.next({ online: true });
    await next.tick(5000);
    expect(next.events().filter((e) => e.k == '3')).toHaveLength(2);
    expect(stored(next)).toEqual([]);
    next.close();
  });

  it('gives up after a few attempts on a blocked collector instead of looping', async () => {
    let calls = 0;
    page = openPage({ collector: () => (calls++, 'network-error') });
    events(page, 25);
    await page.tick(60 * 60_000);
    expect(calls).toBeLessThanOrEqual(5);
    expect(stored(page)).toHaveLength(26);
    // The next page tries again, a few times at most.
    const next = page.next({ collector: () => (calls++, 'network-error') });
    await next.tick(60 * 60_000);
    expect(calls).toBeLessThanOrEqual(9);
    next.close();
  });

  it('bounds the stored queue to the newest 100 events and 7 days', async () => {
    const old = Date.now() - 8 * 864e5;
    const ancient = Array.from({ length: 5 }, (_, i) => ({
      eid: 'a'.repeat(31) + i,
      k: '3',
      a: '62515',
      cts: String(old),
    }));
    page = openPage({ online: false, storage: { svc_retry: JSON.stringify(ancient) } });
    events(page, 120);
    await page.tick(10_000);
    const q = stored(page);
    expect(q).toHaveLength(100);
    expect(q.some((e) => e.cts == String(old))).toBe(false);
    expect(q.at(-1)!.n).toBe('e119');
  });

  it('sends every event exactly once through failures (ids let the collector drop duplicates)', async () => {
    let fail = true;
    page = openPage({ collector: () => (fail ? 503 : 204) });
    events(page, 34);
    await page.tick(5000);
    page.pagehide();
    fail = false;
    await page.tick(120_000);
    const ids = page.delivered().map((e) => e.eid);
    expect(ids).toHaveLength(35);
    expect(new Set(ids).size).toBe(35);
  });
});
