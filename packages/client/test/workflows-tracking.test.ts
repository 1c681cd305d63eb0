/** Workflows, the HTTP events API (with the `events.track` helper) and record limits, against the
 * real platform over HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, sqliteOf, startTestPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
beforeAll(async () => {
  t = await startTestPlatform();
});
afterAll(() => t.close());

describe('workflows', () => {
  it('creates a workflow, enrolls and unenrolls a contact by email, and reads its log', async () => {
    const c = clientFor(t);
    const flow = await c.workflows.create({ name: 'Nurture', actions: [{ type: 'DELAY', delayMillis: 3_600_000 }] });
    expect((await c.workflows.get(flow.id)).name).toBe('Nurture');
    expect((await c.workflows.list()).workflows.map((w) => w.id)).toContain(flow.id);

    const { vid } = await c.contacts.create({ properties: [{ property: 'email', value: 'enrollee+wf@x.test' }] });
    expect(await c.workflows.enroll(flow.id, 'enrollee+wf@x.test')).toBeUndefined();
    expect((await c.workflows.currentEnrollments(vid)).map((w) => w.id)).toEqual([flow.id]);
    expect((await c.workflows.upcomingEvents(flow.id, vid)).length).toBeGreaterThan(0);
    // Enrolling twice is refused (412), and a POST like this one is never retried.
    await expect(c.workflows.enroll(flow.id, 'enrollee+wf@x.test')).rejects.toMatchObject({ status: 412 });
    expect(await c.workflows.unenroll(flow.id, 'enrollee+wf@x.test')).toBeUndefined();
    expect((await c.workflows.pastEvents(flow.id, vid)).map((e) => e.eventType)).toEqual(['UNENROLLED', 'ENROLLED']);
    expect(await c.workflows.delete(flow.id)).toBeUndefined();
  });
});

describe('HTTP events API', () => {
  const analytics = async (email: string) => (await clientFor(t).contacts.getByEmail(email)).properties;

  it('tracks a server-side event once, even when the same id is sent again', async () => {
    const c = clientFor(t);
    await c.contacts.create({ properties: [{ property: 'email', value: 'grace@events.test' }] });
    const { id } = await c.events.track({
      name: 'renewed',
      email: 'grace@events.test',
      value: 100,
      properties: { company: 'Navy' },
    });
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await c.events.track({ name: 'renewed', email: 'grace@events.test', value: 100, id });
    expect(await analytics('grace@events.test')).toMatchObject({
      company: { value: 'Navy' },
      svc_analytics_num_event_completions: { value: '1' },
      svc_analytics_revenue: { value: '100' },
    });
    await expect(c.events.track({ name: 'nobody' })).rejects.toThrow('an event needs an email or a utk');
  });

  it('triggers the public pixel event, which answers GIF bytes', async () => {
    const c = clientFor(t);
    const gif = await c.events.trigger({
      _n: 'webinar-joined',
      _a: t.portals[0].portalId,
      _m: 5,
      email: 'ada@events.test',
      lastname: 'Lovelace',
    });
    expect(gif).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(gif).subarray(0, 6).toString()).toBe('GIF89a');
    expect(await analytics('ada@events.test')).toMatchObject({
      lastname: { value: 'Lovelace' },
      svc_analytics_revenue: { value: '5' },
    });
  });

  it('sends tracker events to the collector (collect.batch) and one as a pixel (collect.pixel)', async () => {
    const c = clientFor(t);
    const portal = String(t.portals[0].portalId);
    const hex = (ch: string) => ch.repeat(32);
    const view = {
      eid: hex('1'),
      k: '1',
      a: portal,
      v: '1',
      cts: String(Date.now()),
      vi: hex('2'),
      pu: 'https://client.test/',
    };
    expect(await c.collect.batch([view, { eid: 'nope', k: '1', a: portal, cts: '1' }])).toEqual({
      accepted: 1,
      duplicates: 0,
      rejected: [{ eid: 'nope', message: 'event 1: "eid" must be 32 lower-case hex characters' }],
    });
    expect(await c.collect.batch([view])).toEqual({ accepted: 0, duplicates: 1, rejected: [] });
    const gif = await c.collect.pixel({ ...view, eid: hex('3') });
    expect(gif).toBeInstanceOf(Uint8Array);
    const stored = sqliteOf(t)
      .prepare('SELECT source, url FROM tracking_events WHERE utk = ? ORDER BY seq')
      .all(hex('2'));
    expect(stored).toEqual([
      { source: 'tracker', url: 'https://client.test/' },
      { source: 'tracker', url: 'https://client.test/' },
    ]);
    await expect(c.collect.batch([])).rejects.toMatchObject({
      status: 400,
      message: 'body must be a JSON array of 1 to 50 events',
    });
  });

  it('reads record limits from real counts', async () => {
    const limits = await clientFor(t).limits.records();
    expect(limits.svcDefinedObjectTypes.find((r) => r.objectTypeId == '0-1')?.usage).toBeGreaterThanOrEqual(2);
  });
});
