/** Workflows over real HTTP, and the engine run by moving the clock and calling `runDue()`.
 * Webhooks go to a local HTTP server that records what it receives. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from '../src/db/engine';
import { seedEmailDefaults } from '../src/store/email-seed';
import { startPlatform, type TestPlatform } from './harness';

const HOUR = 3_600_000;

interface Received {
  method: string;
  url: string;
  contentType?: string;
  body: unknown;
}

let t: TestPlatform;
let hooks: Server;
let hookUrl: string;
/** A port nothing listens on: calls to it fail with a network error. */
let deadUrl: string;
const received: Received[] = [];

const listen = (server: Server) =>
  new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );

beforeAll(async () => {
  // Webhooks given up a minute after their first attempt; waits of 1–2 s, 2–4 s, …
  t = await startPlatform({ webhooks: { baseDelayMs: 2000, maxDelayMs: 10_000, retryForMs: 60_000 } });
  // These tests run the engine by hand (runDue) on the moved clock; its own timer, started by
  // listen(), would race them on a busy machine.
  await t.platform.services.workflows.stop();
  hooks = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => {
      received.push({
        method: req.method!,
        url: req.url!,
        contentType: req.headers['content-type'],
        body: text ? JSON.parse(text) : undefined,
      });
      res.statusCode = req.url!.startsWith('/fail') ? 500 : req.url!.startsWith('/gone') ? 404 : 200;
      res.end('ok');
    });
  });
  hookUrl = await listen(hooks);
  const dead = createServer();
  deadUrl = await listen(dead);
  await new Promise((resolve) => dead.close(resolve));
});
afterAll(async () => {
  await t.close();
  await new Promise((resolve) => hooks.close(resolve));
});

const props = (o: Record<string, string>) => ({
  properties: Object.entries(o).map(([property, value]) => ({ property, value })),
});

async function contact(email: string, properties: Record<string, string> = {}) {
  const res = await t.call('POST', '/contacts/v1/contact', { body: props({ email, ...properties }) });
  expect(res.status).toBe(200);
  return res.json.vid as number;
}

async function workflow(body: Record<string, unknown>) {
  const res = await t.call('POST', '/automation/v2/workflows', { body: { name: 'Flow', ...body } });
  expect(res.status).toBe(200);
  return res.json.id as number;
}

const property = async (vid: number, name: string) =>
  (await t.call('GET', `/contacts/v1/contact/vid/${vid}/profile`)).json.properties[name];
const enroll = (id: number, email: string) =>
  t.call('POST', `/automation/v2/workflows/${id}/enrollments/contacts/${email}`);
const unenroll = (id: number, email: string) =>
  t.call('DELETE', `/automation/v2/workflows/${id}/enrollments/contacts/${email}`);
const past = async (id: number, vid: number) =>
  (await t.call('GET', `/automation/v2/workflows/${id}/logevents/contacts/${vid}/past`)).json;
const upcoming = async (id: number, vid: number) =>
  (await t.call('GET', `/automation/v2/workflows/${id}/logevents/contacts/${vid}/upcoming`)).json;
const current = async (vid: number) =>
  (await t.call('GET', `/automation/v2/workflows/enrollments/contacts/${vid}`)).json;
const runDue = () => t.platform.services.workflows.runDue();
const types = (events: { eventType: string }[]) => events.map((e) => e.eventType);

