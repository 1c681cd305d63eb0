/** The admin surface's clock over real HTTP (`GET|POST /_admin/clock`): everything that depends on
 * time follows it, and an advance runs what fell due before it answers: a workflow's two-day
 * delay, a post scheduled for next week, a 30-minute OAuth token (refreshed by @svc/client), a
 * failed webhook's retry, a rate-limit window. The jobs' own timers keep running meanwhile, as they
 * do under `svc-platform exec`. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from '@svc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchJson, startPlatform, type TestPlatform } from './harness';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const ADMIN_KEY = 'admin-key-for-the-clock-tests';

let t: TestPlatform;
let receiver: Server;
let hookUrl: string;
/** Calls the receiver got, by path; `/flaky` answers 500 to its first call, then 200. */
const hits: string[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    req.resume().on('end', () => {
      hits.push(req.url!);
      res.writeHead(req.url == '/flaky' && hits.filter((h) => h == '/flaky').length == 1 ? 500 : 200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  t = await startPlatform({ adminKey: ADMIN_KEY, rateLimit: { max: 40, windowMs: 10_000 } });
});
afterAll(async () => {
  await t?.close();
  await new Promise((r) => (receiver.closeAllConnections(), receiver.close(r)));
});

const admin = (method: string, body?: unknown, key: string | null = ADMIN_KEY) =>
  fetchJson(`${t.baseUrl}/_admin/clock`, { method, body, headers: key ? { authorization: `Bearer ${key}` } : {} });
const advance = async (advanceMs: number) => {
  const res = await admin('POST', { advanceMs });
  expect(res.status, res.text).toBe(200);
  return res.json as { now: number; iso: string; stops: number };
};
const now = async () => (await admin('GET')).json.now as number;

async function contact(email: string) {
  const res = await t.call('POST', '/contacts/v1/contact', {
    body: { properties: [{ property: 'email', value: email }] },
  });
  expect(res.status, res.text).toBe(200);
  return res.json.vid as number;
}
async function enrolledIn(actions: unknown[], email: string) {
  const made = await t.call('POST', '/automation/v2/workflows', { body: { name: `flow ${email}`, actions } });
  expect(made.status, made.text).toBe(200);
  const vid = await contact(email);
  const enrolled = await t.call('POST', `/automation/v2/workflows/${made.json.id}/enrollments/contacts/${email}`);
  expect(enrolled.status, enrolled.text).toBe(204);
  return { id: made.json.id as number, vid };
}
const logOf = async (id: number, vid: number) =>
  (
    (await t.call('GET', `/automation/v2/workflows/${id}/logevents/contacts/${vid}/past`)).json as {
      eventType: string;
    }[]
  ).map((e) => e.eventType);
const property = async (vid: number, name: string) =>
  (await t.call('GET', `/contacts/v1/contact/vid/${vid}/profile`)).json.properties[name]?.value as string | undefined;

describe('the clock controls', () => {
  it('answers the time in ms and ISO, and only with the admin key', async () => {
    const res = await admin('GET');
    expect(res.status).toBe(200);
    expect(new Date(res.json.now).toISOString()).toBe(res.json.iso);
    expect((await admin('GET', undefined, null)).status).toBe(401);
    expect((await admin('GET', undefined, 'wrong')).status).toBe(401);
    // A portal's token is named as such (admin/guard.ts).
    expect((await admin('GET', undefined, t.portals[0].privateAppToken)).status).toBe(403);
  });

  it('are in the admin OpenAPI document, with the snapshots', async () => {
    const doc = (
      await fetchJson(`${t.baseUrl}/_admin/openapi.json`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })
    ).json;
    for (const [path, method] of [
      ['/clock', 'get'],
      ['/clock', 'post'],
      ['/snapshot', 'get'],
      ['/snapshot', 'put'],
    ])
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    expect(JSON.stringify(doc.paths['/clock'].post.requestBody)).toContain('advanceMs');
  });

  it('refuses what it cannot do with a 400 naming the problem, and never goes backwards', async () => {
    const before = await now();
    const cases: [unknown, RegExp][] = [
      [{}, /one of advanceMs and now/],
      [{ advanceMs: 1, now: before + 5 }, /one of advanceMs and now/],
      [{ advanceMs: -1 }, /advanceMs must be a whole number/],
      [{ advanceMs: '60000' }, /advanceMs must be a whole number/],
      [{ now: 'tomorrow' }, /now must be milliseconds since the epoch or an ISO 8601 time/],
      [{ now: before - DAY }, /never goes backwards/],
      [{ now: new Date(before - DAY).toISOString() }, /never goes backwards/],
      [{ later: 1 }, /unknown field later/],
      [[1], /JSON object/],
    ];
    for (const [body, message] of cases) {
      const res = await admin('POST', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.message).toMatch(message);
    }
    const notJson = await fetchJson(`${t.baseUrl}/_admin/clock`, {
      method: 'POST',
      body: '{"advanceMs":',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
    });
    expect(notJson.status).toBe(400);
    expect(await now()).toBe(before);
  });

  it('sets the time from ms or ISO, and the platform writes with it', async () => {
    const target = (await now()) + 3 * DAY;
    const set = await admin('POST', { now: new Date(target).toISOString() });
    expect(set.status).toBe(200);
    expect(set.json.now).toBe(target);
    const vid = await contact('set-clock@example.com');
    expect(Number(await property(vid, 'createdate'))).toBe(target);
  });
});

describe('what follows the clock', () => {
  it('completes a workflow with a two-day delay once the clock is advanced two days', async () => {
    const { id, vid } = await enrolledIn(
      [
        { type: 'DELAY', delayMillis: 2 * DAY },
        { type: 'SET_CONTACT_PROPERTY', propertyName: 'firstname', newValue: 'Later' },
      ],
      'delayed@example.com',
    );
    await advance(0); // the first step (the delay) starts now
    await advance(DAY);
    expect(await property(vid, 'firstname')).toBeUndefined();
    const moved = await advance(DAY);
    expect(moved.stops).toBeGreaterThanOrEqual(1);
    expect(await property(vid, 'firstname')).toBe('Later');
    expect(await logOf(id, vid)).toContain('COMPLETED');
  });

  it('publishes a post scheduled for next week when the clock gets there', async () => {
    const blogId = (await t.call('GET', '/content/api/v2/blogs')).json.objects[0].id as number;
    const at = (await now()) + 7 * DAY;
    const made = await t.call('POST', '/content/api/v2/blog-posts', {
      body: { name: 'Next week', content_group_id: blogId, publish_immediately: false, publish_date: at },
    });
    expect(made.status, made.text).toBe(201);
    const post = `/content/api/v2/blog-posts/${made.json.id}`;
    expect((await t.call('POST', `${post}/publish-action`, { body: { action: 'schedule-publish' } })).status).toBe(204);
    expect((await t.call('GET', post)).json.state).toBe('SCHEDULED');
    await advance(7 * DAY - MINUTE);
    expect((await t.call('GET', post)).json.state).toBe('SCHEDULED');
    await advance(MINUTE);
    expect((await t.call('GET', post)).json).toMatchObject({ state: 'PUBLISHED', publish_date: at });
  });

  it('refuses a 30-minute OAuth token 31 minutes on, and @svc/client refreshes it and goes on', async () => {
    const { oauth } = t.portals[0];
    const refreshes: unknown[] = [];
    const client = createClient({
      baseUrl: t.baseUrl,
      formsUrl: t.formsUrl,
      auth: { oauth },
      onRefresh: (e) => refreshes.push(e),
    });
    const granted = await t.call('POST', '/auth/v1/refresh', {
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        client_id: oauth.clientId,
        client_secret: oauth.clientSecret,
        refresh_token: oauth.refreshToken,
      }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      portal: null,
    });
    expect(granted.json.expires_in).toBe(1800);
    const bearer = { authorization: `Bearer ${granted.json.access_token}` };
    await client.contacts.statistics();
    expect(refreshes).toHaveLength(1);
    expect((await t.call('GET', '/contacts/v1/contacts/statistics', { portal: null, headers: bearer })).status).toBe(
      200,
    );
    await advance(31 * MINUTE);
    const refused = await t.call('GET', '/contacts/v1/contacts/statistics', { portal: null, headers: bearer });
    expect(refused.status).toBe(401);
    expect(refused.json.category).toBe('EXPIRED_AUTHENTICATION');
    // The client's own clock says its token is good: the platform's 401 makes it refresh once.
    await client.contacts.statistics();
    expect(refreshes).toHaveLength(2);
  });

  it("fires a failed webhook's retry on advance, and the workflow completes", async () => {
    const { id, vid } = await enrolledIn([{ type: 'WEBHOOK', url: `${hookUrl}/flaky` }], 'hooked@example.com');
    await advance(0); // the step runs: the first attempt is answered 500
    expect(hits.filter((h) => h == '/flaky')).toHaveLength(1);
    expect(await logOf(id, vid)).toContain('WEBHOOK_RETRY');
    await advance(MINUTE); // the first retry is 15–30 s later
    expect(hits.filter((h) => h == '/flaky')).toHaveLength(2);
    expect(await logOf(id, vid)).toEqual(expect.arrayContaining(['WEBHOOK', 'COMPLETED']));
  });

  it('rolls the rate-limit window with the clock', async () => {
    await advance(MINUTE); // a fresh window
    let status = 200;
    let calls = 0;
    while (status == 200 && calls < 100) {
      status = (await t.call('GET', '/contacts/v1/contacts/statistics')).status;
      calls++;
    }
    expect(status).toBe(429);
    expect((await t.call('GET', '/contacts/v1/contacts/statistics')).status).toBe(429);
    await advance(10_000);
    expect((await t.call('GET', '/contacts/v1/contacts/statistics')).status).toBe(200);
  });
});
