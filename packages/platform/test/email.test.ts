import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedEmailDefaults } from '../src/store/email-seed';
import { startPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
/** Subscription type ids of the first portal, by name. */
let types: Record<string, number>;

beforeAll(async () => {
  t = await startPlatform();
  for (const p of t.portals) await seedEmailDefaults(t.platform.services.engine, p.portalId, t.clock.now);
  const defs = await t.call('GET', '/email/public/v1/subscriptions');
  types = Object.fromEntries(
    defs.json.subscriptionDefinitions.map((d: { name: string; id: number }) => [d.name, d.id]),
  );
});
afterAll(() => t.close());

const subs = (email: string) => `/email/public/v1/subscriptions/${encodeURIComponent(email)}`;
const put = (email: string, body: unknown, portal = t.portals[0]) => t.call('PUT', subs(email), { body, portal });

/** Every event of a campaign, following `offset` while `hasMore`. */
async function allEvents(campaignId: number, query = '', portal = t.portals[0]) {
  const events = [];
  let offset = '';
  for (;;) {
    const page = await t.call('GET', `/email/public/v1/campaigns/${campaignId}/events?offset=${offset}${query}`, {
      portal,
    });
    expect(page.status).toBe(200);
    events.push(...page.json.events);
    if (!page.json.hasMore) return events;
    offset = page.json.offset;
  }
}

async function campaignIds(portal = t.portals[0]) {
  const list = await t.call('GET', '/email/public/v1/campaigns', { portal });
  return list.json.campaigns.map((c: { id: number }) => c.id) as number[];
}

/** The campaign that collects subscription changes (created on the first change). */
async function statusChangesCampaign() {
  const list = await t.call('GET', '/email/public/v1/campaigns');
  return list.json.campaigns.find((c: { appName: string }) => c.appName == 'Subscriptions').id as number;
}

describe('subscription types and status', () => {
  it('lists the default subscription types, and seeding again changes nothing', async () => {
    await seedEmailDefaults(t.platform.services.engine, 62515, t.clock.now);
    const res = await t.call('GET', '/email/public/v1/subscriptions');
    expect(res.status).toBe(200);
    expect(res.json.subscriptionDefinitions).toHaveLength(4);
    expect(res.json.subscriptionDefinitions[0]).toMatchObject({
      portalId: 62515,
      name: 'Marketing Information',
      active: true,
      category: 'Marketing',
      channel: 'EMAIL',
    });
    expect(res.json.subscriptionDefinitions.find((d: { name: string }) => d.name == 'Webinar Invitations').active).toBe(
      false,
    );
    expect(await campaignIds()).toHaveLength(3);
  });

  it('reports an unknown address as subscribed with no statuses, and a seeded bounce as bounced', async () => {
    const res = await t.call('GET', subs('Stranger@Example.com'));
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      subscribed: true,
      markedAsSpam: false,
      unsubscribeFromPortal: false,
      portalId: 62515,
      bounced: false,
      email: 'stranger@example.com',
      status: 'subscribed',
      subscriptionStatuses: [],
    });
    expect((await t.call('GET', subs('nobody@example.invalid'))).json.bounced).toBe(true);
  });

  it('unsubscribes one type (case-insensitively) and records a STATUSCHANGE event', async () => {
    t.clock.now += 1000;
    const res = await put('Jerry@Example.org', {
      subscriptionStatuses: [
        {
          id: types['Weekly Newsletter'],
          subscribed: false,
          legalBasis: 'CONSENT_WITH_NOTICE',
          legalBasisExplanation: 'asked by phone',
        },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: 'ok' });

    const status = await t.call('GET', subs('jerry@example.org'));
    expect(status.json).toMatchObject({ subscribed: true, status: 'subscribed', unsubscribeFromPortal: false });
    expect(status.json.subscriptionStatuses).toEqual([
      {
        id: types['Weekly Newsletter'],
        subscribed: false,
        updatedAt: t.clock.now,
        optState: 'OPT_OUT',
        legalBasis: 'CONSENT_WITH_NOTICE',
        legalBasisExplanation: 'asked by phone',
      },
    ]);

    const campaignId = await statusChangesCampaign();
    const events = await allEvents(campaignId, '&recipient=JERRY@example.org');
    expect(events).toEqual([
      expect.objectContaining({
        type: 'STATUSCHANGE',
        recipient: 'jerry@example.org',
        created: t.clock.now,
        portalId: 62515,
        emailCampaignId: campaignId,
        source: 'SOURCE_API',
        portalSubscriptionStatus: 'SUBSCRIBED',
        subscriptions: [
          {
            id: types['Weekly Newsletter'],
            status: 'UNSUBSCRIBED',
            legalBasis: 'CONSENT_WITH_NOTICE',
            legalBasisExplanation: 'asked by phone',
          },
        ],
      }),
    ]);
    const campaign = await t.call('GET', `/email/public/v1/campaigns/${campaignId}`);
    expect(campaign.json).toMatchObject({ name: 'Subscription changes', counters: { statuschange: 1 } });
  });

  it('subscribes to every active type with subscribed: true', async () => {
    t.clock.now += 1000;
    expect((await put('jerry@example.org', { subscribed: true })).status).toBe(200);
    const status = await t.call('GET', subs('jerry@example.org'));
    const active = ['Marketing Information', 'Weekly Newsletter', 'Product Updates']
      .map((n) => types[n])
      .sort((a, b) => a - b);
    expect(status.json.subscriptionStatuses.map((s: { id: number }) => s.id)).toEqual(active);
    for (const s of status.json.subscriptionStatuses)
      expect(s).toMatchObject({ subscribed: true, optState: 'OPT_IN', updatedAt: t.clock.now });
    // The legal basis given earlier is kept when a later change gives none.
    expect(
      status.json.subscriptionStatuses.find((s: { id: number }) => s.id == types['Weekly Newsletter']).legalBasis,
    ).toBe('CONSENT_WITH_NOTICE');
  });

  it('makes unsubscribeFromAll irreversible: any later subscribe answers 400', async () => {
    t.clock.now += 1000;
    expect((await put('jerry@example.org', { unsubscribeFromAll: true })).status).toBe(200);
    const status = await t.call('GET', subs('jerry@example.org'));
    expect(status.json).toMatchObject({ subscribed: false, status: 'unsubscribed', unsubscribeFromPortal: true });
    expect(status.json.subscriptionStatuses).toHaveLength(4);
    expect(status.json.subscriptionStatuses.every((s: { subscribed: boolean }) => !s.subscribed)).toBe(true);

    for (const body of [
      { subscribed: true },
      { subscriptionStatuses: [{ id: types['Product Updates'], subscribed: true }] },
      { unsubscribeFromAll: false },
    ]) {
      const again = await put('JERRY@example.org', body);
      expect(again.status).toBe(400);
      expect(again.json).toMatchObject({
        status: 'error',
        message:
          'jerry@example.org has unsubscribed from all email of this portal; that cannot be undone through the API',
      });
    }
    expect((await t.call('GET', subs('jerry@example.org'))).json.subscribed).toBe(false);

    const events = await allEvents(await statusChangesCampaign(), '&recipient=jerry@example.org');
    expect(events.map((e) => e.portalSubscriptionStatus)).toEqual(['SUBSCRIBED', 'SUBSCRIBED', 'UNSUBSCRIBED']);
  });

  it('is unsubscribed once opted out of every active type one by one', async () => {
    const body = {
      subscriptionStatuses: ['Marketing Information', 'Weekly Newsletter', 'Product Updates'].map((n) => ({
        id: types[n],
        subscribed: false,
      })),
    };
    expect((await put('quiet@example.com', body)).status).toBe(200);
    const status = await t.call('GET', subs('quiet@example.com'));
    expect(status.json).toMatchObject({ subscribed: false, status: 'unsubscribed', unsubscribeFromPortal: false });
  });

  it('rejects an unknown type id, an invalid address and an empty update', async () => {
    const unknown = await put('someone@example.com', { subscriptionStatuses: [{ id: 424242, subscribed: false }] });
    expect(unknown.status).toBe(400);
    expect(unknown.json.message).toBe('subscription type 424242 does not exist in this portal');
    expect((await t.call('GET', subs('someone@example.com'))).json.subscriptionStatuses).toEqual([]);

    const invalid = await t.call('GET', subs('not-an-email'));
    expect(invalid.status).toBe(400);
    expect(invalid.json.message).toBe('path.email_address: must be an email address');
    expect((await put('not-an-email', { subscribed: true })).json.message).toMatch(/^path\.email_address:/);

    const empty = await put('someone@example.com', {});
    expect(empty.status).toBe(400);
    expect(empty.json.message).toMatch(/^body: /);
  });
});