describe('workflow definitions', () => {
  it('creates, reads, lists and soft-deletes workflows, per portal', async () => {
    const created = await t.call('POST', '/automation/v2/workflows', {
      body: {
        name: 'Welcome',
        actions: [
          { type: 'DELAY', delayMillis: 1000 },
          { type: 'WEBHOOK', url: `${hookUrl}/welcome` },
        ],
      },
    });
    expect(created.status).toBe(200);
    expect(created.json).toEqual({
      id: expect.any(Number),
      portalId: 62515,
      name: 'Welcome',
      type: 'DRIP_DELAY',
      enabled: true,
      insertedAt: t.clock.now,
      updatedAt: t.clock.now,
      allowContactToTriggerMultipleTimes: false,
      actions: [
        { type: 'DELAY', delayMillis: 1000, stepId: 0 },
        { type: 'WEBHOOK', url: `${hookUrl}/welcome`, method: 'POST', stepId: 1 },
      ],
    });
    const id = created.json.id;
    expect((await t.call('GET', `/automation/v2/workflows/${id}`)).json).toEqual(created.json);
    expect((await t.call('GET', '/automation/v2/workflows')).json.workflows).toContainEqual(created.json);

    const other = t.portals[1];
    expect((await t.call('GET', `/automation/v2/workflows/${id}`, { portal: other })).status).toBe(404);
    expect((await t.call('GET', '/automation/v2/workflows', { portal: other })).json).toEqual({ workflows: [] });
    expect((await t.call('DELETE', `/automation/v2/workflows/${id}`, { portal: other })).status).toBe(404);

    const deleted = await t.call('DELETE', `/automation/v2/workflows/${id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    const gone = await t.call('GET', `/automation/v2/workflows/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.json).toMatchObject({ status: 'error', message: `workflow ${id} does not exist` });
    expect(
      (await t.call('GET', '/automation/v2/workflows')).json.workflows.map((w: { id: number }) => w.id),
    ).not.toContain(id);
    expect((await t.call('DELETE', `/automation/v2/workflows/${id}`)).status).toBe(404);
  });

  it('rejects a missing name, an unknown action type and a bad webhook URL with 400', async () => {
    const noName = await t.call('POST', '/automation/v2/workflows', { body: { actions: [] } });
    expect(noName.status).toBe(400);
    expect(noName.json).toMatchObject({
      category: 'VALIDATION_ERROR',
      message: expect.stringMatching(/^body\.name: /),
    });
    const badType = await t.call('POST', '/automation/v2/workflows', {
      body: { name: 'x', actions: [{ type: 'SEND_EMAIL', emailId: 1 }] },
    });
    expect(badType.status).toBe(400);
    expect(badType.json.message).toMatch(/^body\.actions\.0\.type: /);
    for (const url of ['not a url', 'ftp://example.com/hook']) {
      const badUrl = await t.call('POST', '/automation/v2/workflows', {
        body: { name: 'x', actions: [{ type: 'WEBHOOK', url }] },
      });
      expect(badUrl.status).toBe(400);
      expect(badUrl.json.message).toMatch(/^body\.actions\.0\.url: /);
    }
  });
});

describe('enrollment', () => {
  it('answers 404 for an unknown workflow or contact, and for another portal', async () => {
    const id = await workflow({});
    const vid = await contact('nobody-enrolled@example.com');
    expect((await t.call('GET', '/automation/v2/workflows/999999')).status).toBe(404);
    expect((await enroll(999999, 'nobody-enrolled@example.com')).status).toBe(404);
    const unknown = await enroll(id, 'unknown@example.com');
    expect(unknown.status).toBe(404);
    expect(unknown.json.message).toBe('no contact has the email unknown@example.com');
    expect((await unenroll(id, 'unknown@example.com')).status).toBe(404);
    expect(
      (
        await t.call('POST', `/automation/v2/workflows/${id}/enrollments/contacts/nobody-enrolled@example.com`, {
          portal: t.portals[1],
        })
      ).status,
    ).toBe(404);
    expect(
      (await t.call('GET', `/automation/v2/workflows/enrollments/contacts/${vid}`, { portal: t.portals[1] })).status,
    ).toBe(404);
    expect((await t.call('GET', `/automation/v2/workflows/enrollments/contacts/999999`)).status).toBe(404);
    expect((await t.call('GET', `/automation/v2/workflows/999999/logevents/contacts/${vid}/past`)).status).toBe(404);
    expect((await t.call('GET', `/automation/v2/workflows/${id}/logevents/contacts/999999/upcoming`)).status).toBe(404);
  });

  it('enrolls by email (204), lists current enrollments, and answers 412 to re-enrolling or a disabled workflow', async () => {
    const id = await workflow({ name: 'Nurture', actions: [{ type: 'DELAY', delayMillis: HOUR }] });
    const vid = await contact('Enrollee@Example.com');
    const res = await enroll(id, 'enrollee@example.com');
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await current(vid)).toEqual([(await t.call('GET', `/automation/v2/workflows/${id}`)).json]);

    const again = await enroll(id, 'ENROLLEE@example.com');
    expect(again.status).toBe(412);
    expect(again.json).toMatchObject({
      status: 'error',
      message: `contact ${vid} is already enrolled in workflow ${id}`,
    });

    expect((await unenroll(id, 'enrollee@example.com')).status).toBe(204);
    expect(await current(vid)).toEqual([]);
    expect((await unenroll(id, 'enrollee@example.com')).status).toBe(204);
    // Once through is all a workflow that does not allow multiple triggers takes.
    expect((await enroll(id, 'enrollee@example.com')).status).toBe(412);
    expect(types(await past(id, vid))).toEqual(['UNENROLLED', 'ENROLLED']);

    const disabled = await workflow({ enabled: false });
    const off = await enroll(disabled, 'enrollee@example.com');
    expect(off.status).toBe(412);
    expect(off.json.message).toBe(`workflow ${disabled} is disabled`);
  });

  it('starts an active contact over when the workflow allows multiple triggers', async () => {
    const id = await workflow({
      allowContactToTriggerMultipleTimes: true,
      actions: [{ type: 'DELAY', delayMillis: HOUR }],
    });
    const vid = await contact('twice@example.com');
    expect((await enroll(id, 'twice@example.com')).status).toBe(204);
    expect((await enroll(id, 'twice@example.com')).status).toBe(204);
    expect(await past(id, vid)).toMatchObject([
      { eventType: 'ENROLLED' },
      { eventType: 'UNENROLLED', detail: 're-enrolled' },
      { eventType: 'ENROLLED' },
    ]);
    expect(await current(vid)).toHaveLength(1);
    // Once ended, it can start again too.
    await unenroll(id, 'twice@example.com');
    expect((await enroll(id, 'twice@example.com')).status).toBe(204);
    await unenroll(id, 'twice@example.com'); // leaves nothing due for the engine tests below
  });
});

