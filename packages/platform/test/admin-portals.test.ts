/** The admin API's door and its portals, over HTTP against the real platform: no route answers
 * without the admin key, a portal's credential is refused by name, portals made through it are
 * isolated from each other, and delete and reset do what they say. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../src/seed';
import { PORTAL_TABLES, CREDENTIAL_TABLES } from '../src/store/portal-removal';
import { fetchJson, sqliteOf, startPlatform, TEST_ENGINE, type TestPlatform } from './harness';

const KEY = 'admin-key-for-the-tests';
let t: TestPlatform;
beforeAll(async () => {
  t = await startPlatform({ adminKey: KEY });
});
afterAll(() => t.close());

const admin = (method: string, path: string, body?: unknown, key: string | null = KEY) =>
  fetchJson(`${t.baseUrl}/_admin${path}`, { method, body, headers: key ? { authorization: `Bearer ${key}` } : {} });
const as = (token: string) => ({ authorization: `Bearer ${token}` });

describe('the admin door', () => {
  it('is off without an admin key', async () => {
    const off = await startPlatform({ portals: [] });
    try {
      const res = await fetchJson(`${off.baseUrl}/_admin/portals`, { headers: { authorization: `Bearer ${KEY}` } });
      expect(res.status).toBe(404);
      expect(off.platform.adminKey).toBeUndefined();
    } finally {
      await off.close();
    }
  });

  it('answers nothing without the key, and names a portal credential sent instead', async () => {
    for (const path of ['/portals', '/portals/62515/reset', '/nothing']) {
      const none = await admin('GET', path, undefined, null);
      expect(none.status).toBe(401);
      expect(none.json.message).toMatch(/Authorization: Bearer <admin key>/);
      const wrong = await admin('GET', path, undefined, 'not-the-admin-key-at-all');
      expect([wrong.status, wrong.json.message]).toEqual([401, 'the admin key is wrong']);
    }
    const [p] = t.portals;
    for (const token of [p.privateAppToken, p.apiKey]) {
      const res = await admin('GET', '/portals', undefined, token);
      expect(res.status).toBe(403);
      expect(res.json.message).toMatch(/portal 62515's \w+ credential, not the admin key/);
      expect(res.text).not.toContain(token);
    }
    const query = await fetchJson(`${t.baseUrl}/_admin/portals?hapikey=${p.apiKey}`);
    expect(query.status).toBe(403);
    expect(query.json.status).toBe('error');
    const basic = await admin('GET', '/portals', undefined, null);
    expect(basic.json).toMatchObject({ status: 'error', correlationId: expect.any(String) });
    // Not a bearer at all.
    const odd = await fetchJson(`${t.baseUrl}/_admin/portals`, { headers: { authorization: `Basic ${KEY}` } });
    expect(odd.status).toBe(401);
  });

  it('refuses a short admin key', async () => {
    await expect(startPlatform({ adminKey: 'short' })).rejects.toThrow(/at least 16 characters/);
  });
});

describe('portals', () => {
  it('makes portals that answer their credentials and never see each other', async () => {
    const a = await admin('POST', '/portals', { name: 'Site A', tier: 'professional' });
    expect(a.status).toBe(201);
    expect(Object.keys(a.json).sort()).toEqual(['apiKey', 'oauth', 'portalId', 'privateAppToken']);
    expect(Object.keys(a.json.oauth).sort()).toEqual(['clientId', 'clientSecret', 'refreshToken']);
    const b = await admin('POST', '/portals', { portalId: 4242 });
    expect(b.json.portalId).toBe(4242);
    expect((await admin('POST', '/portals', { portalId: 4242 })).status).toBe(409);

    const made = await t.call('POST', '/contacts/v1/contact', {
      portal: null,
      headers: as(a.json.privateAppToken),
      body: { properties: [{ property: 'email', value: 'ada@a.test' }] },
    });
    expect(made.status).toBe(200);
    const vid = made.json.vid;
    const fromB = await t.call('GET', `/contacts/v1/contact/vid/${vid}/profile`, {
      portal: null,
      headers: as(b.json.privateAppToken),
    });
    expect(fromB.status).toBe(404);
    const byEmailB = await t.call('GET', '/contacts/v1/contact/email/ada@a.test/profile', {
      portal: null,
      headers: as(b.json.privateAppToken),
    });
    expect(byEmailB.status).toBe(404);
    const fromA = await t.call('GET', `/contacts/v1/contact/vid/${vid}/profile`, {
      portal: null,
      headers: as(a.json.privateAppToken),
    });
    expect(fromA.status).toBe(200);
    // The API key and the OAuth refresh work too.
    const viaKey = await t.call('GET', `/content/api/v2/blog-posts?hapikey=${a.json.apiKey}`, { portal: null });
    expect(viaKey.status).toBe(200);
    const refreshed = await t.call('POST', '/auth/v1/refresh', {
      portal: null,
      body: `grant_type=refresh_token&client_id=${a.json.oauth.clientId}&client_secret=${a.json.oauth.clientSecret}&refresh_token=${a.json.oauth.refreshToken}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.json.portal_id).toBe(a.json.portalId);

    const list = await admin('GET', '/portals');
    expect(list.json.portals.map((p: { portalId: number }) => p.portalId)).toEqual(
      expect.arrayContaining([62515, 99999, 4242, a.json.portalId]),
    );
    expect(list.json.portals.find((p: { portalId: number }) => p.portalId == a.json.portalId)).toMatchObject({
      name: 'Site A',
      tier: 'professional',
    });
  });

  it('deletes a portal with everything of it', async () => {
    const p = (await admin('POST', '/portals', {})).json;
    const made = await t.call('POST', '/contacts/v1/contact', {
      portal: null,
      headers: as(p.privateAppToken),
      body: { properties: [{ property: 'email', value: 'gone@p.test' }] },
    });
    expect(made.status).toBe(200);
    expect((await admin('DELETE', `/portals/${p.portalId}`)).status).toBe(204);
    const after = await t.call('GET', '/contacts/v1/lists/all/contacts/all', {
      portal: null,
      headers: as(p.privateAppToken),
    });
    expect(after.status).toBe(401);
    expect((await admin('DELETE', `/portals/${p.portalId}`)).status).toBe(404);
    const ids = (await admin('GET', '/portals')).json.portals.map((r: { portalId: number }) => r.portalId);
    expect(ids).not.toContain(p.portalId);
    // The id can be made again, from nothing.
    const again = await admin('POST', '/portals', { portalId: p.portalId });
    expect(again.status).toBe(201);
    const empty = await t.call('GET', '/contacts/v1/contact/email/gone@p.test/profile', {
      portal: null,
      headers: as(again.json.privateAppToken),
    });
    expect(empty.status).toBe(404);
  });

  it('resets a portal to its fresh state, its credentials still working', async () => {
    const p = (await admin('POST', '/portals', { name: 'Reset me' })).json;
    const auth = as(p.privateAppToken);
    const fresh = await t.call('GET', '/contacts/v1/properties', { portal: null, headers: auth });
    await t.call('POST', '/contacts/v1/properties', {
      portal: null,
      headers: auth,
      body: {
        name: 'shoe_size',
        label: 'Shoe size',
        groupName: 'contactinformation',
        type: 'string',
        fieldType: 'text',
      },
    });
    await t.call('POST', '/contacts/v1/contact', {
      portal: null,
      headers: auth,
      body: { properties: [{ property: 'email', value: 'x@reset.test' }] },
    });
    const reset = await admin('POST', `/portals/${p.portalId}/reset`);
    expect(reset.status).toBe(200);
    expect(reset.json).toMatchObject({ portalId: p.portalId, name: 'Reset me', credentialsKept: true });
    const contact = await t.call('GET', '/contacts/v1/contact/email/x@reset.test/profile', {
      portal: null,
      headers: auth,
    });
    expect(contact.status).toBe(404);
    const props = await t.call('GET', '/contacts/v1/properties', { portal: null, headers: auth });
    expect(props.status).toBe(200);
    expect(props.json.map((x: { name: string }) => x.name).sort()).toEqual(
      fresh.json.map((x: { name: string }) => x.name).sort(),
    );
    expect((await admin('POST', '/portals/123456789/reset')).status).toBe(404);
  });

  it('answers bad input with a 4xx naming the problem', async () => {
    const cases: [string, string, unknown, number, RegExp][] = [
      ['POST', '/portals', { portalId: -1 }, 400, /body\.portalId/],
      ['POST', '/portals', { portalId: 'abc' }, 400, /body\.portalId/],
      ['POST', '/portals', { tier: 'gold' }, 400, /body\.tier/],
      ['POST', '/portals', { name: '' }, 400, /body\.name/],
      ['POST', '/portals', { colour: 'red' }, 400, /colour/],
      ['POST', '/portals', '{not json', 400, /not valid JSON/],
      ['POST', '/portals', [1, 2], 400, /body/],
      ['DELETE', '/portals/abc', undefined, 400, /path\.id/],
      ['POST', '/portals/0/reset', undefined, 400, /path\.id/],
      ['PUT', '/portals', undefined, 405, /PUT is not allowed on \/_admin\/portals; use GET or POST/],
      ['GET', '/portals/1/reset', undefined, 405, /use POST/],
      ['GET', '/nothing-here', undefined, 404, /no admin route for GET \/_admin\/nothing-here/],
    ];
    for (const [method, path, body, status, message] of cases) {
      const res = await admin(method, path, body);
      expect([method, path, res.status]).toEqual([method, path, status]);
      expect(res.json.message).toMatch(message);
    }
  });
});

describe('the demo portal', () => {
  it('gets its demo data back on reset', async () => {
    const demo = await startPlatform({ portals: [], adminKey: KEY });
    try {
      const creds = (await seedDemo(demo.platform.services))!;
      const auth = { authorization: `Bearer ${creds.privateAppToken}` };
      const forms = async () =>
        (await demo.call('GET', '/contacts/v1/forms', { portal: null, headers: auth })).json.map(
          (f: { name: string }) => f.name,
        );
      const before = await forms();
      expect(before).toEqual(['Contact us', 'Newsletter sign-up']);
      await demo.call('POST', '/contacts/v1/forms', { portal: null, headers: auth, body: { name: 'Extra' } });
      const reset = await fetchJson(`${demo.baseUrl}/_admin/portals/62515/reset`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}` },
      });
      expect(reset.status).toBe(200);
      expect(await forms()).toEqual(before);
    } finally {
      await demo.close();
    }
  });
});

describe('the table list', () => {
  it.runIf(TEST_ENGINE == 'sqlite')('names every table with a portal_id', () => {
    const db = sqliteOf(t);
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
      .all()
      .map((r) => (r as { name: string }).name)
      .filter((name) =>
        db
          .prepare(`PRAGMA table_info(${name})`)
          .all()
          .some((c) => (c as { name: string }).name == 'portal_id'),
      );
    expect(tables.filter((n) => ![...PORTAL_TABLES, ...CREDENTIAL_TABLES].includes(n))).toEqual([]);
  });
});

describe('the OpenAPI document', () => {
  it('lists every admin route with its input schema, behind the key', async () => {
    expect((await admin('GET', '/openapi.json', undefined, null)).status).toBe(401);
    const doc = (await admin('GET', '/openapi.json')).json;
    expect(doc.openapi).toBe('3.1.0');
    for (const [path, method] of [
      ['/portals', 'post'],
      ['/portals/{id}/reset', 'post'],
      ['/faults', 'post'],
      ['/faults/{id}', 'delete'],
      ['/journal/count', 'get'],
      ['/outbox/tokens', 'delete'],
    ])
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    expect(doc.paths['/faults'].post.requestBody.content['application/json'].schema.properties).toHaveProperty(
      'latencyMs',
    );
    expect(doc.paths['/journal'].get.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['route', 'portalId', 'status', 'limit']),
    );
  });
});