describe('campaigns and events', () => {
  it('pages campaigns with an opaque offset until hasMore is false', async () => {
    const all = await campaignIds();
    expect(all).toHaveLength(4); // three seeded, plus subscription changes
    const paged: number[] = [];
    let offset: string | undefined;
    for (;;) {
      const page = await t.call('GET', `/email/public/v1/campaigns?limit=1${offset ? `&offset=${offset}` : ''}`);
      expect(page.json.campaigns.length).toBeLessThanOrEqual(1);
      expect(page.json.campaigns[0]).toEqual({
        id: expect.any(Number),
        appId: expect.any(Number),
        appName: expect.any(String),
        lastUpdatedTime: expect.any(Number),
      });
      paged.push(page.json.campaigns[0].id);
      offset = page.json.offset;
      expect(offset).toMatch(/^[\w-]+$/);
      if (!page.json.hasMore) break;
    }
    expect(paged).toEqual(all);
    const bad = await t.call('GET', '/email/public/v1/campaigns?offset=nonsense');
    expect(bad.status).toBe(400);
    expect(bad.json.message).toMatch(/^query\.offset:/);
  });

  it('computes campaign counters from its events', async () => {
    const [launchId] = await campaignIds();
    const campaign = await t.call('GET', `/email/public/v1/campaigns/${launchId}`);
    expect(campaign.status).toBe(200);
    expect(campaign.json).toMatchObject({
      id: launchId,
      appId: 113,
      appName: 'Batch',
      name: 'Spring product launch',
      type: 'BATCH_EMAIL',
      numIncluded: 5,
      processingState: 'DONE',
      counters: { processed: 5, sent: 5, delivered: 4, bounce: 1, open: 3, click: 2, statuschange: 0 },
    });

    const events = await allEvents(launchId);
    const counted: Record<string, number> = {};
    for (const e of events) counted[e.type.toLowerCase()] = (counted[e.type.toLowerCase()] ?? 0) + 1;
    for (const [key, n] of Object.entries(campaign.json.counters)) expect(counted[key] ?? 0, key).toBe(n);

    const created = events.map((e) => e.created);
    expect(created).toEqual([...created].sort((a, b) => a - b));
    const sent = new Map(events.filter((e) => e.type == 'SENT').map((e) => [e.recipient, e]));
    for (const open of events.filter((e) => e.type == 'OPEN'))
      expect(open.sentBy).toEqual({ id: sent.get(open.recipient).id, created: sent.get(open.recipient).created });
  });

  it('filters events by type, recipient and time, and pages them', async () => {
    const [launchId] = await campaignIds();
    const all = await allEvents(launchId);

    const opens = await allEvents(launchId, '&eventType=OPEN');
    expect(opens.map((e) => e.id)).toEqual(all.filter((e) => e.type == 'OPEN').map((e) => e.id));

    const ada = await allEvents(launchId, '&recipient=ADA@example.com');
    expect(ada.map((e) => e.type)).toEqual(['PROCESSED', 'SENT', 'DELIVERED', 'OPEN', 'CLICK']);

    const [start, end] = [all[3].created, all[8].created];
    const window = await allEvents(launchId, `&startTimestamp=${start}&endTimestamp=${end}`);
    expect(window.map((e) => e.id)).toEqual(all.filter((e) => e.created >= start && e.created <= end).map((e) => e.id));
    expect(window.length).toBeGreaterThan(0);

    const paged = await allEvents(launchId, '&limit=4');
    expect(paged.map((e) => e.id)).toEqual(all.map((e) => e.id));
    const first = await t.call('GET', `/email/public/v1/campaigns/${launchId}/events?limit=4`);
    expect(first.json).toMatchObject({ hasMore: true, offset: expect.any(String) });
    expect(first.json.events).toHaveLength(4);

    const badType = await t.call('GET', `/email/public/v1/campaigns/${launchId}/events?eventType=open`);
    expect(badType.status).toBe(400);
  });

  it('marks simulated events: every event of the sample campaigns, none of the subscription changes', async () => {
    const [launch, newsletter, welcome, changes] = await campaignIds();
    for (const id of [launch, newsletter, welcome]) {
      const events = await allEvents(id);
      expect(events.length).toBeGreaterThan(0);
      // PROCESSED, SENT, DELIVERED, BOUNCE, OPEN, CLICK alike: nothing of these was sent.
      expect(new Set(events.map((e) => e.simulated))).toEqual(new Set([true]));
    }
    const recorded = await allEvents(changes);
    expect(recorded.length).toBeGreaterThan(0);
    for (const e of recorded) expect(e).not.toHaveProperty('simulated');
    // The portal-wide read says the same.
    const wide = (await t.call('GET', '/email/public/v1/events?limit=1000')).json.events as {
      type: string;
      simulated?: true;
    }[];
    expect(wide.filter((e) => e.type == 'STATUSCHANGE').every((e) => e.simulated === undefined)).toBe(true);
    expect(wide.filter((e) => e.type != 'STATUSCHANGE').every((e) => e.simulated === true)).toBe(true);
  });

  it('answers 404 for an unknown campaign and for another portal’s campaign', async () => {
    const unknown = await t.call('GET', '/email/public/v1/campaigns/1');
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ status: 'error', message: 'campaign 1 does not exist' });
    expect((await t.call('GET', '/email/public/v1/campaigns/1/events')).status).toBe(404);

    const [mine] = await campaignIds();
    const other = t.portals[1];
    const theirs = await t.call('GET', `/email/public/v1/campaigns/${mine}`, { portal: other });
    expect(theirs.status).toBe(404);
    expect(theirs.json.status).toBe('error');
    expect((await t.call('GET', `/email/public/v1/campaigns/${mine}/events`, { portal: other })).status).toBe(404);
  });
});

describe('portals', () => {
  it('keeps subscription statuses, types and campaigns apart', async () => {
    const other = t.portals[1];
    const status = await t.call('GET', subs('jerry@example.org'), { portal: other });
    expect(status.json).toMatchObject({
      portalId: 99999,
      subscribed: true,
      unsubscribeFromPortal: false,
      subscriptionStatuses: [],
    });

    const defs = await t.call('GET', '/email/public/v1/subscriptions', { portal: other });
    expect(defs.json.subscriptionDefinitions.every((d: { portalId: number }) => d.portalId == 99999)).toBe(true);
    const foreignType = await put(
      'jerry@example.org',
      { subscriptionStatuses: [{ id: types['Weekly Newsletter'], subscribed: false }] },
      other,
    );
    expect(foreignType.status).toBe(400);

    const mine = await campaignIds();
    const theirs = await campaignIds(other);
    expect(theirs).toHaveLength(3); // no subscription changes there yet
    expect(theirs.filter((id) => mine.includes(id))).toEqual([]);
  });
});
