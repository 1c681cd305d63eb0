/** The wire-event check that the platform's collector runs: it accepts every event the built
 * tracker (packages/tracker/dist/tracker.js) sends, with cookies and without, by fetch and by
 * pixel, and refuses a malformed field with a message naming it. */
import { afterEach, describe, expect, it } from 'vitest';
import { openPage, type Page } from '../../tracker/test/harness';
import {
  BATCH_FILE,
  checkWireEvent,
  eventProperties,
  PIXEL_FILE,
  UTK_COOKIE,
  VISITOR_COOKIE,
  type WireEvent,
} from '../src';

let page: Page;
afterEach(() => page?.close());

const problemOf = (raw: unknown) => {
  const checked = checkWireEvent(raw);
  return checked.ok ? undefined : checked.problem;
};

describe('checkWireEvent', () => {
  it('accepts what the tracker sends: page views, identify, custom events with value and properties', async () => {
    page = openPage({
      before: `window._svcq = [
        ['identify', { email: 'ada@example.com', firstname: 'Ada' }],
        ['setContentType', 'blog-post'],
        ['trackEvent', { id: 'buy-clicked', value: 49.5, plan: 'pro', seats: 3, trial: false }],
        ['trackEvent', { id: 'no-value' }],
      ];`,
    });
    await page.tick(5000);
    const events = page.events();
    expect(events.map((e) => e.k)).toEqual(['1', '3', '3']);
    expect(page.sent[0].url.endsWith('/' + BATCH_FILE)).toBe(true);
    // The cookie names the servers read are the ones the tracker wrote.
    expect(events[0].vi).toBe(page.cookie(UTK_COOKIE)?.value);
    expect(page.cookie(VISITOR_COOKIE)).toBeDefined();
    for (const e of events) expect(problemOf(e), JSON.stringify(e)).toBeUndefined();
    const checked = checkWireEvent(events[1]);
    expect(checked.ok && checked.event).toMatchObject({
      n: 'buy-clicked',
      m: '49.5',
      _plan: 'pro',
      _seats: '3',
      _trial: 'false',
    });
    // The properties the platform shows with the event: the trackEvent keys, and nothing else.
    expect(eventProperties(events[1])).toEqual({ plan: 'pro', seats: '3', trial: 'false' });
    expect(eventProperties(events[2])).toEqual({});
    expect(eventProperties(events[0])).toEqual({});
  });

  it('accepts the cookieless events (no visitor token) and the pixel form', async () => {
    page = openPage({ attrs: { consent: 'cookieless' }, fetch: 'missing' });
    await page.tick(5000);
    const [sent] = page.sent;
    expect(sent.via).toBe('pixel');
    expect(sent.url.endsWith('/' + PIXEL_FILE)).toBe(true);
    const [query] = sent.events;
    expect(query).toMatchObject({ ce: 'false' });
    expect(query.vi).toBeUndefined();
    expect(problemOf(query)).toBeUndefined();
  });

  it('refuses a malformed event, naming the field', () => {
    const good: WireEvent = {
      eid: 'a'.repeat(32),
      k: '1',
      a: '62515',
      v: '1',
      cts: '1795317820408',
      vi: 'b'.repeat(32),
    };
    expect(problemOf(good)).toBeUndefined();
    const cases: [unknown, string][] = [
      [null, 'must be an object'],
      [[good], 'must be an object'],
      [{ ...good, t: 7 }, '"t" must be a string'],
      [{ ...good, pu: 'x'.repeat(8193) }, '"pu" is longer than 8192 characters'],
      [{ ...good, eid: 'A'.repeat(32) }, '"eid" must be 32 lower-case hex characters'],
      [{ ...good, k: '2' }, '"k" must be "1" (page view) or "3" (custom event)'],
      [{ ...good, a: 'acme' }, '"a" must be a portal id'],
      [
        Object.fromEntries(Object.entries(good).filter(([k]) => k != 'cts')),
        '"cts" must be a timestamp in milliseconds',
      ],
      [{ ...good, k: '3' }, '"n" (the event id or name) is required for a custom event'],
      [{ ...good, k: '3', n: 'x', m: '1e3' }, '"m" must be a number'],
      [{ ...good, vi: '../../etc' }, '"vi" must be a visitor token (32 hex)'],
    ];
    for (const [raw, problem] of cases) expect(problemOf(raw), JSON.stringify(raw)?.slice(0, 80)).toBe(problem);
  });
});
