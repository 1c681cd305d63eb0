/** Keywords and settings (§4.10) over HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
beforeAll(async () => {
  t = await startPlatform({ rateLimit: { max: 1_000_000, windowMs: 10_000 } });
});
afterAll(() => t.close());

describe('keywords', () => {
  it('creates one or several, lists, searches, gets and deletes', async () => {
    const one = await t.call('PUT', '/keywords/v1/keywords.json', { body: { keyword: 'marketing api' } });
    expect(one.status).toBe(200);
    expect(one.json.keywords).toHaveLength(1);
    const k = one.json.keywords[0];
    expect(k).toMatchObject({
      keyword: 'marketing api',
      portal_id: 62515,
      created_at: t.clock.now,
      contacts: 0,
      leads: 0,
      visits: 0,
    });
    expect(k.keyword_guid).toMatch(/^[0-9a-f-]{36}$/);
    const many = await t.call('PUT', '/keywords/v1/keywords.json', {
      body: [{ keyword: 'crm' }, { keyword: 'self-hosted crm' }],
    });
    expect(many.json.keywords.map((x: { keyword: string }) => x.keyword)).toEqual(['crm', 'self-hosted crm']);

    expect((await t.call('GET', '/keywords/v1/keywords.json')).json.keywords).toHaveLength(3);
    expect(
      (await t.call('GET', '/keywords/v1/keywords.json?search=CRM')).json.keywords.map(
        (x: { keyword: string }) => x.keyword,
      ),
    ).toEqual(['crm', 'self-hosted crm']);
    expect((await t.call('GET', `/keywords/v1/keywords/${k.keyword_guid}.json`)).json).toEqual(k);
    expect((await t.call('GET', `/keywords/v1/keywords/${k.keyword_guid}.json`, { portal: t.portals[1] })).status).toBe(
      404,
    );

    expect((await t.call('DELETE', `/keywords/v1/keywords/${k.keyword_guid}`)).status).toBe(204);
    expect((await t.call('GET', `/keywords/v1/keywords/${k.keyword_guid}.json`)).status).toBe(404);
    expect((await t.call('DELETE', `/keywords/v1/keywords/${k.keyword_guid}`)).status).toBe(404);
  });

  it('refuses empty and duplicate keywords, writing nothing of a refused batch', async () => {
    expect((await t.call('PUT', '/keywords/v1/keywords.json', { body: { keyword: '  ' } })).json.message).toMatch(
      /^body\.keyword: /,
    );
    expect((await t.call('PUT', '/keywords/v1/keywords.json', { body: [] })).status).toBe(400);
    await t.call('PUT', '/keywords/v1/keywords.json', { body: { keyword: 'unique one' } });
    const dup = await t.call('PUT', '/keywords/v1/keywords.json', {
      body: [{ keyword: 'fresh' }, { keyword: 'UNIQUE ONE' }],
    });
    expect(dup.status).toBe(409);
    expect((await t.call('GET', '/keywords/v1/keywords.json?search=fresh')).json.keywords).toEqual([]);
  });
});

describe('settings', () => {
  it('creates with POST, updates with PUT, gets all or one, deletes', async () => {
    expect((await t.call('POST', '/settings/v1/settings', { body: { name: 'theme', value: 'dark' } })).status).toBe(
      204,
    );
    expect((await t.call('PUT', '/settings/v1/settings', { body: { name: 'locale', value: 'en' } })).status).toBe(204);
    expect((await t.call('PUT', '/settings/v1/settings', { body: { name: 'theme', value: 'light' } })).status).toBe(
      204,
    );
    expect((await t.call('GET', '/settings/v1/settings')).json).toEqual([
      { name: 'locale', value: 'en' },
      { name: 'theme', value: 'light' },
    ]);
    expect((await t.call('GET', '/settings/v1/settings?name=theme')).json).toEqual({ name: 'theme', value: 'light' });
    expect((await t.call('GET', '/settings/v1/settings', { portal: t.portals[1] })).json).toEqual([]);
    expect((await t.call('DELETE', '/settings/v1/settings?name=theme')).status).toBe(204);
    expect((await t.call('GET', '/settings/v1/settings?name=theme')).status).toBe(404);
    expect((await t.call('DELETE', '/settings/v1/settings?name=theme')).status).toBe(404);
  });

  it('takes the body urlencoded as well as JSON, with POST and PUT', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const portal = t.portals[1];
    expect(
      (
        await t.call('POST', '/settings/v1/settings', {
          body: 'name=greeting&value=hello+there',
          headers: form,
          portal,
        })
      ).status,
    ).toBe(204);
    expect(
      (
        await t.call('PUT', '/settings/v1/settings', {
          body: new URLSearchParams({ name: 'sign-off', value: 'Bye & thanks' }).toString(),
          headers: form,
          portal,
        })
      ).status,
    ).toBe(204);
    expect((await t.call('GET', '/settings/v1/settings', { portal })).json).toEqual([
      { name: 'greeting', value: 'hello there' },
      { name: 'sign-off', value: 'Bye & thanks' },
    ]);
    const missing = await t.call('POST', '/settings/v1/settings', { body: 'value=x', headers: form, portal });
    expect([missing.status, missing.json.message]).toEqual([400, 'body.name: is required']);
    for (const name of ['greeting', 'sign-off'])
      expect((await t.call('DELETE', `/settings/v1/settings?name=${name}`, { portal })).status).toBe(204);
  });

  it('names the missing field', async () => {
    expect((await t.call('POST', '/settings/v1/settings', { body: { value: 'x' } })).json.message).toBe(
      'body.name: is required',
    );
    expect((await t.call('PUT', '/settings/v1/settings', { body: { name: 'x', value: 3 } })).json.message).toMatch(
      /^body\.value: /,
    );
    expect((await t.call('DELETE', '/settings/v1/settings')).json.message).toBe('query.name: is required');
  });
});