describe('engine', () => {
  it('runs the steps on the clock: property now, webhook and list after the delay, then COMPLETED', async () => {
    const list = await t.call('POST', '/contacts/v1/lists', { body: { name: 'Graduates' } });
    expect(list.status).toBe(200);
    const listId = list.json.listId;
    const id = await workflow({
      name: 'Onboarding',
      actions: [
        { type: 'SET_CONTACT_PROPERTY', propertyName: 'firstname', newValue: 'Grace' },
        { type: 'DELAY', delayMillis: HOUR },
        { type: 'WEBHOOK', url: `${hookUrl}/onboarded?source=svc` },
        { type: 'ADD_TO_LIST', listId },
      ],
    });
    const vid = await contact('grace@example.com', { firstname: 'G' });
    const start = t.clock.now;
    expect((await enroll(id, 'grace@example.com')).status).toBe(204);

    const step = (stepId: number, eventType: string, timestamp: number) => ({
      eventType,
      timestamp,
      workflowId: id,
      vid,
      stepId,
    });
    expect(await upcoming(id, vid)).toEqual([
      step(0, 'SET_CONTACT_PROPERTY', start),
      step(1, 'DELAY', start),
      step(2, 'WEBHOOK', start + HOUR),
      step(3, 'ADD_TO_LIST', start + HOUR),
    ]);

    expect(await runDue()).toBe(2);
    expect(await property(vid, 'firstname')).toMatchObject({
      value: 'Grace',
      versions: [{ value: 'Grace', 'source-type': 'WORKFLOW', 'source-id': String(id) }, { value: 'G' }],
    });
    expect(await upcoming(id, vid)).toEqual([step(2, 'WEBHOOK', start + HOUR), step(3, 'ADD_TO_LIST', start + HOUR)]);

    t.clock.now = start + HOUR - 1;
    expect(await runDue()).toBe(0);
    expect(received.filter((r) => r.url.startsWith('/onboarded'))).toEqual([]);

    t.clock.now = start + HOUR;
    expect(await runDue()).toBe(3);
    expect(received.filter((r) => r.url.startsWith('/onboarded'))).toEqual([
      {
        method: 'POST',
        url: '/onboarded?source=svc',
        contentType: 'application/json',
        body: {
          workflowId: id,
          vid,
          portalId: 62515,
          email: 'grace@example.com',
          properties: expect.objectContaining({ email: 'grace@example.com', firstname: 'Grace' }),
          timestamp: start + HOUR,
        },
      },
    ]);
    const members = await t.call('GET', `/contacts/v1/lists/${listId}/contacts/all`);
    expect(members.json.contacts.map((c: { vid: number }) => c.vid)).toEqual([vid]);

    expect(await past(id, vid)).toEqual([
      { eventType: 'COMPLETED', timestamp: start + HOUR, workflowId: id, vid, stepId: null },
      { ...step(3, 'ADD_TO_LIST', start + HOUR), detail: `list ${listId}` },
      {
        ...step(2, 'WEBHOOK', start + HOUR),
        detail: expect.stringMatching(
          new RegExp(`^POST ${hookUrl}/onboarded\\?source=svc answered 200 \\(attempt 1, event [0-9a-f-]{36}\\)$`),
        ),
      },
      { ...step(1, 'DELAY', start), detail: `${HOUR} ms` },
      { ...step(0, 'SET_CONTACT_PROPERTY', start), detail: 'firstname=Grace' },
      { eventType: 'ENROLLED', timestamp: start, workflowId: id, vid, stepId: null },
    ]);
    expect(await upcoming(id, vid)).toEqual([]);
    expect(await current(vid)).toEqual([]);
    expect(await runDue()).toBe(0);
  });

  it('stops at unenrollment', async () => {
    const id = await workflow({
      actions: [
        { type: 'DELAY', delayMillis: HOUR },
        { type: 'SET_CONTACT_PROPERTY', propertyName: 'lastname', newValue: 'Late' },
      ],
    });
    const vid = await contact('leaver@example.com');
    await enroll(id, 'leaver@example.com');
    await runDue();
    expect((await unenroll(id, 'leaver@example.com')).status).toBe(204);
    expect(await upcoming(id, vid)).toEqual([]);
    t.clock.now += 2 * HOUR;
    await runDue();
    expect(await property(vid, 'lastname')).toBeUndefined();
    expect(types(await past(id, vid))).toEqual(['UNENROLLED', 'DELAY', 'ENROLLED']);
  });

  it('retries a failing webhook (5xx, network error) until given up, a 4xx is final; the contact carries on after either; GET webhooks carry the payload in the query', async () => {
    const id = await workflow({
      actions: [
        { type: 'WEBHOOK', url: `${hookUrl}/fail`, method: 'POST' },
        { type: 'WEBHOOK', url: `${deadUrl}/hook` },
        { type: 'WEBHOOK', url: `${hookUrl}/gone` },
        { type: 'WEBHOOK', url: `${hookUrl}/get`, method: 'GET' },
        { type: 'SET_CONTACT_PROPERTY', propertyName: 'lastname', newValue: 'Persistent' },
      ],
    });
    const vid = await contact('unlucky@example.com');
    await enroll(id, 'unlucky@example.com');
    const start = t.clock.now;
    // The first attempt fails; the next is not due yet, and the contact waits at the step.
    expect(await runDue()).toBe(1);
    expect(await past(id, vid)).toMatchObject([
      {
        eventType: 'WEBHOOK_RETRY',
        stepId: 0,
        detail: expect.stringMatching(/answered 500 \(attempt 1, event .*\); next attempt in [12]\.\d s$/),
      },
      { eventType: 'ENROLLED' },
    ]);
    const [waiting] = await upcoming(id, vid);
    expect(waiting).toMatchObject({ eventType: 'WEBHOOK', stepId: 0 });
    expect(waiting.timestamp).toBeGreaterThanOrEqual(start + 1000);
    expect(waiting.timestamp).toBeLessThanOrEqual(start + 2000);
    expect(await property(vid, 'lastname')).toBeUndefined();
    // Each later attempt waits about twice as long, until a minute has passed.
    for (let i = 0; i < 30 && (await past(id, vid))[0].eventType == 'WEBHOOK_RETRY'; i++) {
      t.clock.now = (await upcoming(id, vid))[0].timestamp;
      await runDue();
    }
    t.clock.now = start + 2 * HOUR;
    while ((await upcoming(id, vid)).length) {
      t.clock.now = Math.max(t.clock.now, (await upcoming(id, vid))[0].timestamp);
      await runDue();
    }
    expect(await property(vid, 'lastname')).toMatchObject({ value: 'Persistent' });
    const log = await past(id, vid);
    expect(types(log).filter((type) => type != 'WEBHOOK_RETRY')).toEqual([
      'COMPLETED',
      'SET_CONTACT_PROPERTY',
      'WEBHOOK',
      'FAILED',
      'FAILED',
      'FAILED',
      'ENROLLED',
    ]);
    const failed = log.filter((e: { eventType: string }) => e.eventType == 'FAILED');
    expect(failed[0]).toMatchObject({
      stepId: 2,
      detail: expect.stringMatching(
        new RegExp(`^POST ${hookUrl}/gone answered 404 \\(attempt 1, event .*\\); refused for good$`),
      ),
    });
    expect(failed[1]).toMatchObject({
      stepId: 1,
      detail: expect.stringMatching(
        new RegExp(
          `^POST ${deadUrl}/hook failed: fetch failed \\(ECONNREFUSED\\) \\(attempt \\d+, .*\\); given up after \\d+ attempts over`,
        ),
      ),
    });
    expect(failed[2]).toMatchObject({
      stepId: 0,
      detail: expect.stringMatching(/answered 500 \(attempt \d+, .*\); given up after \d+ attempts over/),
    });
    // Waits of 1–2, 2–4, 4–8, then 5–10 s within the minute: 6 to 12 attempts at each.
    const retries = log.filter(
      (e: { eventType: string; stepId: number }) => e.eventType == 'WEBHOOK_RETRY' && e.stepId == 0,
    ).length;
    expect(retries).toBeGreaterThanOrEqual(5);
    expect(retries).toBeLessThanOrEqual(12);
    expect(received.filter((r) => r.url.startsWith('/gone'))).toHaveLength(1);
    const get = received.find((r) => r.url.startsWith('/get'))!;
    expect(get.method).toBe('GET');
    const query = new URL(get.url, hookUrl).searchParams;
    expect(Object.fromEntries(query)).toMatchObject({
      workflowId: String(id),
      vid: String(vid),
      portalId: '62515',
      email: 'unlucky@example.com',
    });
    expect(JSON.parse(query.get('properties')!)).toMatchObject({ email: 'unlucky@example.com' });
  });

  it('refuses, when the workflow is written, steps naming an unknown property or list, a bad value or a dynamic list', async () => {
    const refused = async (action: Record<string, unknown>, status: number, message: RegExp) => {
      const res = await t.call('POST', '/automation/v2/workflows', {
        body: { name: 'x', actions: [{ type: 'DELAY', delayMillis: 0 }, action] },
      });
      expect(res.status, JSON.stringify(action)).toBe(status);
      expect(res.json.message).toMatch(message);
    };
    await refused(
      { type: 'SET_CONTACT_PROPERTY', propertyName: 'favouritecolour', newValue: 'teal' },
      400,
      /^body\.actions\.1\.propertyName: Property "favouritecolour" does not exist/,
    );
    await refused(
      { type: 'SET_CONTACT_PROPERTY', propertyName: 'createdate', newValue: '1' },
      400,
      /^body\.actions\.1\.propertyName: .*read-only/,
    );
    await refused(
      { type: 'SET_CONTACT_PROPERTY', propertyName: 'email', newValue: 'not an address' },
      400,
      /^body\.actions\.1\.newValue: /,
    );
    await refused({ type: 'ADD_TO_LIST', listId: 999_999 }, 404, /^body\.actions\.1\.listId: no list 999999/);
    const dynamic = await t.call('POST', '/contacts/v1/lists', {
      body: { name: 'Dynamic', dynamic: true, filters: [] },
    });
    await refused({ type: 'ADD_TO_LIST', listId: dynamic.json.listId }, 400, /^body\.actions\.1\.listId: .*dynamic/);
    expect(
      (await t.call('GET', '/automation/v2/workflows')).json.workflows.map((w: { name: string }) => w.name),
    ).not.toContain('x');
  });

  it('fails the enrollment on a property deleted after the workflow was written', async () => {
    const created = await t.call('PUT', '/contacts/v1/properties/shortlived', {
      body: { label: 'Short-lived', groupName: 'contactinformation', type: 'string', fieldType: 'text' },
    });
    expect(created.status).toBe(200);
    const id = await workflow({
      actions: [
        { type: 'SET_CONTACT_PROPERTY', propertyName: 'shortlived', newValue: 'x' },
        { type: 'SET_CONTACT_PROPERTY', propertyName: 'lastname', newValue: 'Never' },
      ],
    });
    expect((await t.call('DELETE', '/contacts/v1/properties/shortlived')).status).toBe(204);
    const vid = await contact('invalid@example.com');
    await enroll(id, 'invalid@example.com');
    expect(await runDue()).toBe(1);
    expect(await past(id, vid)).toMatchObject([
      { eventType: 'FAILED', stepId: 0, detail: 'Property "shortlived" does not exist' },
      { eventType: 'ENROLLED' },
    ]);
    expect(await property(vid, 'lastname')).toBeUndefined();
    expect(await current(vid)).toEqual([]);
  });

  it('sends an EMAIL step as send and delivery events, skipping contacts who opted out of its type', async () => {
    await seedEmailDefaults(t.platform.services.engine, t.portals[0].portalId, t.clock.now);
    const listed = await t.call('GET', '/email/public/v1/campaigns');
    const campaigns = await Promise.all(
      listed.json.campaigns.map(
        async (c: { id: number }) => (await t.call('GET', `/email/public/v1/campaigns/${c.id}`)).json,
      ),
    );
    const newsletter = campaigns.find((c: { name: string }) => c.name == 'Weekly Newsletter #42');
    const defs = await t.call('GET', '/email/public/v1/subscriptions');
    const weekly = defs.json.subscriptionDefinitions.find((d: { name: string }) => d.name == 'Weekly Newsletter').id;

    // Named by its content id, the step is stored with both ids.
    const id = await workflow({
      actions: [
        { type: 'EMAIL', emailContentId: newsletter.contentId },
        { type: 'SET_CONTACT_PROPERTY', propertyName: 'lastname', newValue: 'Mailed' },
      ],
    });
    expect((await t.call('GET', `/automation/v2/workflows/${id}`)).json.actions[0]).toEqual({
      type: 'EMAIL',
      emailCampaignId: newsletter.id,
      emailContentId: newsletter.contentId,
      stepId: 0,
    });

    const reader = await contact('reader@example.com');
    const typeOut = await contact('typeout@example.com');
    const allOut = await contact('allout@example.com');
    const sub = (email: string, body: unknown) => t.call('PUT', `/email/public/v1/subscriptions/${email}`, { body });
    expect(
      (await sub('typeout@example.com', { subscriptionStatuses: [{ id: weekly, subscribed: false }] })).status,
    ).toBe(200);
    expect((await sub('allout@example.com', { unsubscribeFromAll: true })).status).toBe(200);
    for (const email of ['reader@example.com', 'typeout@example.com', 'allout@example.com'])
      expect((await enroll(id, email)).status).toBe(204);
    t.clock.now += 1000;
    await runDue();

    expect(await past(id, reader)).toMatchObject([
      { eventType: 'COMPLETED' },
      { eventType: 'SET_CONTACT_PROPERTY', stepId: 1 },
      { eventType: 'EMAIL', stepId: 0, detail: `email ${newsletter.id} sent to reader@example.com` },
      { eventType: 'ENROLLED' },
    ]);
    // Those who opted out skip the email and go on with the workflow.
    expect((await past(id, typeOut))[2]).toMatchObject({
      eventType: 'EMAIL',
      detail: `email ${newsletter.id} dropped: PREVIOUSLY_UNSUBSCRIBED_MESSAGE`,
    });
    expect((await past(id, allOut))[2]).toMatchObject({
      eventType: 'EMAIL',
      detail: `email ${newsletter.id} dropped: PREVIOUSLY_UNSUBSCRIBED_PORTAL`,
    });
    for (const vid of [reader, typeOut, allOut]) expect((await property(vid, 'lastname')).value).toBe('Mailed');

    const events = async (recipient: string) =>
      (await t.call('GET', `/email/public/v1/campaigns/${newsletter.id}/events?recipient=${recipient}`)).json
        .events as Record<string, unknown>[];
    const sent = await events('reader@example.com');
    expect(sent.map((e) => e.type)).toEqual(['PROCESSED', 'SENT', 'DELIVERED']);
    expect(sent.every((e) => e.created == t.clock.now && e.emailCampaignId == newsletter.id)).toBe(true);
    expect(sent[2].sentBy).toEqual({ id: sent[1].id, created: sent[1].created });
    // The delivery is the twin's make-believe (no mail server), and says so; the send, caught by
    // the mail catcher, is not.
    expect(sent.map((e) => e.simulated)).toEqual([undefined, undefined, true]);
    expect(await events('typeout@example.com')).toMatchObject([
      { type: 'PROCESSED' },
      { type: 'DROPPED', dropReason: 'PREVIOUSLY_UNSUBSCRIBED_MESSAGE' },
    ]);
    expect((await events('typeout@example.com')).some((e) => 'simulated' in e)).toBe(false);
    expect(await events('allout@example.com')).toMatchObject([
      { type: 'PROCESSED' },
      { type: 'DROPPED', dropReason: 'PREVIOUSLY_UNSUBSCRIBED_PORTAL' },
    ]);
    const after = (await t.call('GET', `/email/public/v1/campaigns/${newsletter.id}`)).json.counters;
    expect(after).toMatchObject({
      processed: newsletter.counters.processed + 3,
      sent: newsletter.counters.sent + 1,
      delivered: newsletter.counters.delivered + 1,
      dropped: newsletter.counters.dropped + 2,
    });
  });

  it('refuses an EMAIL step naming no email, or one the portal does not have', async () => {
    const write = (action: Record<string, unknown>, portal = t.portals[0]) =>
      t.call('POST', '/automation/v2/workflows', {
        body: { name: 'x', actions: [{ type: 'EMAIL', ...action }] },
        portal,
      });
    const none = await write({});
    expect(none.status).toBe(400);
    expect(none.json.message).toMatch(/^body\.actions\.0.*emailCampaignId or emailContentId/);
    const unknown = await write({ emailCampaignId: 424242 });
    expect(unknown.status).toBe(404);
    expect(unknown.json.message).toBe('body.actions.0.emailCampaignId: no email 424242 in this portal');
    expect((await write({ emailContentId: 424242 })).json.message).toBe(
      'body.actions.0.emailContentId: no email 424242 in this portal',
    );
    const [mine] = (await t.call('GET', '/email/public/v1/campaigns')).json.campaigns;
    const detail = (await t.call('GET', `/email/public/v1/campaigns/${mine.id}`)).json;
    expect((await write({ emailCampaignId: mine.id, emailContentId: detail.contentId + 1 })).status).toBe(404);
    expect((await write({ emailCampaignId: mine.id }, t.portals[1])).status).toBe(404);
  });

  it('ends the enrollments of a deleted workflow', async () => {
    const id = await workflow({
      actions: [
        { type: 'DELAY', delayMillis: HOUR },
        { type: 'SET_CONTACT_PROPERTY', propertyName: 'lastname', newValue: 'Orphan' },
      ],
    });
    const vid = await contact('orphan@example.com');
    await enroll(id, 'orphan@example.com');
    await runDue();
    expect((await t.call('DELETE', `/automation/v2/workflows/${id}`)).status).toBe(204);
    expect(await current(vid)).toEqual([]);
    t.clock.now += 2 * HOUR;
    expect(await runDue()).toBe(0);
    expect(await property(vid, 'lastname')).toBeUndefined();
    const log = await t.platform.services.engine.get(
      sql<[number]>('SELECT event_type, detail FROM workflow_log WHERE workflow_id = ? ORDER BY seq DESC LIMIT 1'),
      id,
    );
    expect(log).toEqual({ event_type: 'UNENROLLED', detail: 'workflow deleted' });
  });

  it('runs on its own timer once started, until stopped', async () => {
    const { workflows } = t.platform.services;
    const id = await workflow({
      actions: [{ type: 'SET_CONTACT_PROPERTY', propertyName: 'lastname', newValue: 'Timed' }],
    });
    const vid = await contact('timed@example.com');
    workflows.start(10);
    try {
      await enroll(id, 'timed@example.com');
      await vi.waitFor(async () => expect(types(await past(id, vid))[0]).toBe('COMPLETED'));
      expect(await property(vid, 'lastname')).toMatchObject({ value: 'Timed' });
    } finally {
      await workflows.stop();
    }
  });
});
