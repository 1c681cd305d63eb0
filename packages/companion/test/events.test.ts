/** Server-side events, in process: companion.events.track and POST /events (shared secret),
 * checks naming the field, batching at flushAt, retries through a failing platform, the queue cap,
 * delivery to the real platform's HTTP events API exactly once per event, and a given source kept;
 * through both doors. */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { HttpError } from '../src';
import {
  call,
  countingProxy,
  forEachDoor,
  mount,
  movedClock,
  recordedEvents,
  startTestPlatform,
  tempDir,
  type Mounted,
  type TestPlatform,
} from './harness';

forEachDoor((door) => {
  let t: TestPlatform;
  let proxy: Awaited<ReturnType<typeof countingProxy>>;
  let m: Mounted;
  const SECRET = 'shared-secret-of-the-backends-0123';
  const auth = { authorization: `Bearer ${SECRET}` };
  const posts = () => proxy.forwarded.filter((r) => r == 'POST /v1/event').length;

  beforeAll(async () => {
    t = await startTestPlatform();
    proxy = await countingProxy(t.baseUrl);
    m = await mount(
      {
        baseUrl: proxy.url,
        auth: { accessToken: t.portals[0].privateAppToken },
        client: { rateLimit: { max: Infinity }, concurrency: 50, clock: movedClock().clock },
        events: { secret: SECRET, flushIntervalMs: 3_600_000, maxQueueSize: 50 },
      },
      { door },
    );
  });
  afterAll(async () => {
    await m.close();
    await proxy.close();
    await t.close();
  });

  describe('companion.events.track', () => {
    it('accepts an event, keeps it in the outbox, and delivers it on flush', async () => {
      const { id } = await m.companion.events.track({
        eventId: 'paid-invoice',
        email: 'ada@example.com',
        value: 49,
        properties: { firstname: 'Ada' },
      });
      expect(m.companion.events.stats().pending).toBe(1);
      await m.companion.events.flush();
      expect(recordedEvents(t, [id])).toBe(1);
      expect(m.companion.events.stats()).toMatchObject({ pending: 0, sent: 1 });
      const contact = await t.call('GET', '/contacts/v1/contact/email/ada@example.com/profile');
      expect(contact.json.properties.svc_analytics_revenue.value).toBe('49');
    });

    it("keeps the source it is given: the platform's contact has it as its original and latest source", async () => {
      const { id } = await m.companion.events.track({
        eventId: 'signed-contract',
        email: 'sourced@example.com',
        properties: { svc_analytics_source: 'OTHER_CAMPAIGNS', svc_analytics_source_data_1: 'trade-fair-2026' },
      });
      await m.companion.events.flush();
      expect(recordedEvents(t, [id])).toBe(1);
      const { properties: p } = (await t.call('GET', '/contacts/v1/contact/email/sourced@example.com/profile')).json;
      expect([p.svc_analytics_source.value, p.svc_analytics_source_data_1.value]).toEqual([
        'OTHER_CAMPAIGNS',
        'trade-fair-2026',
      ]);
      expect([p.svc_analytics_latest_source.value, p.svc_analytics_latest_source_data_1.value]).toEqual([
        'OTHER_CAMPAIGNS',
        'trade-fair-2026',
      ]);
    });

    it('sends by itself once flushAt (20) events wait', async () => {
      const before = posts();
      const ids = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          m.companion.events.track({ eventId: 'batch', email: `b${i}@example.com` }).then((r) => r.id),
        ),
      );
      await vi.waitFor(() => expect(m.companion.events.stats().pending).toBe(0), { timeout: 10_000 });
      expect(recordedEvents(t, ids)).toBe(20);
      expect(posts() - before).toBe(20);
    });

    it('rejects a malformed event with a message naming the field', async () => {
      const bad: [unknown, RegExp][] = [
        [{ eventId: 'x' }, /^email: give an email or a utk/],
        [{ eventId: '', email: 'a@b.co' }, /^eventId:/],
        [{ eventId: 'x', email: 'not-an-email' }, /^email: must be an email/],
        [{ eventId: 'x', utk: 'ABC' }, /^utk: must be 32 lower-case hex/],
        [{ eventId: 'x', email: 'a@b.co', value: 'lots' }, /^value: must be a number/],
        [{ eventId: 'x', email: 'a@b.co', properties: { 'a b': 1 } }, /^properties\.a b: is not a property name/],
        [{ eventId: 'x', email: 'a@b.co', properties: { a: { nested: 1 } } }, /^properties\.a: must be a string/],
        [{ eventId: 'x', email: 'a@b.co', password: 'x' }, /^password: is not a field/],
      ];
      for (const [event, message] of bad) {
        const e = await m.companion.events.track(event as never).catch((err: unknown) => err);
        expect(e).toBeInstanceOf(HttpError);
        expect((e as HttpError).message).toMatch(message);
      }
      expect(m.companion.events.stats().pending).toBe(0);
    });
  });

  describe('POST /events', () => {
    it('needs the shared secret', async () => {
      const event = { eventId: 'x', email: 'a@b.co' };
      expect((await call(`${m.url}/events`, { method: 'POST', body: event })).status).toBe(401);
      const wrong = await call(`${m.url}/events`, {
        method: 'POST',
        body: event,
        headers: { authorization: 'Bearer nope' },
      });
      expect(wrong.status).toBe(401);
      expect(wrong.json.message).toBe('send the shared secret as Authorization: Bearer <secret>');
    });

    it('is off without a secret', async () => {
      const off = await mount({ baseUrl: t.baseUrl, auth: { accessToken: 'x' } }, { door });
      try {
        const r = await call(`${off.url}/events`, {
          method: 'POST',
          body: { eventId: 'x', email: 'a@b.co' },
          headers: auth,
        });
        expect(r.status).toBe(404);
      } finally {
        await off.close();
      }
    });

    it('accepts one event or a list, all or nothing, and answers 202 with ids', async () => {
      const one = await call(`${m.url}/events`, {
        method: 'POST',
        headers: auth,
        body: { eventId: 'signup', email: 'c@example.com' },
      });
      expect(one.status).toBe(202);
      expect(one.json).toEqual({ accepted: 1, ids: [expect.any(String)] });
      const bad = await call(`${m.url}/events`, {
        method: 'POST',
        headers: auth,
        body: { events: [{ eventId: 'a', email: 'd@example.com' }, { eventId: 'b' }] },
      });
      expect(bad.status).toBe(400);
      expect(bad.json.message).toMatch(/^events\[1\]\.email:/);
      const many = await call(`${m.url}/events`, {
        method: 'POST',
        headers: auth,
        body: {
          events: [
            { eventId: 'a', email: 'd@example.com', id: 'order-1' },
            { eventId: 'b', utk: 'f'.repeat(32) },
          ],
        },
      });
      expect(many.json).toEqual({ accepted: 2, ids: ['order-1', expect.any(String)] });
      await m.companion.events.flush();
      expect(recordedEvents(t, [...one.json.ids, ...many.json.ids])).toBe(3);
      const empty = await call(`${m.url}/events`, { method: 'POST', headers: auth, body: { events: [] } });
      expect(empty.status).toBe(400);
      const form = await call(`${m.url}/events`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'text/plain' },
        body: '{}',
      });
      expect(form.status).toBe(415);
    });
  });

  describe('a failing platform', () => {
    it('keeps events through failures and delivers each once when it is back', async () => {
      proxy.failing = true;
      const ids = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          m.companion.events.track({ eventId: 'retry', email: `r${i}@example.com` }).then((r) => r.id),
        ),
      );
      await m.companion.events.flush();
      expect(m.companion.events.stats().pending).toBe(5);
      proxy.failing = false;
      const before = posts();
      await m.companion.events.flush();
      expect(recordedEvents(t, ids)).toBe(5);
      expect(posts() - before).toBe(5);
      expect(m.companion.events.stats().pending).toBe(0);
    });

    it('refuses new events when the queue is full, never dropping accepted ones', async () => {
      proxy.failing = true;
      await Promise.all(
        Array.from({ length: 50 }, (_, i) => m.companion.events.track({ eventId: 'full', email: `f${i}@example.com` })),
      );
      const refused = await call(`${m.url}/events`, {
        method: 'POST',
        headers: auth,
        body: { eventId: 'one-more', email: 'x@example.com' },
      });
      expect(refused.status).toBe(503);
      expect(refused.json.message).toMatch(/queue is full/);
      expect(refused.headers.get('retry-after')).toBe('5');
      proxy.failing = false;
      await m.companion.events.flush();
      await m.companion.events.flush();
      await m.companion.events.flush();
      expect(m.companion.events.stats().pending).toBe(0);
    });
  });

  describe('the outbox file', () => {
    it('answers 503 and says why when another live process has the outbox open', async () => {
      const file = join(tempDir(), 'outbox.jsonl');
      const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)']);
      await new Promise((resolve) => other.once('spawn', resolve));
      writeFileSync(`${file}.lock`, String(other.pid));
      const o = await mount(
        {
          baseUrl: t.baseUrl,
          auth: { accessToken: t.portals[0].privateAppToken },
          events: { outboxFile: file, secret: SECRET },
        },
        { door },
      );
      try {
        const r = await call(`${o.url}/events`, {
          method: 'POST',
          headers: auth,
          body: { eventId: 'x', email: 'nobody@example.com' },
        });
        expect(r.status).toBe(503);
        expect(o.logs.text()).toContain(
          `the event outbox is in use by process ${other.pid}: give each companion process its own events.outboxFile`,
        );
      } finally {
        other.kill('SIGKILL');
        await o.close();
      }
    });

    it('answers 503 when the outbox cannot be opened, and logs only the error code', async () => {
      const file = join(tempDir(), 'a-file');
      writeFileSync(file, '');
      const o = await mount(
        {
          baseUrl: t.baseUrl,
          auth: { accessToken: t.portals[0].privateAppToken },
          events: { outboxFile: join(file, 'outbox.jsonl'), secret: SECRET },
        },
        { door },
      );
      try {
        const r = await call(`${o.url}/events`, {
          method: 'POST',
          headers: auth,
          body: { eventId: 'x', email: 'nobody@example.com' },
        });
        expect(r.status).toBe(503);
        expect(r.json.message).toBe('the event outbox could not be opened; see the companion log');
        expect(o.logs.text()).toContain('could not open the event outbox');
        expect(o.logs.text()).not.toContain('nobody@example.com');
      } finally {
        await o.close();
      }
    });

    it('starts over once everything is sent', async () => {
      const dir = tempDir();
      const file = join(dir, 'outbox.jsonl');
      const o = await mount(
        {
          baseUrl: t.baseUrl,
          auth: { accessToken: t.portals[0].privateAppToken },
          events: { outboxFile: file, flushIntervalMs: 3_600_000 },
        },
        { door },
      );
      try {
        await o.companion.events.track({ eventId: 'x', email: 'o@example.com' });
        expect(readFileSync(file, 'utf8')).toContain('o@example.com');
        await o.companion.events.flush();
        expect(readFileSync(file, 'utf8')).toBe('');
      } finally {
        await o.close();
      }
    });
  });
});
