/** The legacy Node client for the real API (npm `hubspot` 2.x), unchanged, pointed at the platform
 * with its `baseUrl` option: its methods whose routes are in the spec work against it, and
 * `apiRequest` reaches the rest. What the spec itself forbids (an API key outside the content
 * API, §5.2) is asserted as a refusal. The client adds its own query parameters and headers to
 * every call, as it does against the real API. */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type TestPlatform } from './harness';

// The client's JavaScript without its typings: they are .ts sources that do not compile under this
// repository's settings (and lag the code, e.g. campaigns.getById). Its calls resolve to the body.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type LegacyClient = any;
const Hubspot: new (options: object) => LegacyClient = createRequire(import.meta.url)('hubspot');

let t: TestPlatform;
let client: LegacyClient;
beforeAll(async () => {
  // Neither the platform's budget nor the client's own pacing is what is tested: the client's
  // Bottleneck limiter (its documented `limiter` option) keeps its two calls at a time, without
  // the 111 ms it waits by default between calls (9 a second, which made this file 8 s).
  t = await startPlatform({ rateLimit: { max: 1000, windowMs: 10_000 } });
  const { clientId, clientSecret, refreshToken } = t.portals[0].oauth;
  client = new Hubspot({
    baseUrl: t.baseUrl,
    clientId,
    clientSecret,
    refreshToken,
    redirectUri: 'https://app.example/callback',
    limiter: { minTime: 0 },
  });
  // The client's own OAuth helper gets the access token (POST /oauth/v1/token) and keeps it.
  const token = await client.refreshAccessToken();
  expect(token).toMatchObject({ access_token: expect.stringMatching(/^svc-at-/), expires_in: 1800 });
});
afterAll(() => t.close());

/** The error the client rejects with: request-promise's, with the status and the parsed body. */
async function refusal(p: Promise<unknown>) {
  const err = (await p.then(
    () => expect.fail('expected a refusal'),
    (e: unknown) => e,
  )) as { statusCode: number; error: { message: string; category?: string } };
  return { status: err.statusCode, message: err.error.message, category: err.error.category };
}

const value = (contact: { properties: Record<string, { value: string }> }, name: string) =>
  contact.properties[name]?.value;

describe('contacts', () => {
  it('creates, reads in every way, updates, searches, lists recent and deletes', async () => {
    const ada = await client.contacts.create({
      properties: [
        { property: 'email', value: 'ada@legacy.test' },
        { property: 'firstname', value: 'Ada' },
      ],
    });
    expect(ada).toMatchObject({ vid: expect.any(Number), 'portal-id': 62515 });
    expect(value(ada, 'firstname')).toBe('Ada');
    const bob = await client.contacts.createOrUpdate('bob@legacy.test', {
      properties: [{ property: 'firstname', value: 'Bob' }],
    });
    expect(bob).toEqual({ vid: expect.any(Number), isNew: true });
    expect(
      await client.contacts.createOrUpdate('bob@legacy.test', {
        properties: [{ property: 'lastname', value: 'Byte' }],
      }),
    ).toEqual({ vid: bob.vid, isNew: false });

    expect(value(await client.contacts.getById(ada.vid), 'email')).toBe('ada@legacy.test');
    const byEmail = await client.contacts.getByEmail('bob@legacy.test');
    expect([byEmail.vid, value(byEmail, 'firstname'), value(byEmail, 'lastname')]).toEqual([bob.vid, 'Bob', 'Byte']);
    // The batch reads send `?vid=1&vid=2` (and `?email=`) to the path without a trailing slash.
    const byIds = await client.contacts.getByIdBatch([ada.vid, bob.vid]);
    expect(Object.keys(byIds).sort()).toEqual([String(ada.vid), String(bob.vid)].sort());
    expect(value(byIds[ada.vid], 'firstname')).toBe('Ada');
    const byEmails = await client.contacts.getByEmailBatch(['ada@legacy.test', 'bob@legacy.test']);
    expect(value(byEmails[bob.vid], 'email')).toBe('bob@legacy.test');

    t.clock.now += 1000;
    await client.contacts.update(ada.vid, { properties: [{ property: 'lastname', value: 'Lovelace' }] });
    expect(value(await client.contacts.getById(ada.vid), 'lastname')).toBe('Lovelace');

    const found = await client.contacts.search('lovelace');
    expect(found).toMatchObject({ query: 'lovelace', total: 1 });
    expect(found.contacts.map((c: { vid: number }) => c.vid)).toEqual([ada.vid]);

    const all = await client.contacts.get({ count: 100, property: ['email', 'lastname'] });
    expect(all.contacts.map((c: { vid: number }) => c.vid)).toEqual(expect.arrayContaining([ada.vid, bob.vid]));
    expect(
      value(
        all.contacts.find((c: { vid: number }) => c.vid == ada.vid),
        'lastname',
      ),
    ).toBe('Lovelace');
    // Newest first: Bob was created after Ada; Ada was updated last.
    const created = await client.contacts.getRecentlyCreated({ count: 2 });
    expect(created.contacts.map((c: { vid: number }) => c.vid)).toEqual([bob.vid, ada.vid]);
    const modified = await client.contacts.getRecentlyModified({ count: 1 });
    expect(modified.contacts[0].vid).toBe(ada.vid);

    expect(await client.contacts.delete(bob.vid)).toEqual({ vid: bob.vid, deleted: true, reason: 'OK' });
    expect(await refusal(client.contacts.getById(bob.vid))).toMatchObject({ status: 404 });
  });

  it('reads contact properties through apiRequest (the client calls /properties/v1/contacts/..., not in the spec)', async () => {
    const properties = await client.apiRequest({ path: '/contacts/v1/properties' });
    expect(properties.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['email', 'firstname', 'lastname']),
    );
    const created = await client.apiRequest({
      method: 'PUT',
      path: '/contacts/v1/properties/shoe_size',
      body: {
        name: 'shoe_size',
        label: 'Shoe size',
        type: 'number',
        fieldType: 'number',
        groupName: 'contactinformation',
      },
    });
    expect(created).toMatchObject({ name: 'shoe_size', type: 'number' });
    expect(await refusal(client.contacts.properties.getAll())).toEqual({
      status: 404,
      message: 'no route for GET /properties/v1/contacts/properties',
      category: undefined,
    });
  });
});

