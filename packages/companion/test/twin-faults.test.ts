/** The companion against the platform's fault rules (its admin API): server-side events accepted
 * while the platform answers 503 stay in the outbox, and are delivered once the rule is cleared. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchJson } from '../../platform/test/harness';
import { mount, movedClock, recordedEvents, startTestPlatform, type Mounted, type TestPlatform } from './harness';

const KEY = 'admin-key-of-the-companion-test';
let t: TestPlatform;
let m: Mounted;
beforeAll(async () => {
  t = await startTestPlatform({ adminKey: KEY });
  m = await mount({
    baseUrl: t.baseUrl,
    auth: { accessToken: t.portals[0].privateAppToken },
    // The client's backoff waits run on a moved clock: the test waits for none of them.
    client: { rateLimit: { max: Infinity }, clock: movedClock().clock },
    events: { secret: 'shared-secret-of-the-backends-0123', flushIntervalMs: 3_600_000 },
  });
});
afterAll(async () => {
  await m?.close();
  await t?.close();
});

const admin = (method: string, path: string, body?: unknown) =>
  fetchJson(`${t.baseUrl}/_admin${path}`, { method, body, headers: { authorization: `Bearer ${KEY}` } });

describe('the event outbox through a 503 rule', () => {
  it('keeps the events while the platform fails, and delivers them after the rule is cleared', async () => {
    expect((await admin('POST', '/faults', { route: 'events.send', status: 503 })).status).toBe(201);
    const { id } = await m.companion.events.track({ eventId: 'paid-invoice', email: 'ada@twin.test', value: 5 });
    await m.companion.events.flush();
    expect(m.companion.events.stats().pending).toBe(1);
    expect(recordedEvents(t, [id])).toBe(0);
    const refused = (await admin('GET', '/journal/count?route=events.send&status=503')).json.count;
    expect(refused).toBeGreaterThan(0);

    expect((await admin('DELETE', '/faults')).status).toBe(204);
    await m.companion.events.flush();
    expect(m.companion.events.stats()).toMatchObject({ pending: 0 });
    expect(recordedEvents(t, [id])).toBe(1);
    // Every call of the route but the refused ones came after the rule went.
    expect((await admin('GET', '/journal/count?route=events.send')).json.count).toBe(refused + 1);
  });
});
