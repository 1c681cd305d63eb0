/** The events on a contact's timeline through the client (`events.list`, `events.all`): a
 * tracker's custom event with its properties and a server-side one, against the real platform. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, startTestPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
beforeAll(async () => {
  t = await startTestPlatform();
});
afterAll(() => t.close());

describe("a contact's timeline", () => {
  it('lists page views and custom events with their properties, newest first, and pages through them', async () => {
    const c = clientFor(t);
    const portal = String(t.portals[0].portalId);
    const utk = 'd1'.repeat(16);
    // An hour ago: a browser's clock days behind would have its events dated by their arrival.
    const at = Date.now() - 3_600_000;
    const wire = (n: number, fields: Record<string, string>) => ({
      eid: String(n).repeat(32),
      a: portal,
      v: '1',
      cts: String(at + n * 1000),
      vi: utk,
      ...fields,
    });
    // What the tracker sends for trackPageView, then trackEvent({id: 'signup', value: 49, plan: 'pro'}), then identify.
    const outcome = await c.collect.batch([
      wire(1, { k: '1', pu: 'https://client.test/pricing', t: 'Pricing', r: 'https://news.test/' }),
      wire(2, { k: '3', pu: 'https://client.test/pricing', t: 'Pricing', n: 'signup', m: '49', _plan: 'pro' }),
      wire(3, { k: '1', pu: 'https://client.test/thanks', t: 'Thanks', i: 'email=lin%40timeline.test' }),
    ]);
    expect(outcome).toMatchObject({ accepted: 3 });
    // A server-side event with a property of its own.
    await c.events.track({
      name: 'invoice-paid',
      email: 'lin@timeline.test',
      value: 120,
      properties: { invoice: 'INV-7' },
    });
    const { vid } = await c.contacts.getByEmail('lin@timeline.test');

    const { results, paging } = await c.events.list({ objectType: 'contact', objectId: vid });
    expect(paging).toBeUndefined();
    expect(results.map((e) => [e.eventType, e.properties])).toEqual([
      ['invoice-paid', { svc_value: '120', invoice: 'INV-7' }],
      ['e_visited_page', { svc_url: 'https://client.test/thanks', svc_title: 'Thanks' }],
      ['signup', { svc_url: 'https://client.test/pricing', svc_title: 'Pricing', svc_value: '49', plan: 'pro' }],
      [
        'e_visited_page',
        { svc_url: 'https://client.test/pricing', svc_title: 'Pricing', svc_referrer: 'https://news.test/' },
      ],
    ]);
    expect(results.every((e) => e.objectType == 'CONTACT' && e.objectId == String(vid))).toBe(true);

    // The pager follows paging.next.after; by email as the real API allows.
    const one: string[] = [];
    for await (const e of c.events.all({
      objectType: 'contact',
      'objectProperty.email': 'lin@timeline.test',
      limit: 1,
    }))
      one.push(e.eventType);
    expect(one).toEqual(results.map((e) => e.eventType));
    const bounded: string[] = [];
    for await (const e of c.events.all({ objectType: 'contact', objectId: vid, eventType: 'signup' }, { maxItems: 5 }))
      bounded.push(e.id);
    expect(bounded).toEqual(['2'.repeat(32)]);
  });

  it('rejects what the platform refuses, with its message', async () => {
    const c = clientFor(t);
    await expect(c.events.list({ objectType: 'contact' })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('give objectId (the contact vid) or objectProperty.email'),
    });
    await expect(c.events.list({ objectType: 'contact', objectId: 987654 })).rejects.toMatchObject({ status: 404 });
  });
});