describe('lists', () => {
  it('creates a static list, adds, reads and removes contacts, deletes it', async () => {
    const { vid } = await client.contacts.create({ properties: [{ property: 'email', value: 'cy@legacy.test' }] });
    const list = await client.lists.create({ name: 'Legacy list' });
    expect(list).toMatchObject({ listId: expect.any(Number), name: 'Legacy list', dynamic: false });
    expect((await client.lists.getOne(list.listId)).name).toBe('Legacy list');
    const lists = await client.lists.get({ count: 250 });
    expect(lists.lists.map((l: { listId: number }) => l.listId)).toContain(list.listId);
    expect((await client.lists.getByIdBatch([list.listId])).lists.map((l: { name: string }) => l.name)).toEqual([
      'Legacy list',
    ]);

    expect(await client.lists.addContacts(list.listId, { vids: [vid] })).toEqual({
      updated: [vid],
      discarded: [],
      invalidVids: [],
      invalidEmails: [],
    });
    const members = await client.lists.getContacts(list.listId, { count: 10 });
    expect(members.contacts.map((c: { vid: number }) => c.vid)).toEqual([vid]);
    expect((await client.lists.getRecentContacts(list.listId)).contacts.map((c: { vid: number }) => c.vid)).toEqual([
      vid,
    ]);
    expect(await client.lists.removeContacts(list.listId, { vids: [vid] })).toMatchObject({ updated: [vid] });
    expect((await client.lists.getContacts(list.listId)).contacts).toEqual([]);

    await client.lists.delete(list.listId);
    expect(await refusal(client.lists.getOne(list.listId))).toMatchObject({ status: 404 });
  });
});

describe('email', () => {
  it('unsubscribes and subscribes addresses, and reads the change events of the campaign they land in', async () => {
    expect(await client.subscriptions.unsubscribe('dee@legacy.test')).toEqual({ status: 'ok' });
    const status = await client.apiRequest({ path: '/email/public/v1/subscriptions/dee@legacy.test' });
    expect(status).toMatchObject({ subscribed: false, unsubscribeFromPortal: true });
    expect(await client.subscriptions.subscribeToAll('eve@legacy.test')).toEqual({ status: 'ok' });
    expect(await client.apiRequest({ path: '/email/public/v1/subscriptions/eve@legacy.test' })).toMatchObject({
      subscribed: true,
    });

    const { campaigns } = await client.campaigns.get({ limit: 100 });
    const changes = campaigns.find((c: { appName: string }) => c.appName == 'Subscriptions');
    expect(changes).toMatchObject({ id: expect.any(Number), lastUpdatedTime: expect.any(Number) });
    expect(await client.campaigns.getOne(changes.id)).toMatchObject({ id: changes.id, counters: { statuschange: 1 } }); // Eve's subscribing changed nothing.
    const events = await client.apiRequest({
      path: `/email/public/v1/campaigns/${changes.id}/events`,
      qs: { recipient: 'dee@legacy.test' },
    });
    expect(events.events).toMatchObject([
      { type: 'STATUSCHANGE', recipient: 'dee@legacy.test', emailCampaignId: changes.id },
    ]);

    // The client's getById lists every campaign (/campaigns/by-id); its events() reads the
    // portal's events across campaigns (/email/public/v1/events), filtered like a campaign's.
    const all = await client.campaigns.getById({ limit: 100 });
    expect(all).toMatchObject({ hasMore: false, campaigns: campaigns });
    const portalWide = await client.campaigns.events({ eventType: 'STATUSCHANGE', recipient: 'dee@legacy.test' });
    expect(portalWide).toMatchObject({
      hasMore: false,
      events: [
        { id: events.events[0].id, type: 'STATUSCHANGE', emailCampaignId: changes.id, appName: 'Subscriptions' },
      ],
    });
    expect(
      (await client.campaigns.events({ campaignId: changes.id, limit: 1 })).events.map((e: { id: string }) => e.id),
    ).toEqual([events.events[0].id]);
    expect(await refusal(client.campaigns.events({ campaignId: 1 }))).toMatchObject({ status: 404 });
    const other = await t.call('GET', '/email/public/v1/events', { portal: t.portals[1] });
    expect(other.json).toEqual({ events: [], hasMore: false, offset: '' });

    // Its subscriptions.get reads /subscriptions/timeline, which is not in the spec: the path is
    // the spec's status of an address, and `timeline` is not one.
    expect(await refusal(client.subscriptions.get())).toMatchObject({
      status: 400,
      message: 'path.email_address: must be an email address',
    });
  });
});

