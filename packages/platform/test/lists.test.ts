import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../src/db/engine';
import { startPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
beforeAll(async () => {
  // The third portal is for the listing tests; the rate limit is not under test here.
  t = await startPlatform({
    portals: [{ id: 62515 }, { id: 99999 }, { id: 77777 }],
    rateLimit: { max: 10_000, windowMs: 10_000 },
  });
});
afterAll(() => t.close());

const props = (o: Record<string, string>) => ({
  properties: Object.entries(o).map(([property, value]) => ({ property, value })),
});
const createContact = async (o: Record<string, string>) =>
  (await t.call('POST', '/contacts/v1/contact', { body: props(o) })).json.vid as number;
const createList = async (body: object) => (await t.call('POST', '/contacts/v1/lists', { body })).json;
/** The vids of a list's contacts, first page. */
const memberVids = async (listId: number) =>
  (await t.call('GET', `/contacts/v1/lists/${listId}/contacts/all?count=100`)).json.contacts.map(
    (c: { vid: number }) => c.vid,
  );

describe('lists', () => {
  it('creates, reads, updates and deletes a static list', async () => {
    const created = await t.call('POST', '/contacts/v1/lists', { body: { name: 'Static one', portal_id: null } });
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({
      portalId: 62515,
      name: 'Static one',
      dynamic: false,
      listType: 'STATIC',
      archived: false,
      filters: [],
      metaData: { processing: 'DONE', size: 0, error: '', lastSizeChangeAt: 0 },
    });
    const { listId, internalListId } = created.json;
    expect((await t.call('GET', `/contacts/v1/lists/${listId}`)).json).toEqual(created.json);

    t.clock.now += 1000;
    const updated = await t.call('POST', `/contacts/v1/lists/${listId}`, { body: { name: 'Renamed' } });
    expect(updated.json).toMatchObject({
      listId,
      internalListId,
      name: 'Renamed',
      updatedAt: created.json.updatedAt + 1000,
    });

    expect((await t.call('DELETE', `/contacts/v1/lists/${listId}`)).status).toBe(204);
    const gone = await t.call('GET', `/contacts/v1/lists/${listId}`);
    expect(gone.status).toBe(404);
    expect(gone.json.message).toBe(`Couldn't find a List with the given id '${listId}'.`);
    expect((await t.call('DELETE', `/contacts/v1/lists/${listId}`)).status).toBe(404);
  });

  it('normalises filters and gives a new internalListId when they change', async () => {
    const list = await createList({
      name: 'Dyn',
      dynamic: true,
      filters: [[{ operator: 'EQ', property: 'city', value: 'Paris', type: 'string' }]],
    });
    expect(list).toMatchObject({
      dynamic: true,
      listType: 'DYNAMIC',
      metaData: { processing: 'DONE' },
      filters: [
        [
          {
            operator: 'EQ',
            property: 'city',
            value: 'Paris',
            type: 'string',
            filterFamily: 'PropertyValue',
            withinTimeMode: 'PAST',
          },
        ],
      ],
    });
    const renamed = (await t.call('POST', `/contacts/v1/lists/${list.listId}`, { body: { name: 'Dyn 2' } })).json;
    expect(renamed.internalListId).toBe(list.internalListId);
    const refiltered = (
      await t.call('POST', `/contacts/v1/lists/${list.listId}`, {
        body: { filters: [[{ operator: 'IS_NOT_EMPTY', property: 'city' }]] },
      })
    ).json;
    expect(refiltered.internalListId).not.toBe(list.internalListId);
    expect(refiltered.filters[0][0]).toMatchObject({ operator: 'IS_NOT_EMPTY', filterFamily: 'PropertyValue' });
  });

  it('rejects a missing name, a bad operator and incomplete filters with 400', async () => {
    const noName = await t.call('POST', '/contacts/v1/lists', { body: { dynamic: false } });
    expect(noName.status).toBe(400);
    expect(noName.json.message).toMatch(/^body\.name: /);
    const blank = await t.call('POST', '/contacts/v1/lists', { body: { name: '  ' } });
    expect(blank.status).toBe(400);
    const badOperator = await t.call('POST', '/contacts/v1/lists', {
      body: { name: 'x', dynamic: true, filters: [[{ operator: 'LIKE', property: 'a', value: 'b' }]] },
    });
    expect(badOperator.status).toBe(400);
    expect(badOperator.json.message).toMatch(/^body\.filters\.0\.0\.operator: /);
    const noValue = await t.call('POST', '/contacts/v1/lists', {
      body: { name: 'x', dynamic: true, filters: [[{ operator: 'EQ', property: 'a' }]] },
    });
    expect(noValue.json.message).toBe('body.filters.0.0.value: EQ needs a value');
    const notNumber = await t.call('POST', '/contacts/v1/lists', {
      body: { name: 'x', dynamic: true, filters: [[{ operator: 'GT', property: 'a', value: 'big' }]] },
    });
    expect(notNumber.json.message).toBe('body.filters.0.0.value: GT needs a number');
    const noForm = await t.call('POST', '/contacts/v1/lists', {
      body: { name: 'x', dynamic: true, filters: [[{ operator: 'HAS_FILLED_OUT_FORM' }]] },
    });
    expect(noForm.status).toBe(400);
    const badId = await t.call('GET', '/contacts/v1/lists/abc');
    expect(badId.status).toBe(400);
  });

  it('counts a deleted member as a size change of its static lists, when it was deleted', async () => {
    const list = await createList({ name: 'Leavers' });
    const [a, b] = [
      await createContact({ email: 'leaver1@example.com' }),
      await createContact({ email: 'leaver2@example.com' }),
    ];
    const path = `/contacts/v1/lists/${list.listId}`;
    await t.call('POST', `${path}/add`, { body: { vids: [a, b] } });
    t.clock.now += 5000;
    expect((await t.call('DELETE', `/contacts/v1/contact/vid/${a}`)).status).toBe(200);
    expect((await t.call('GET', path)).json.metaData).toMatchObject({ size: 1, lastSizeChangeAt: t.clock.now });
  });

  it('adds and removes contacts of a static list, reporting each identifier', async () => {
    const list = await createList({ name: 'Members' });
    const a = await createContact({ email: 'm1@example.com', firstname: 'M1' });
    const b = await createContact({ email: 'm2@example.com' });
    const path = `/contacts/v1/lists/${list.listId}`;

    const added = await t.call('POST', `${path}/add`, {
      body: { vids: [a, 999999], emails: ['M2@example.com', 'nobody@example.com'] },
    });
    expect(added.json).toEqual({
      updated: [a, b],
      discarded: [],
      invalidVids: [999999],
      invalidEmails: ['nobody@example.com'],
    });
    const again = await t.call('POST', `${path}/add`, { body: { vids: [a], emails: ['m1@example.com'] } });
    expect(again.json).toEqual({ updated: [], discarded: [a], invalidVids: [], invalidEmails: [] });
    const read = (await t.call('GET', path)).json;
    expect(read.metaData).toMatchObject({ size: 2, lastSizeChangeAt: t.clock.now });
    // Adding a member already there changes nothing; a removal and an addition do, each when made.
    const addedAt = t.clock.now;
    t.clock.now += 1000;
    await t.call('POST', `${path}/add`, { body: { vids: [b] } });
    expect((await t.call('GET', path)).json.metaData).toMatchObject({ size: 2, lastSizeChangeAt: addedAt });

    t.clock.now += 1000;
    const removed = await t.call('POST', `${path}/remove`, { body: { vids: [a] } });
    expect(removed.json).toEqual({ updated: [a], discarded: [], invalidVids: [], invalidEmails: [] });
    expect((await t.call('GET', path)).json.metaData).toMatchObject({ size: 1, lastSizeChangeAt: t.clock.now });
    t.clock.now += 1000;
    await t.call('POST', `${path}/add`, { body: { vids: [a] } });
    expect((await t.call('GET', path)).json.metaData).toMatchObject({ size: 2, lastSizeChangeAt: t.clock.now });
    t.clock.now += 1000;
    await t.call('POST', `${path}/remove`, { body: { vids: [a] } });
    // The newest member left: the removal's time, not the remaining member's arrival.
    expect((await t.call('GET', path)).json.metaData).toMatchObject({ size: 1, lastSizeChangeAt: t.clock.now });
    const removedAgain = await t.call('POST', `${path}/remove`, { body: { emails: ['m1@example.com'] } });
    expect(removedAgain.json).toEqual({ updated: [], discarded: [a], invalidVids: [], invalidEmails: [] });
    expect(await memberVids(list.listId)).toEqual([b]);

    const empty = await t.call('POST', `${path}/add`, { body: {} });
    expect(empty.status).toBe(400);
    expect((await t.call('POST', '/contacts/v1/lists/999999/add', { body: { vids: [a] } })).status).toBe(404);
  });

  it('shows memberships on contact reads and drops them when a list or contact is deleted', async () => {
    const list = await createList({ name: 'Shown' });
    const vid = await createContact({ email: 'shown@example.com' });
    await t.call('POST', `/contacts/v1/lists/${list.listId}/add`, { body: { vids: [vid] } });
    const read = await t.call('GET', `/contacts/v1/contact/vid/${vid}/profile?showListMemberships=true`);
    expect(read.json['list-memberships']).toEqual([
      {
        'static-list-id': list.listId,
        'internal-list-id': list.internalListId,
        timestamp: t.clock.now,
        vid,
        'is-member': true,
      },
    ]);
    await t.call('DELETE', `/contacts/v1/lists/${list.listId}`);
    const after = await t.call('GET', `/contacts/v1/contact/vid/${vid}/profile?showListMemberships=true`);
    expect(after.json['list-memberships']).toEqual([]);

    const other = await createList({ name: 'Shown 2' });
    await t.call('POST', `/contacts/v1/lists/${other.listId}/add`, { body: { vids: [vid] } });
    await t.call('DELETE', `/contacts/v1/contact/vid/${vid}`);
    expect((await t.call('GET', `/contacts/v1/lists/${other.listId}`)).json.metaData.size).toBe(0);
  });

  it('refuses manual changes to a dynamic list, and refreshes with 204', async () => {
    const list = await createList({
      name: 'Auto',
      dynamic: true,
      filters: [[{ operator: 'IS_NOT_EMPTY', property: 'zip' }]],
    });
    for (const op of ['add', 'remove']) {
      const res = await t.call('POST', `/contacts/v1/lists/${list.listId}/${op}`, { body: { vids: [1] } });
      expect(res.status).toBe(400);
      expect(res.json.message).toBe('Can not operate manually on a dynamic list');
    }
    const refreshed = await t.call('POST', `/contacts/v1/lists/${list.listId}/refresh`, { body: {} });
    expect(refreshed.status).toBe(204);
    expect(refreshed.text).toBe('');
    expect((await t.call('POST', '/contacts/v1/lists/999999/refresh')).status).toBe(404);
  });
});

describe('dynamic membership', () => {
  it('follows contact creates, updates and deletes without a refresh, keeping addedAt', async () => {
    const list = await createList({
      name: 'Ada or Acme',
      dynamic: true,
      filters: [
        [{ operator: 'EQ', property: 'firstname', value: 'Ada' }],
        [{ operator: 'CONTAINS', property: 'email', value: '@ACME.com' }],
      ],
    });
    const before = await createContact({ email: 'boss@acme.com' });
    expect(await memberVids(list.listId)).toEqual([before]);

    const joinedAt = t.clock.now;
    const ada = await createContact({ email: 'ada@lovelace.org', firstname: 'ada' });
    const bob = await createContact({ email: 'bob@example.com', firstname: 'Bob' });
    expect(await memberVids(list.listId)).toEqual([before, ada]);

    t.clock.now += 5000;
    await t.call('POST', `/contacts/v1/contact/vid/${bob}/profile`, { body: props({ email: 'bob@acme.com' }) });
    await t.call('POST', `/contacts/v1/contact/vid/${ada}/profile`, { body: props({ lastname: 'Lovelace' }) });
    const all = (await t.call('GET', `/contacts/v1/lists/${list.listId}/contacts/all`)).json;
    expect(all.contacts.map((c: { vid: number; addedAt: number }) => [c.vid, c.addedAt])).toEqual([
      [before, joinedAt],
      [ada, joinedAt],
      [bob, t.clock.now],
    ]);

    await t.call('POST', `/contacts/v1/contact/vid/${ada}/profile`, { body: props({ firstname: 'Augusta' }) });
    await t.call('DELETE', `/contacts/v1/contact/vid/${before}`);
    expect(await memberVids(list.listId)).toEqual([bob]);
    expect((await t.call('GET', `/contacts/v1/lists/${list.listId}`)).json.metaData).toMatchObject({
      size: 1,
      lastSizeChangeAt: t.clock.now,
    });

    await t.call('POST', '/contacts/v1/contact/batch/', {
      body: [
        { email: 'new@acme.com', properties: [{ property: 'firstname', value: 'N' }] },
        { vid: ada, properties: [{ property: 'firstname', value: 'Ada' }] },
      ],
    });
    expect(await memberVids(list.listId)).toHaveLength(3);

    // A contact written twice in one batch is judged by its last write.
    const twice = (first: string, second: string) =>
      t.call('POST', '/contacts/v1/contact/batch/', {
        body: [first, second].map((firstname) => ({
          email: 'twice@example.org',
          properties: [{ property: 'firstname', value: firstname }],
        })),
      });
    await twice('Ada', 'Grace');
    const vid = (await t.call('GET', '/contacts/v1/contact/email/twice@example.org/profile')).json.vid;
    expect(await memberVids(list.listId)).not.toContain(vid);
    await twice('Grace', 'Ada');
    expect(await memberVids(list.listId)).toContain(vid);
  });

  it('evaluates the operators on create and update of the list', async () => {
    const a = await createContact({
      email: 'op-a@example.com',
      firstname: 'Opa',
      city: 'Paris',
      zip: '1500',
      lifecyclestage: 'lead',
    });
    const b = await createContact({
      email: 'op-b@example.com',
      firstname: 'Opb',
      city: 'Lyon',
      zip: '90',
      lifecyclestage: 'customer',
    });
    const c = await createContact({ email: 'op-c@example.com', firstname: 'Opc' });
    const only = (vids: number[]) => vids.filter((v) => [a, b, c].includes(v));
    const evaluate = async (...filters: object[]) =>
      only(
        await memberVids(
          (
            await createList({
              name: 'ops',
              dynamic: true,
              filters: [[{ operator: 'CONTAINS', property: 'email', value: 'op-' }, ...filters]],
            })
          ).listId,
        ),
      );

    expect(await evaluate({ operator: 'EQ', property: 'city', value: 'PARIS' })).toEqual([a]);
    expect(await evaluate({ operator: 'NEQ', property: 'city', value: 'paris' })).toEqual([b, c]);
    expect(await evaluate({ operator: 'CONTAINS', property: 'city', value: 'YO' })).toEqual([b]);
    expect(await evaluate({ operator: 'NOT_CONTAINS', property: 'city', value: 'yo' })).toEqual([a, c]);
    expect(await evaluate({ operator: 'IS_NOT_EMPTY', property: 'city' })).toEqual([a, b]);
    expect(await evaluate({ operator: 'IS_EMPTY', property: 'city' })).toEqual([c]);
    expect(await evaluate({ operator: 'GT', property: 'zip', value: 100, type: 'number' })).toEqual([a]);
    expect(await evaluate({ operator: 'LT', property: 'zip', value: '100' })).toEqual([b]);
    expect(await evaluate({ operator: 'SET_ANY', property: 'lifecyclestage', value: 'Customer;LEAD;other' })).toEqual([
      a,
      b,
    ]);
    // A form the portal does not have (unknown, or another portal's) is refused where it is named.
    const noForm = await t.call('POST', '/contacts/v1/lists', {
      body: { name: 'ops', dynamic: true, filters: [[{ operator: 'HAS_FILLED_OUT_FORM', form: 'no-such-form' }]] },
    });
    expect([noForm.status, noForm.json.message]).toEqual([
      404,
      'body.filters.0.0.form: no form no-such-form in this portal',
    ]);

    const list = await createList({
      name: 'switch',
      dynamic: true,
      filters: [[{ operator: 'EQ', property: 'city', value: 'Paris' }]],
    });
    const updated = await t.call('POST', `/contacts/v1/lists/${list.listId}`, {
      body: { filters: [[{ operator: 'EQ', property: 'city', value: 'Lyon' }]] },
    });
    expect(updated.json.metaData.size).toBe(1);
    expect(await memberVids(list.listId)).toEqual([b]);
  });

  it('moves a contact between lists by the properties each reads, new contacts by what they lack too, analytics counters included', async () => {
    const byCity = await createList({
      name: 'Parisians',
      dynamic: true,
      filters: [
        [
          { operator: 'CONTAINS', property: 'email', value: 'mv-' },
          { operator: 'EQ', property: 'city', value: 'Paris' },
        ],
      ],
    });
    const noPhone = await createList({
      name: 'No phone',
      dynamic: true,
      filters: [
        [
          { operator: 'CONTAINS', property: 'email', value: 'mv-' },
          { operator: 'IS_EMPTY', property: 'phone' },
        ],
      ],
    });
    const engaged = await createList({
      name: 'Engaged',
      dynamic: true,
      filters: [
        [
          { operator: 'CONTAINS', property: 'email', value: 'mv-' },
          { operator: 'GT', property: 'svc_analytics_num_page_views', value: 1 },
        ],
      ],
    });
    // New: joins the list it matches by a property it lacks.
    const vid = await createContact({ email: 'mv-1@example.com', city: 'Paris' });
    expect([
      await memberVids(byCity.listId),
      await memberVids(noPhone.listId),
      await memberVids(engaged.listId),
    ]).toEqual([[vid], [vid], []]);
    // A write of what one list reads moves it there only.
    await t.call('POST', `/contacts/v1/contact/vid/${vid}/profile`, {
      body: props({ phone: '555', lastname: 'Moved' }),
    });
    expect([await memberVids(byCity.listId), await memberVids(noPhone.listId)]).toEqual([[vid], []]);
    await t.call('POST', `/contacts/v1/contact/vid/${vid}/profile`, { body: props({ city: 'Lyon' }) });
    expect([await memberVids(byCity.listId), await memberVids(noPhone.listId)]).toEqual([[], []]);
    // Page views counted by the collector (the analytics properties) move it too.
    const vi = '9a'.repeat(16);
    const view = (n: number, i?: string) => ({
      eid: `${'0'.repeat(31)}${n}`,
      k: '1',
      a: '62515',
      v: '1',
      cts: String(t.clock.now + n),
      pu: `https://acme.test/${n}`,
      t: 'Page',
      vi,
      ...(i ? { i } : {}),
    });
    await t.call('POST', '/collect/e', {
      body: JSON.stringify([view(1, 'email=mv-1%40example.com')]),
      headers: { 'content-type': 'text/plain' },
      portal: null,
    });
    expect(await memberVids(engaged.listId)).toEqual([]);
    await t.call('POST', '/collect/e', {
      body: JSON.stringify([view(2)]),
      headers: { 'content-type': 'text/plain' },
      portal: null,
    });
    expect(await memberVids(engaged.listId)).toEqual([vid]);
    // Made and changed in one request (a batch): where its last write puts it.
    await t.call('POST', '/contacts/v1/contact/batch/', {
      body: [
        { email: 'mv-2@example.com', properties: [{ property: 'city', value: 'Paris' }] },
        { email: 'mv-2@example.com', properties: [{ property: 'phone', value: '1' }] },
      ],
    });
    const two = (await t.call('GET', '/contacts/v1/contact/email/mv-2@example.com/profile')).json.vid;
    expect([await memberVids(byCity.listId), await memberVids(noPhone.listId)]).toEqual([[two], []]);
  });

  it('matches HAS_FILLED_OUT_FORM on form submissions, picked up by refresh', async () => {
    const vid = await createContact({ email: 'former@example.com' });
    const { guid } = (
      await t.call('POST', '/contacts/v1/forms', { body: { name: 'Filtered on', fields: [{ name: 'email' }] } })
    ).json;
    const list = await createList({
      name: 'Form',
      dynamic: true,
      filters: [[{ operator: 'HAS_FILLED_OUT_FORM', form: guid }]],
    });
    expect(await memberVids(list.listId)).toEqual([]);
    // Written directly (no contact write announces it): the forms area owns the submission path.
    await t.platform.services.engine.run(
      sql<[number, string]>(
        "INSERT INTO form_submissions (conversion_id, portal_id, vid, form_guid, timestamp, values_json) VALUES ('c1', 62515, ?, ?, 1, '[]')",
      ),
      vid,
      guid,
    );
    expect((await t.call('POST', `/contacts/v1/lists/${list.listId}/refresh`)).status).toBe(204);
    expect(await memberVids(list.listId)).toEqual([vid]);
  });

  it('puts a contact in the lists of the forms it has submitted as it submits one, counting its earlier submissions', async () => {
    const form = async (name: string) =>
      (
        await t.call('POST', '/contacts/v1/forms', {
          body: { name, fields: [{ name: 'email' }, { name: 'firstname' }] },
        })
      ).json.guid as string;
    const [a, b] = [await form('Form A'), await form('Form B')];
    const submitted = (guid: string) => ({ operator: 'HAS_FILLED_OUT_FORM', form: guid });
    const lists: { listId: number }[] = [];
    // A, B, A and B, A or B.
    for (const filters of [
      [[submitted(a)]],
      [[submitted(b)]],
      [[submitted(a), submitted(b)]],
      [[submitted(a)], [submitted(b)]],
    ])
      lists.push(await createList({ name: `Submitted ${lists.length}`, dynamic: true, filters }));
    const membersOf = () => Promise.all(lists.map((l) => memberVids(l.listId)));
    // The test platform's clock stands still: each submission's date is the one before's.
    const submit = (guid: string, email: string) =>
      t.call('POST', `${t.formsUrl}/uploads/form/v2/62515/${guid}`, {
        body: new URLSearchParams({ email, firstname: 'Sub' }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        portal: null,
      });
    // A contact made through the API before it submits anything; another made by its first submission.
    const known = await createContact({ email: 'known-submitter@example.com' });
    expect((await submit(a, 'known-submitter@example.com')).status).toBe(204);
    expect((await submit(b, 'new-submitter@example.com')).status).toBe(204);
    const made = (await t.call('GET', '/contacts/v1/contact/email/new-submitter@example.com/profile')).json
      .vid as number;
    const sorted = (vids: number[]) => vids.sort((x, y) => x - y);
    expect(await membersOf()).toEqual([[known], [made], [], sorted([known, made])]);
    // The other form, and the same one again: the earlier submissions count too.
    expect((await submit(b, 'known-submitter@example.com')).status).toBe(204);
    expect((await submit(b, 'new-submitter@example.com')).status).toBe(204);
    expect(await membersOf()).toEqual([[known], sorted([known, made]), [known], sorted([known, made])]);
    for (const vid of [known, made])
      expect(
        (await t.call('GET', `/contacts/v1/contact/vid/${vid}/profile`)).json.properties.num_conversion_events.value,
      ).toBe('2');
  });

  it('turns a static list dynamic and back', async () => {
    const vid = await createContact({ email: 'turn@example.com', firstname: 'Turner' });
    const keep = await createContact({ email: 'kept@example.com' });
    const list = await createList({ name: 'Turn' });
    await t.call('POST', `/contacts/v1/lists/${list.listId}/add`, { body: { vids: [keep] } });
    const dynamic = await t.call('POST', `/contacts/v1/lists/${list.listId}`, {
      body: { dynamic: true, filters: [[{ operator: 'EQ', property: 'firstname', value: 'turner' }]] },
    });
    expect(dynamic.json).toMatchObject({ listType: 'DYNAMIC', metaData: { size: 1 } });
    expect(await memberVids(list.listId)).toEqual([vid]);
    const back = await t.call('POST', `/contacts/v1/lists/${list.listId}`, { body: { dynamic: false } });
    expect(back.json).toMatchObject({ listType: 'STATIC', filters: [], metaData: { size: 1 } });
    await t.call('POST', `/contacts/v1/contact/vid/${vid}/profile`, { body: props({ firstname: 'Other' }) });
    expect(await memberVids(list.listId)).toEqual([vid]);
  });
});

describe('listing and paging', () => {
  // A portal of its own, so other tests' lists do not count here.
  const mine = () => t.portals[2];
  const call = (path: string) => t.call('GET', path, { portal: mine() });

  it('pages lists by offset, and filters static and dynamic', async () => {
    for (let i = 0; i < 5; i++)
      await t.call('POST', '/contacts/v1/lists', { body: { name: `L${i}`, dynamic: i % 2 == 1 }, portal: mine() });
    const first = (await call('/contacts/v1/lists?count=2')).json;
    expect(first).toMatchObject({ offset: 2, 'has-more': true });
    expect(first.lists.map((l: { name: string }) => l.name)).toEqual(['L0', 'L1']);
    const last = (await call('/contacts/v1/lists?count=2&offset=4')).json;
    expect(last).toMatchObject({ offset: 5, 'has-more': false });
    expect(last.lists.map((l: { name: string }) => l.name)).toEqual(['L4']);
    expect((await call('/contacts/v1/lists')).json.lists).toHaveLength(5);

    const statics = (await call('/contacts/v1/lists/static')).json;
    expect(statics.lists.map((l: { name: string }) => l.name)).toEqual(['L0', 'L2', 'L4']);
    const dynamics = (await call('/contacts/v1/lists/dynamic?count=1')).json;
    expect(dynamics).toMatchObject({ lists: [{ name: 'L1', listType: 'DYNAMIC' }], offset: 1, 'has-more': true });
  });

  it('reads lists in batch, in request order, leaving out unknown ids', async () => {
    const ids = (await call('/contacts/v1/lists')).json.lists.map((l: { listId: number }) => l.listId);
    const batch = (await call(`/contacts/v1/lists/batch?listId=${ids[2]}&listId=424242&listId=${ids[0]}`)).json;
    expect(batch.lists.map((l: { listId: number }) => l.listId)).toEqual([ids[2], ids[0]]);
    expect((await call('/contacts/v1/lists/batch?list_id=1')).json).toEqual({ lists: [] });
  });

  it('pages contacts of a list by vid, and recent ones newest first', async () => {
    const list = (await t.call('POST', '/contacts/v1/lists', { body: { name: 'Paged' }, portal: mine() })).json;
    const vids: number[] = [];
    for (let i = 0; i < 5; i++) {
      const vid = (
        await t.call('POST', '/contacts/v1/contact', {
          body: props({ email: `pg${i}@example.com`, firstname: `Pg${i}` }),
          portal: mine(),
        })
      ).json.vid;
      t.clock.now += 10;
      // Joined in reverse vid order, so "recent" order differs from vid order.
      vids.unshift(vid);
    }
    for (const vid of vids) {
      t.clock.now += 10;
      await t.call('POST', `/contacts/v1/lists/${list.listId}/add`, { body: { vids: [vid] }, portal: mine() });
    }
    const byVid = [...vids].sort((a, b) => a - b);
    const first = (await call(`/contacts/v1/lists/${list.listId}/contacts/all?count=3&property=email`)).json;
    expect(first.contacts.map((c: { vid: number }) => c.vid)).toEqual(byVid.slice(0, 3));
    expect(first).toMatchObject({ 'has-more': true, 'vid-offset': byVid[2] });
    expect(Object.keys(first.contacts[0].properties)).toEqual(['email']);
    const second = (
      await call(`/contacts/v1/lists/${list.listId}/contacts/all?count=3&vidOffset=${first['vid-offset']}`)
    ).json;
    expect(second.contacts.map((c: { vid: number }) => c.vid)).toEqual(byVid.slice(3));
    expect(second['has-more']).toBe(false);

    const recent = (await call(`/contacts/v1/lists/${list.listId}/contacts/recent?count=2`)).json;
    expect(recent.contacts.map((c: { vid: number }) => c.vid)).toEqual([vids[4], vids[3]]);
    expect(recent).toMatchObject({
      'has-more': true,
      'vid-offset': vids[3],
      'time-offset': recent.contacts[1].addedAt,
    });
    const older = (
      await call(
        `/contacts/v1/lists/${list.listId}/contacts/recent?count=5&timeOffset=${recent['time-offset']}&vidOffset=${recent['vid-offset']}`,
      )
    ).json;
    expect(older.contacts.map((c: { vid: number }) => c.vid)).toEqual([vids[2], vids[1], vids[0]]);
    expect(older['has-more']).toBe(false);
    expect((await call('/contacts/v1/lists/999999/contacts/all')).status).toBe(404);
    expect((await call('/contacts/v1/lists/999999/contacts/recent')).status).toBe(404);
  });
});

describe('portals', () => {
  it('keeps lists, members and filters apart', async () => {
    const other = t.portals[1];
    const vid = await createContact({ email: 'owned@example.com', firstname: 'Owned' });
    const list = await createList({ name: 'Private' });
    await t.call('POST', `/contacts/v1/lists/${list.listId}/add`, { body: { vids: [vid] } });
    const path = `/contacts/v1/lists/${list.listId}`;

    expect((await t.call('GET', path, { portal: other })).status).toBe(404);
    expect((await t.call('POST', path, { body: { name: 'Mine now' }, portal: other })).status).toBe(404);
    expect((await t.call('POST', `${path}/add`, { body: { vids: [vid] }, portal: other })).status).toBe(404);
    expect((await t.call('POST', `${path}/remove`, { body: { vids: [vid] }, portal: other })).status).toBe(404);
    expect((await t.call('POST', `${path}/refresh`, { portal: other })).status).toBe(404);
    expect((await t.call('GET', `${path}/contacts/all`, { portal: other })).status).toBe(404);
    expect((await t.call('DELETE', path, { portal: other })).status).toBe(404);
    expect((await t.call('GET', `/contacts/v1/lists/batch?listId=${list.listId}`, { portal: other })).json).toEqual({
      lists: [],
    });
    expect((await t.call('GET', '/contacts/v1/lists?count=250', { portal: other })).json.lists).toEqual([]);
    expect((await t.call('GET', path)).json).toMatchObject({ name: 'Private', metaData: { size: 1 } });

    // Their own lists see none of this portal's contacts.
    const theirs = (await t.call('POST', '/contacts/v1/lists', { body: { name: 'Theirs' }, portal: other })).json;
    const added = await t.call('POST', `/contacts/v1/lists/${theirs.listId}/add`, {
      body: { vids: [vid], emails: ['owned@example.com'] },
      portal: other,
    });
    expect(added.json).toEqual({
      updated: [],
      discarded: [],
      invalidVids: [vid],
      invalidEmails: ['owned@example.com'],
    });
    const dynamic = (
      await t.call('POST', '/contacts/v1/lists', {
        body: {
          name: 'Their owned',
          dynamic: true,
          filters: [[{ operator: 'EQ', property: 'firstname', value: 'Owned' }]],
        },
        portal: other,
      })
    ).json;
    expect(dynamic.metaData.size).toBe(0);
    await t.call('POST', `/contacts/v1/contact/vid/${vid}/profile`, { body: props({ lastname: 'Again' }) });
    expect((await t.call('GET', `/contacts/v1/lists/${dynamic.listId}`, { portal: other })).json.metaData.size).toBe(0);
  });
});
