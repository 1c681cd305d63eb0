/** The inspector page and its data API, over HTTP against the real platform. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type TestPlatform } from './harness';

const KEY = 'test-inspector-key';
let t: TestPlatform;
beforeAll(async () => {
  t = await startPlatform({ inspectorKey: KEY });
});
afterAll(() => t.close());

const PORTAL = 62515;
const inspect = (path: string, key = KEY) =>
  t.call('GET', `/_inspector/api/${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {}, portal: null });

describe('inspector', () => {
  it('serves the page with a strict CSP, and no data without the key', async () => {
    const redirect = await t.call('GET', '/_inspector', { portal: null });
    expect([redirect.status, redirect.headers.get('location')]).toEqual([301, '/_inspector/']);
    const page = await t.call('GET', '/_inspector/', { portal: null });
    expect(page.status).toBe(200);
    expect(page.text).toContain('<script type="module" src="inspector.js"></script>');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const script = await t.call('GET', '/_inspector/inspector.js', { portal: null });
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    expect(script.text).not.toContain('innerHTML'); // visitor data is rendered as text only

    for (const key of ['', 'wrong-key']) {
      const res = await inspect(`portals`, key);
      expect(res.status).toBe(401);
      expect(res.json.message).toBe(
        "the inspector key is missing or wrong: open the URL the platform printed, or add #key= and the inspectorKey of its credentials file to this page's address",
      );
      expect(res.text).not.toContain(KEY);
    }
    expect((await inspect('nothing-here')).status).toBe(404);
  });

  it("shows a contact's identities and timeline: page views, events, form submission, subscription change, list", async () => {
    const utk = 'ab'.repeat(16);
    const form = (
      await t.call('POST', '/contacts/v1/forms', {
        body: { name: 'Contact us', fields: [{ name: 'email', required: true }, { name: 'firstname' }] },
      })
    ).json;
    const cts = String(t.clock.now);
    const events = [
      {
        eid: '1'.repeat(32),
        k: '1',
        a: String(PORTAL),
        v: '1',
        cts,
        pu: 'https://acme.test/pricing',
        t: 'Pricing',
        vi: utk,
      },
      {
        eid: '2'.repeat(32),
        k: '3',
        a: String(PORTAL),
        v: '1',
        cts,
        pu: 'https://acme.test/pricing',
        n: 'clicked-buy',
        m: '49',
        _plan: 'pro',
        _seats: '3',
        vi: utk,
      },
    ];
    expect(
      (
        await t.call('POST', '/collect/e', {
          body: JSON.stringify(events),
          headers: { 'content-type': 'text/plain' },
          portal: null,
        })
      ).json.accepted,
    ).toBe(2);
    t.clock.now += 1000;
    const body = new URLSearchParams({
      email: 'ada@acme.test',
      firstname: '<img src=x onerror=alert(1)>',
      svc_context: JSON.stringify({ svcutk: utk, pageUrl: 'https://acme.test/contact' }),
    });
    expect(
      (
        await t.call('POST', `${t.formsUrl}/uploads/form/v2/${PORTAL}/${form.guid}`, {
          body: body.toString(),
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          portal: null,
        })
      ).status,
    ).toBe(204);
    t.clock.now += 1000;
    expect(
      (await t.call('PUT', '/email/public/v1/subscriptions/ada%40acme.test', { body: { unsubscribeFromAll: true } }))
        .status,
    ).toBe(200);
    const list = (await t.call('POST', '/contacts/v1/lists', { body: { name: 'VIPs' } })).json;
    const { vid } = (await t.call('GET', '/contacts/v1/contact/email/ada@acme.test/profile')).json;
    t.clock.now += 1000;
    await t.call('POST', `/contacts/v1/lists/${list.listId}/add`, { body: { vids: [vid] } });

    const found = await inspect(`contacts?portal=${PORTAL}&q=acme`);
    expect(found.json.contacts).toEqual([
      expect.objectContaining({ vid, email: 'ada@acme.test', name: '<img src=x onerror=alert(1)>', utks: [utk] }),
    ]);
    expect((await inspect(`contacts?portal=${PORTAL}&q=nobody`)).json.contacts).toEqual([]);

    const contact = (await inspect(`contacts/${vid}?portal=${PORTAL}`)).json;
    expect(contact.identities).toEqual([
      expect.objectContaining({ type: 'EMAIL', value: 'ada@acme.test' }),
      expect.objectContaining({ type: 'LEAD_GUID (svcutk)', value: utk }),
    ]);
    expect(contact.timeline.map((i: { kind: string; title: string }) => `${i.kind}: ${i.title}`)).toEqual([
      'list: joined VIPs',
      'subscription change: unsubscribed from all',
      'form submission: Contact us',
      expect.stringMatching(/^(page view: Pricing|event: clicked-buy)$/),
      expect.stringMatching(/^(page view: Pricing|event: clicked-buy)$/),
    ]);
    // The custom event's properties (its `_<name>` fields), not the page's.
    expect(contact.timeline.find((i: { kind: string }) => i.kind == 'event')).toMatchObject({
      detail: 'value 49',
      properties: { plan: 'pro', seats: '3' },
    });
    expect(contact.timeline.find((i: { kind: string }) => i.kind == 'page view').properties).toBeUndefined();
    expect(contact.lists).toEqual([expect.objectContaining({ name: 'VIPs', dynamic: false })]);
    // Another portal's view of the same vid: nothing.
    expect((await inspect(`contacts/${vid}?portal=99999`)).status).toBe(404);

    expect((await inspect(`lists?portal=${PORTAL}`)).json).toContainEqual(
      expect.objectContaining({ name: 'VIPs', size: 1 }),
    );
    expect((await inspect(`forms?portal=${PORTAL}`)).json).toContainEqual({
      guid: form.guid,
      name: 'Contact us',
      submissions: 1,
      spam: 0,
    });
  });

  it('feeds tracking as it arrives, newest first, after a sequence number', async () => {
    const feed = (await inspect(`feed?portal=${PORTAL}`)).json;
    expect(feed[0]).toMatchObject({ kind: 'event', title: 'clicked-buy', value: '49' });
    expect(feed[1]).toMatchObject({ kind: 'page view', title: 'https://acme.test/pricing' });
    expect((await inspect(`feed?portal=${PORTAL}&after=${feed[0].seq}`)).json).toEqual([]);
    expect((await inspect(`feed?portal=99999`)).json).toEqual([]);
  });

  it('is off without a key', async () => {
    const plain = await startPlatform();
    try {
      expect((await plain.call('GET', '/_inspector/', { portal: null })).status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});