describe('workflows', () => {
  it('enrolls and unenrolls a contact by email and lists its current workflows (v2 routes; the rest through apiRequest)', async () => {
    const { vid } = await client.contacts.create({ properties: [{ property: 'email', value: 'flo@legacy.test' }] });
    const workflow = await client.apiRequest({
      method: 'POST',
      path: '/automation/v2/workflows',
      body: { name: 'Legacy flow', enabled: true, actions: [{ type: 'DELAY', delayMillis: 3_600_000 }] },
    });
    expect(workflow).toMatchObject({ id: expect.any(Number), name: 'Legacy flow' });
    expect((await client.apiRequest({ path: `/automation/v2/workflows/${workflow.id}` })).name).toBe('Legacy flow');

    await client.workflows.enroll(workflow.id, 'flo@legacy.test');
    expect((await client.workflows.current(vid)).map((w: { id: number }) => w.id)).toEqual([workflow.id]);
    await client.workflows.unenroll(workflow.id, 'flo@legacy.test');
    expect(await client.workflows.current(vid)).toEqual([]);
    // The client's get/getAll/create/delete call /automation/v3, a newer API than the spec's.
    expect(await refusal(client.workflows.get(workflow.id))).toMatchObject({
      status: 404,
      message: `no route for GET /automation/v3/workflows/${workflow.id}`,
    });
  });
});

