/** The client against the real platform over HTTP. */
import { inspect } from 'node:util';
import { catalog } from '@svc/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type TestPlatform } from '../../platform/test/harness';
import { createClient, MemoryTokenStore, SvcApiError } from '../src';

let t: TestPlatform;
beforeAll(async () => {
  t = await startPlatform({ rateLimit: { max: 100_000, windowMs: 10_000 } });
});
afterAll(() => t.close());

const client = () => createClient({ baseUrl: t.baseUrl, formsUrl: t.formsUrl, auth: { accessToken: t.portals[0].privateAppToken } });

describe('surface', () => {
  it('has a method for every catalog route, grouped by area', () => {
    const c = client() as unknown as Record<string, unknown>;
    const missing = Object.keys(catalog).filter((id) => typeof id.split('.').reduce<unknown>((node, k) => (node as Record<string, unknown>)?.[k], c) != 'function');
    expect(missing).toEqual([]);
  });
});

describe('calls', () => {
  it('creates and reads contacts with typed inputs and outputs', async () => {
    const c = client();
    const created = await c.contacts.create({ properties: [{ property: 'email', value: 'ada+test@x.test' }, { property: 'firstname', value: 'Ada' }] });
    expect(created.vid).toBeGreaterThan(0);
    const byEmail = await c.contacts.getByEmail('ada+test@x.test', { property: ['firstname'], propertyMode: 'value_only' });
    expect(byEmail.properties).toEqual({ firstname: { value: 'Ada' } });
    const upsert = await c.contacts.createOrUpdate('grace@x.test', { properties: [{ property: 'firstname', value: 'Grace' }] });
    expect(upsert.isNew).toBe(true);
    expect(await c.contacts.update(created.vid, { properties: [{ property: 'lastname', value: 'L' }] })).toBeUndefined();
  });

  it('encodes every path parameter: a utk of ../x stays one segment', async () => {
    const c = client();
    const err = await c.contacts.getByUtk('../../integrations/v1/me').catch((e) => e);
    expect(err).toBeInstanceOf(SvcApiError);
    expect(err.status).toBe(404);
    expect(err.path).toBe('/contacts/v1/contact/utk/..%2F..%2Fintegrations%2Fv1%2Fme/profile');
    await expect(c.contacts.getByUtk('..')).rejects.toThrow('path parameter contact_utk must not be ".."');
  });

  it('iterates paged reads with bounds', async () => {
    const c = client();
    await c.contacts.batch(Array.from({ length: 250 }, (_, i) => ({ email: `it${i}@x.test`, properties: [] })));
    const all: number[] = [];
    for await (const contact of c.contacts.all({ property: ['email'] })) all.push(contact.vid);
    expect(all.length).toBeGreaterThanOrEqual(252);
    expect(new Set(all).size).toBe(all.length);
    const bounded: number[] = [];
    for await (const contact of c.contacts.all({}, { maxItems: 150 })) bounded.push(contact.vid);
    expect(bounded).toHaveLength(150);
    let pages = 0;
    for await (const _ of c.contacts.all({ count: 10 }, { maxPages: 2 })) pages++;
    expect(pages).toBe(20);
  });

  it('submits forms to forms_url and sends server-side events', async () => {
    const c = client();
    const form = await c.forms.create({ name: 'Signup', fields: [{ name: 'email', required: true }, { name: 'firstname' }] });
    const utk = 'c'.repeat(32);
    await c.forms.submit(t.portals[0].portalId, form.guid, { email: 'form@x.test', firstname: 'Form', svc_context: JSON.stringify({ svcutk: utk }) });
    expect((await c.contacts.getByUtk(utk)).properties.firstname.value).toBe('Form');
    await c.events.send({ eventName: 'paid', email: 'form@x.test', value: 10, id: 'inv-1' });
    expect((await c.contacts.getByUtk(utk)).properties.svc_analytics_revenue.value).toBe('10');
  });
});

