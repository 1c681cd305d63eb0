/** The request journal (filters, count, reset, its bound, no secret kept) and the outbox (emails,
 * webhooks with their attempts, OAuth tokens issued), over HTTP through the admin API. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedEmailDefaults } from '../src/store/email-seed';
import { fetchJson, startPlatform, type TestPlatform } from './harness';

const KEY = 'admin-key-for-the-journal-tests';
let t: TestPlatform;
let receiver: Server;
let hookUrl: string;
let failures = 1;
beforeAll(async () => {
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => (failures-- > 0 ? res.writeHead(500).end() : res.end('ok')));
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  t = await startPlatform({ adminKey: KEY, journalSize: 20 });
  // Workflow steps run by hand, on the moved clock.
  await t.platform.services.workflows.stop();
});
afterAll(async () => {
  await t?.close();
  await new Promise((r) => (receiver.closeAllConnections(), receiver.close(r)));
});

const admin = (method: string, path: string, body?: unknown) =>
  fetchJson(`${t.baseUrl}/_admin${path}`, { method, body, headers: { authorization: `Bearer ${KEY}` } });

describe('the journal', () => {
  it('keeps the last requests of both servers, filtered and counted, without secrets', async () => {
    expect((await admin('DELETE', '/journal')).status).toBe(204);
    const [a, b] = t.portals;
    await t.call('GET', '/contacts/v1/properties', { portal: a });
    await t.call('GET', '/contacts/v1/properties', { portal: b });
    await t.call('GET', '/contacts/v1/contact/vid/999999/profile', { portal: a });
    await t.call('GET', `/content/api/v2/blog-posts?hapikey=${a.apiKey}&limit=1`, { portal: null });
    await fetchJson(`${t.formsUrl}/uploads/form/v2/${b.portalId}/00000000-0000-4000-8000-000000000000`, {
      method: 'POST',
      body: 'email=x%40y.test',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });

    const all = (await admin('GET', '/journal')).json;
    expect(all.size).toBe(20);
    expect(all.requests).toHaveLength(5);
    expect(all.requests[0]).toMatchObject({ server: 'forms', route: 'forms.submit', portalId: b.portalId });
    const keyed = all.requests[1];
    expect(keyed).toMatchObject({ route: 'content.blogPosts.list', portalId: a.portalId, status: 200 });
    expect(keyed.path).toBe('/content/api/v2/blog-posts?hapikey=[redacted]&limit=1');
    expect(JSON.stringify(all)).not.toContain(a.apiKey);
    expect(JSON.stringify(all)).not.toContain(a.privateAppToken);
    expect(all.requests[2]).toMatchObject({ route: 'contacts.getByVid', status: 404, method: 'GET' });
    expect(typeof all.requests[2].durationMs).toBe('number');
    expect(all.requests[2].at).toBe(t.clock.now);

    const props = (await admin('GET', '/journal?route=properties.list')).json.requests;
    expect(props.map((r: { portalId: number }) => r.portalId)).toEqual([b.portalId, a.portalId]);
    expect((await admin('GET', `/journal?route=properties.list&portalId=${a.portalId}`)).json.requests).toHaveLength(1);
    expect((await admin('GET', '/journal/count?status=404')).json).toEqual({
      count: all.requests.filter((r: { status: number }) => r.status == 404).length,
    });
    expect((await admin('GET', '/journal/count?status=200')).json.count).toBeGreaterThanOrEqual(3);
    expect((await admin('GET', `/journal/count?portalId=${a.portalId}`)).json).toEqual({ count: 3 });
    expect((await admin('GET', '/journal?limit=2')).json.requests).toHaveLength(2);
    // The admin API's own calls are not in it.
    expect(all.requests.some((r: { path: string }) => r.path.startsWith('/_admin'))).toBe(false);

    expect((await admin('DELETE', '/journal')).status).toBe(204);
    expect((await admin('GET', '/journal/count')).json).toEqual({ count: 0 });
  });

  it('keeps at most journalSize requests, the newest', async () => {
    for (let i = 0; i < 25; i++) await t.call('GET', `/contacts/v1/contact/vid/${1000 + i}/profile`);
    const kept = (await admin('GET', '/journal')).json.requests;
    expect(kept).toHaveLength(20);
    expect(kept[0].path).toBe('/contacts/v1/contact/vid/1024/profile');
    expect(kept[19].path).toBe('/contacts/v1/contact/vid/1005/profile');
  });

  it('answers bad filters with a 400 naming them', async () => {
    for (const [query, field] of [
      ['route=nope', 'query.route'],
      ['portalId=abc', 'query.portalId'],
      ['status=99', 'query.status'],
      ['limit=0', 'query.limit'],
      ['colour=red', 'colour'],
    ]) {
      const res = await admin('GET', `/journal?${query}`);
      expect([query, res.status]).toEqual([query, 400]);
      expect(res.json.message).toContain(field);
      expect((await admin('GET', `/journal/count?${query}`)).status).toBe(400);
    }
  });
});

describe('the outbox', () => {
  it('shows and clears the emails workflows sent', async () => {
    const engine = t.platform.services.engine;
    await seedEmailDefaults(engine, 62515, t.clock.now);
    const campaigns = (await t.call('GET', '/email/public/v1/campaigns')).json.campaigns as { id: number }[];
    await t.call('POST', '/contacts/v1/contact', {
      body: { properties: [{ property: 'email', value: 'ada@mail.test' }] },
    });
    const wf = await t.call('POST', '/automation/v2/workflows', {
      body: { name: 'Mail', actions: [{ type: 'EMAIL', emailCampaignId: campaigns[0].id }] },
    });
    expect(wf.status).toBe(200);
    await t.call('POST', `/automation/v2/workflows/${wf.json.id}/enrollments/contacts/ada@mail.test`);
    t.clock.now += 1000;
    await t.platform.services.workflows.runDue();

    const emails = (await admin('GET', '/outbox/emails?portalId=62515')).json.emails;
    expect(emails).toHaveLength(1);
    expect(emails[0]).toMatchObject({ to: 'ada@mail.test', portalId: 62515, workflowId: wf.json.id });
    expect(typeof emails[0].text).toBe('string');
    expect((await admin('GET', '/outbox/emails?to=nobody@mail.test')).json.emails).toEqual([]);
    expect((await admin('GET', '/outbox/emails?portalId=99999')).json.emails).toEqual([]);
    expect((await admin('DELETE', '/outbox/emails?portalId=62515')).json).toEqual({ cleared: 1 });
    expect((await admin('GET', '/outbox/emails')).json.emails).toEqual([]);
  });

  it('shows the webhooks delivered with their attempts', async () => {
    const wf = await t.call('POST', '/automation/v2/workflows', {
      body: { name: 'Hook', actions: [{ type: 'WEBHOOK', url: hookUrl }] },
    });
    expect(wf.status).toBe(200);
    await t.call('POST', '/contacts/v1/contact', {
      body: { properties: [{ property: 'email', value: 'h@hook.test' }] },
    });
    await t.call('POST', `/automation/v2/workflows/${wf.json.id}/enrollments/contacts/h@hook.test`);
    t.clock.now += 1000;
    await t.platform.services.workflows.runDue(); // the first attempt: 500
    let hooks = (await admin('GET', '/outbox/webhooks?portalId=62515')).json.webhooks;
    expect(hooks).toHaveLength(1);
    expect(hooks[0]).toMatchObject({ url: hookUrl, status: 'pending', method: 'POST' });
    expect(hooks[0].attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['retry']);
    t.clock.now += 60_000;
    await t.platform.services.workflows.runDue(); // the retry: delivered
    hooks = (await admin('GET', '/outbox/webhooks?status=delivered')).json.webhooks;
    expect(hooks).toHaveLength(1);
    expect(hooks[0].attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['retry', 'delivered']);
    expect(JSON.parse(hooks[0].body)).toMatchObject({ vid: expect.any(Number) });
    expect((await admin('DELETE', '/outbox/webhooks')).json).toEqual({ cleared: 1 });
    expect((await admin('GET', '/outbox/webhooks')).json.webhooks).toEqual([]);
  });

  it('shows the OAuth tokens issued, for the admin key only', async () => {
    const { oauth, portalId } = t.portals[1];
    const form = (o: Record<string, string>) => new URLSearchParams(o).toString();
    const issued = await t.call('POST', '/oauth/v1/token', {
      portal: null,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form({
        grant_type: 'refresh_token',
        client_id: oauth.clientId,
        client_secret: oauth.clientSecret,
        refresh_token: oauth.refreshToken,
      }),
    });
    expect(issued.status).toBe(200);
    const tokens = (await admin('GET', `/outbox/tokens?portalId=${portalId}`)).json.tokens;
    expect(tokens).toHaveLength(1);
    expect(tokens[0]).toMatchObject({
      portalId,
      clientId: oauth.clientId,
      accessToken: issued.json.access_token,
      refreshToken: oauth.refreshToken,
      expiresAt: t.clock.now + 1800_000,
    });
    expect((await admin('GET', `/outbox/tokens?clientId=other`)).json.tokens).toEqual([]);
    expect((await admin('DELETE', '/outbox/tokens')).json).toEqual({ cleared: 1 });
    expect(
      (
        await fetchJson(`${t.baseUrl}/_admin/outbox/tokens`, {
          headers: { authorization: `Bearer ${issued.json.access_token}` },
        })
      ).status,
    ).toBe(403);
  });

  it('answers bad filters with a 400 naming them', async () => {
    for (const path of [
      '/outbox/emails?portalId=x',
      '/outbox/emails?limit=5000',
      '/outbox/webhooks?status=lost',
      '/outbox/tokens?portalId=-1',
      '/outbox/tokens?extra=1',
    ]) {
      const res = await admin('GET', path);
      expect([path, res.status]).toEqual([path, 400]);
      expect(res.json.message).toMatch(/^query\.|extra/);
    }
    expect((await admin('DELETE', '/outbox/emails?portalId=zero')).status).toBe(400);
  });
});