describe('content, social and forms', () => {
  it('lists content pages, with the query parameters the client adds', async () => {
    const page = await client.apiRequest({
      method: 'POST',
      path: '/content/api/v2/pages',
      body: { name: 'Legacy landing' },
    });
    const listed = await client.pages.get({ name: 'Legacy landing', portalId: 62515 });
    expect(listed).toMatchObject({ total: 1, objects: [{ id: page.id, name: 'Legacy landing' }] });
    // A filter on a field that does not exist stays an error naming it.
    expect(await refusal(client.pages.get({ foo__eq: 1 }))).toMatchObject({
      status: 400,
      message: 'query.foo__eq: unknown field foo',
    });
  });

  it('lists broadcasts', async () => {
    const [channel] = await client.apiRequest({ path: '/broadcast/v1/channels/setting/publish/current' });
    const created = await client.apiRequest({
      method: 'POST',
      path: '/broadcast/v1/broadcasts',
      body: { channelGuid: channel.channelGuid, content: { body: 'Hello from the legacy client' } },
    });
    const listed = await client.broadcasts.get({ count: 10 });
    expect(listed.map((b: { broadcastGuid: string }) => b.broadcastGuid)).toContain(created.broadcastGuid);
    expect(listed.find((b: { broadcastGuid: string }) => b.broadcastGuid == created.broadcastGuid).content.body).toBe(
      'Hello from the legacy client',
    );
  });

  it('reads forms and submits one to {forms_url} through apiRequest (the client targets /forms/v2 and the v3 submission host)', async () => {
    const forms = await client.apiRequest({ path: '/contacts/v1/forms' });
    const form = await client.apiRequest({
      method: 'POST',
      path: '/contacts/v1/forms',
      body: { name: 'Legacy form', fields: [{ name: 'email' }, { name: 'firstname' }] },
    });
    expect(form).toMatchObject({ guid: expect.any(String), name: 'Legacy form' });
    expect((await client.apiRequest({ path: '/contacts/v1/forms' })).length).toBe(forms.length + 1);
    // The client sends its bearer token to the public submission route too: ignored there.
    await client.apiRequest({
      method: 'POST',
      overlapUrl: `${t.formsUrl}/uploads/form/v2/62515/${form.guid}`,
      form: { email: 'gus@legacy.test', firstname: 'Gus' },
    });
    const gus = await client.contacts.getByEmail('gus@legacy.test');
    expect(value(gus, 'firstname')).toBe('Gus');
    expect(gus['form-submissions']).toMatchObject([{ 'form-id': form.guid }]);
  });

  it('posts the legacy hs_context through apiRequest: read as svc_context, the visitor linked, a malformed hutk costing nothing', async () => {
    const form = await client.apiRequest({
      method: 'POST',
      path: '/contacts/v1/forms',
      body: { name: 'Legacy context', fields: [{ name: 'email' }] },
    });
    const hutk = '4c'.repeat(16);
    const hsContext = JSON.stringify({ hutk, pageUrl: 'https://legacy.test/contact', pageName: 'Contact' });
    await client.apiRequest({
      method: 'POST',
      overlapUrl: `${t.formsUrl}/uploads/form/v2/62515/${form.guid}`,
      form: { email: 'ctx@legacy.test', hs_context: hsContext },
    });
    const contact = await client.contacts.getByEmail('ctx@legacy.test');
    expect(contact['form-submissions']).toMatchObject([
      { 'page-url': 'https://legacy.test/contact', 'page-title': 'Contact' },
    ]);
    expect((await client.apiRequest({ path: `/contacts/v1/contact/utk/${hutk}/profile` })).vid).toBe(contact.vid);
    // Whatever a legacy cookie held: the answers are kept.
    await client.apiRequest({
      method: 'POST',
      overlapUrl: `${t.formsUrl}/uploads/form/v2/62515/${form.guid}`,
      form: { email: 'odd@legacy.test', hs_context: JSON.stringify({ hutk: 'ABC-not-a-token' }) },
    });
    expect((await client.contacts.getByEmail('odd@legacy.test')).vid).toEqual(expect.any(Number));
  });
});

describe('apiRequest for the rest of the spec', () => {
  it('settings (JSON and urlencoded), keywords, prospects, record limits and server-side events', async () => {
    await client.apiRequest({ method: 'POST', path: '/settings/v1/settings', body: { name: 'theme', value: 'dark' } });
    await client.apiRequest({ method: 'PUT', path: '/settings/v1/settings', form: { name: 'locale', value: 'en-GB' } });
    expect(await client.apiRequest({ path: '/settings/v1/settings' })).toEqual([
      { name: 'locale', value: 'en-GB' },
      { name: 'theme', value: 'dark' },
    ]);

    const { keywords } = await client.apiRequest({
      method: 'PUT',
      path: '/keywords/v1/keywords.json',
      body: { keyword: 'legacy' },
    });
    expect((await client.apiRequest({ path: `/keywords/v1/keywords/${keywords[0].keyword_guid}.json` })).keyword).toBe(
      'legacy',
    );

    await client.apiRequest({ method: 'POST', path: '/prospects/v1/filters', form: { organization: 'Globex' } });
    expect(await client.apiRequest({ path: '/prospects/v1/filters' })).toEqual([{ organization: 'Globex' }]);
    await client.apiRequest({ method: 'DELETE', path: '/prospects/v1/filters', qs: { organization: 'Globex' } });
    expect(await client.apiRequest({ path: '/prospects/v1/filters' })).toEqual([]);

    const limits = await client.apiRequest({ path: '/crm/v3/limits/records' });
    expect(
      limits.svcDefinedObjectTypes.find((r: { objectTypeId: string }) => r.objectTypeId == '0-1').usage,
    ).toBeGreaterThan(0);

    await client.apiRequest({
      method: 'POST',
      path: '/v1/event',
      body: { eventName: 'legacy-signup', email: 'ada@legacy.test', value: 3 },
    });
    expect(value(await client.contacts.getByEmail('ada@legacy.test'), 'svc_analytics_revenue')).toBe('3');
  });
});

describe('an API key (`apiKey`, sent as ?hapikey=)', () => {
  it('works on the content API v2 and is refused elsewhere, as §5.2 says', async () => {
    const keyed = new Hubspot({ baseUrl: t.baseUrl, apiKey: t.portals[0].apiKey });
    const pages = await keyed.pages.get({ name: 'Legacy landing' });
    expect(pages.objects.map((p: { name: string }) => p.name)).toEqual(['Legacy landing']);
    expect(await refusal(keyed.contacts.get())).toEqual({
      status: 401,
      message: 'This endpoint does not accept the hapikey parameter; use an OAuth or private-app access token.',
      category: 'INVALID_AUTHENTICATION',
    });
  });
});
