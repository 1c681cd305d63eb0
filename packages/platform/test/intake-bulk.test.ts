// The collector's batches in bulk (services/intake-bulk.ts), on the real services and database:
// batches of one turn of the event loop, and those that arrive while a bulk is written, go in one
// write together, each answered for its own
// events; a bulk that fails is retried batch by batch; and over HTTP, concurrent batches of the
// same visitors count exactly as one after the other would.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from '../src/db/engine';
import { PlatformError } from '../src/domain/errors';
import { intakeBulk } from '../src/services/intake-bulk';
import { fromWire, type Intake } from '../src/services/tracking-intake';
import { startPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
beforeAll(async () => {
  t = await startPlatform({ portals: [{ id: 62515 }] });
});
afterAll(() => t.close());

let n = 0;
const hex = () => (++n).toString(16).padStart(32, '0');
const visitor = () => hex().replace(/^0/, 'b');
const view = (vi: string, pu: string, extra: Record<string, string> = {}) => ({
  eid: hex(),
  k: '1',
  a: '62515',
  v: '1',
  cts: String(t.clock.now),
  pu,
  t: 'Page',
  po: new URL(pu).pathname,
  vi,
  ...extra,
});
const collect = (batch: unknown) =>
  t.call('POST', '/collect/e', {
    body: JSON.stringify(batch),
    headers: { 'content-type': 'text/plain;charset=UTF-8' },
    portal: null,
  });
const profile = async (email: string) => {
  const res = await t.call('GET', `/contacts/v1/contact/email/${email}/profile?propertyMode=value_only`);
  return Object.fromEntries(
    Object.entries(res.json.properties as Record<string, { value: string }>).map(([k, v]) => [k, v.value]),
  );
};

describe('collector batches in bulk', () => {
  it('takes the batches of one turn together, and those that arrive during a write in the next, each answered for its own events', async () => {
    const { services } = t.platform;
    const sizes: number[] = [];
    const counted: typeof services.write = (fn) =>
      services.write(async (db) => {
        const out = (await fn(db)) as Intake[][];
        sizes.push(out.length);
        return out as never;
      });
    const bulk = intakeBulk(counted, services.intake, { inFlight: 1 });
    const repeated = view(visitor(), 'https://acme.test/');
    const batches = Array.from({ length: 6 }, (_, i) =>
      i == 5 ? [repeated] : [view(visitor(), 'https://acme.test/'), ...(i == 4 ? [repeated] : [])],
    );
    const accept = (b: ReturnType<typeof view>[]) => bulk.accept(b.map(fromWire), '127.0.0.1');
    // Two in one turn of the event loop; the other four once their bulk is being written.
    const early = batches.slice(0, 2).map(accept);
    await new Promise((resolve) => setImmediate(resolve));
    const answers = await Promise.all([...early, ...batches.slice(2).map(accept)]);
    expect(sizes).toEqual([2, 4]);
    expect(answers.map((a) => a.map((o) => (o.kept ? 'kept' : o.reason)))).toEqual([
      ['kept'],
      ['kept'],
      ['kept'],
      ['kept'],
      ['kept', 'kept'],
      ['duplicate'],
    ]);
  });

  it('retries a failed bulk one batch at a time: a batch never fails for another', async () => {
    const { services } = t.platform;
    const sizes: number[] = [];
    // A write that fails whenever it holds the poisoned batch (as a constraint of the database would).
    const poisoned = view(visitor(), 'https://acme.test/poison');
    const failing: typeof services.write = (fn) =>
      services.write(async (db) => {
        const out = (await fn(db)) as Intake[][];
        sizes.push(out.length);
        if (out.flat().some((o) => o.kept && o.event.eid == poisoned.eid)) throw new Error('poisoned');
        return out as never;
      });
    const bulk = intakeBulk(failing, services.intake, { inFlight: 1 });
    const batches = [
      [view(visitor(), 'https://acme.test/a')],
      [view(visitor(), 'https://acme.test/b')],
      [poisoned],
      [view(visitor(), 'https://acme.test/c')],
    ];
    const settled = await Promise.allSettled(batches.map((b) => bulk.accept(b.map(fromWire))));
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    // The four together (failed: rolled back), then each of them alone.
    expect(sizes).toEqual([4, 1, 1, 1, 1]);
    // What the failed bulk wrote was rolled back: the retried batches were stored once, not refused as repeats.
    expect(
      settled
        .filter((s) => s.status == 'fulfilled')
        .map((s) => (s as PromiseFulfilledResult<{ kept: boolean }[]>).value[0].kept),
    ).toEqual([true, true, true]);
  });

  it('fails every batch of a bulk at once, without retries, when the database is unreachable', async () => {
    const { services } = t.platform;
    const sizes: number[] = [];
    const down = new PlatformError('unavailable', 'the database is unavailable; try again shortly');
    // Reachable for the first bulk, gone for the next.
    const unreliable: typeof services.write = (fn) =>
      services.write(async (db) => {
        const out = (await fn(db)) as Intake[][];
        sizes.push(out.length);
        if (sizes.length > 1) throw down;
        return out as never;
      });
    const bulk = intakeBulk(unreliable, services.intake, { inFlight: 1 });
    const first = bulk.accept([view(visitor(), 'https://acme.test/up')].map(fromWire));
    await new Promise((resolve) => setImmediate(resolve)); // its bulk is being written
    const rest = [0, 1, 2].map(() => bulk.accept([view(visitor(), 'https://acme.test/down')].map(fromWire)));
    expect((await first)[0].kept).toBe(true);
    expect((await Promise.allSettled(rest)).map((r) => (r.status == 'rejected' ? r.reason : r.value))).toEqual([
      down,
      down,
      down,
    ]);
    expect(sizes).toEqual([1, 3]);
  });

  it('over HTTP: concurrent batches of the same visitors count as one after the other would', async () => {
    const visitors = Array.from({ length: 4 }, visitor);
    // Known contacts first: each visitor identifies.
    for (const [i, vi] of visitors.entries())
      await collect([view(vi, 'https://acme.test/', { i: `email=bulk${i}%40acme.test` })]);
    t.clock.now += 60_000;
    // Three batches per visitor at once, with one event id sent twice (in two batches).
    const twice = view(visitors[0], 'https://acme.test/twice');
    const sent = visitors.flatMap((vi, i) =>
      [0, 1, 2].map((k) => [view(vi, `https://acme.test/p${k}`), ...(i == 0 && k < 2 ? [twice] : [])]),
    );
    const answers = (await Promise.all(sent.map(collect))).map(
      (r) => r.json as { accepted: number; duplicates: number },
    );
    expect(answers.reduce((sum, a) => sum + a.accepted, 0)).toBe(13);
    expect(answers.reduce((sum, a) => sum + a.duplicates, 0)).toBe(1);
    for (const [i] of visitors.entries()) {
      const p = await profile(`bulk${i}@acme.test`);
      // One session each (the page views a minute after the first continue it), all views counted.
      expect([i, p.svc_analytics_num_page_views, p.svc_analytics_num_visits]).toEqual([i, i == 0 ? '5' : '4', '1']);
    }
  });
});

describe('how the collector commits', () => {
  it('on PostgreSQL its transaction commits without waiting for the server’s disk flush, and only its own', async () => {
    const { services } = t.platform;
    const { engine, tracking } = services;
    const setting = sql<[], { synchronous_commit: string }>('SHOW synchronous_commit');
    const inside = await engine.tx(async (db) => {
      await tracking.commitUnflushed(db);
      return engine.kind == 'postgres' ? (await db.get(setting))!.synchronous_commit : 'n/a';
    });
    const after = engine.kind == 'postgres' ? (await engine.tx((db) => db.get(setting)))!.synchronous_commit : 'n/a';
    expect([inside, after]).toEqual(engine.kind == 'postgres' ? ['off', 'on'] : ['n/a', 'n/a']);
  });

  it('asks for it in each bulk the collector writes, unless told to wait for the flush (syncTrackingCommits)', async () => {
    const spy = vi.spyOn(t.platform.services.tracking, 'commitUnflushed');
    try {
      expect((await collect([view(visitor(), 'https://acme.test/unflushed')])).json.accepted).toBe(1);
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
    }
    const synced = await startPlatform({ portals: [{ id: 62515 }], syncTrackingCommits: true });
    try {
      const syncedSpy = vi.spyOn(synced.platform.services.tracking, 'commitUnflushed');
      const res = await synced.call('POST', '/collect/e', {
        body: JSON.stringify([view(visitor(), 'https://acme.test/flushed')]),
        headers: { 'content-type': 'text/plain' },
        portal: null,
      });
      expect([res.json.accepted, syncedSpy.mock.calls.length]).toEqual([1, 0]);
    } finally {
      await synced.close();
    }
  });
});