describe('errors', () => {
  it('carry status, category and ids, never the token', async () => {
    const token = t.portals[0].privateAppToken;
    const c = createClient({ baseUrl: t.baseUrl, auth: { accessToken: token } });
    const err: SvcApiError = await c.contacts.create({ properties: [{ property: 'email', value: 'nope' }] }).catch((e) => e);
    expect(err).toMatchObject({ status: 400, method: 'POST', path: '/contacts/v1/contact', category: 'VALIDATION_ERROR' });
    expect(err.correlationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(err.body).toMatchObject({ validationResults: [{ error: 'INVALID_EMAIL' }] });
    for (const text of [JSON.stringify(err), inspect(err), String(err), err.stack ?? '']) expect(text).not.toContain(token);
  });

  it('redacts an API key from the path and from every rendering', async () => {
    const key = t.portals[0].apiKey;
    const c = createClient({ baseUrl: t.baseUrl, auth: { apiKey: key }, retries: 0 });
    const err: SvcApiError = await c.content.blogs.list().catch((e) => e);
    expect(err.status).toBe(501);
    expect(err.path).toBe('/content/api/v2/blogs?hapikey=[redacted]');
    for (const text of [JSON.stringify(err), inspect(err), String(err), err.stack ?? '']) expect(text).not.toContain(key);
    await expect(c.contacts.statistics()).rejects.toThrow('contacts.statistics needs an OAuth or private-app token');
  });
});

describe('OAuth', () => {
  it('refreshes once for 1,000 concurrent calls, ahead of expiry, and keeps the rotated token', async () => {
    const p = t.portals[1];
    const store = new MemoryTokenStore();
    const c = createClient({
      baseUrl: t.baseUrl,
      auth: { oauth: { clientId: p.oauth.clientId, clientSecret: p.oauth.clientSecret, refreshToken: p.oauth.refreshToken, tokenStore: store } },
      rateLimit: { max: Infinity },
      concurrency: 50,
      now: () => t.clock.now,
    });
    const accessTokens = () => (t.platform.db.prepare("SELECT count(*) AS n FROM credentials WHERE kind = 'access' AND portal_id = ?").get(p.portalId) as { n: number }).n;
    const before = accessTokens();
    await Promise.all(Array.from({ length: 1000 }, () => c.contacts.statistics()));
    expect(accessTokens() - before).toBe(1);
    const first = (await store.get())!;
    expect(first.expiresAt - t.clock.now).toBeLessThanOrEqual(1800_000);
    // Within 60 s of expiry the next call refreshes first.
    t.clock.now = first.expiresAt - 30_000;
    await Promise.all(Array.from({ length: 100 }, () => c.contacts.statistics()));
    expect(accessTokens() - before).toBe(2);
  });

  it('forces one refresh and retries on EXPIRED_AUTHENTICATION', async () => {
    const p = t.portals[1];
    const store = new MemoryTokenStore();
    // A token the client believes is fresh, but the platform has expired.
    store.set({ accessToken: 'svc-at-stale', refreshToken: p.oauth.refreshToken, expiresAt: t.clock.now + 3_600_000 });
    const c = createClient({ baseUrl: t.baseUrl, auth: { oauth: { clientId: p.oauth.clientId, clientSecret: p.oauth.clientSecret, refreshToken: p.oauth.refreshToken, tokenStore: store } } });
    // svc-at-stale is unknown (INVALID, not EXPIRED): the client must not loop on it.
    await expect(c.contacts.statistics()).rejects.toMatchObject({ status: 401, category: 'INVALID_AUTHENTICATION' });
    const { issueCredential } = await import('../../platform/src/store/portals');
    const expired = issueCredential(t.platform.db, 'access', { portalId: p.portalId, now: t.clock.now, expiresAt: t.clock.now - 1000, clientId: p.oauth.clientId });
    store.set({ accessToken: expired, refreshToken: p.oauth.refreshToken, expiresAt: t.clock.now + 3_600_000 });
    const c2 = createClient({ baseUrl: t.baseUrl, auth: { oauth: { clientId: p.oauth.clientId, clientSecret: p.oauth.clientSecret, refreshToken: p.oauth.refreshToken, tokenStore: store } } });
    expect((await c2.contacts.statistics()).contacts).toBeGreaterThanOrEqual(0);
    expect((await store.get())!.accessToken).not.toBe(expired);
  });
});
