import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
beforeAll(async () => {
  t = await startPlatform({ rateLimit: { max: 1_000_000, windowMs: 10_000 } }); // more than 100 calls in a few seconds
});
afterAll(() => t.close());

const props = (o: Record<string, string | number | boolean>) => ({
  properties: Object.entries(o).map(([property, value]) => ({ property, value })),
});
const create = async (o: Record<string, string>) =>
  (await t.call('POST', '/contacts/v1/contact', { body: props(o) })).json.vid as number;

describe('contact writes', () => {
  it('updates with 204, keeps history with sources, and 404s an unknown vid', async () => {
    const vid = await create({ email: 'grace@navy.test', firstname: 'Grace' });
    t.clock.now += 1000;
    expect(
      (
        await t.call('POST', `/contacts/v1/contact/vid/${vid}/profile`, {
          body: props({ firstname: 'Amazing Grace', numemployees: '25-50' }),
        })
      ).status,
    ).toBe(204);
    const p = (await t.call('GET', `/contacts/v1/contact/vid/${vid}/profile`)).json.properties;
    expect(p.firstname.value).toBe('Amazing Grace');
    expect(p.firstname.versions.map((v: { value: string }) => v.value)).toEqual(['Amazing Grace', 'Grace']);
    expect(
      (await t.call('POST', '/contacts/v1/contact/vid/999999/profile', { body: props({ firstname: 'x' }) })).status,
    ).toBe(404);
    const onlyValues = (
      await t.call('GET', `/contacts/v1/contact/vid/${vid}/profile?propertyMode=value_only&property=firstname`)
    ).json.properties;
    expect(onlyValues).toEqual({ firstname: { value: 'Amazing Grace' } });
  });

  it('validates values against property types', async () => {
    const vid = await create({ email: 'types@x.test' });
    const res = await t.call('POST', `/contacts/v1/contact/vid/${vid}/profile`, {
      body: props({ numemployees: 'lots', nope: 'x', createdate: '1', lifecyclestage: 'lead;customer' }),
    });
    expect(res.status).toBe(400);
    expect(res.json.validationResults.map((r: { name: string; error: string }) => [r.name, r.error])).toEqual([
      ['numemployees', 'INVALID_OPTION'],
      ['nope', 'PROPERTY_DOESNT_EXIST'],
      ['createdate', 'READ_ONLY_VALUE'],
    ]);
    // Nothing was half-written.
    const after = (await t.call('GET', `/contacts/v1/contact/vid/${vid}/profile`)).json.properties;
    expect(after.numemployees).toBeUndefined();
  });

  it('reads and writes only a contact’s own property values: names that are also object built-ins (toString, constructor) are plain names', async () => {
    const vid = await create({ email: 'builtins@x.test' });
    for (const path of ['/contacts/v1/lists/all/contacts/all', '/contacts/v1/lists/recently_updated/contacts/recent']) {
      const res = await t.call('GET', `${path}?property=toString&property=constructor&property=email`);
      expect(res.status, res.text.slice(0, 300)).toBe(200);
      const mine = res.json.contacts.find((c: { vid: number }) => c.vid == vid);
      expect(Object.keys(mine.properties)).toEqual(['email']);
    }
    // A custom property may be called `constructor`: it is stored and read like any other.
    const made = await t.call('PUT', '/contacts/v1/properties/constructor', {
      body: {
        name: 'constructor',
        label: 'Builder',
        groupName: 'contactinformation',
        type: 'string',
        fieldType: 'text',
      },
    });
    expect(made.status, made.text).toBe(200);
    expect(
      Object.hasOwn((await t.call('GET', `/contacts/v1/contact/vid/${vid}/profile`)).json.properties, 'constructor'),
    ).toBe(false);
    expect(
      (await t.call('POST', `/contacts/v1/contact/vid/${vid}/profile`, { body: props({ constructor: 'Bob' }) })).status,
    ).toBe(204);
    expect((await t.call('GET', `/contacts/v1/contact/vid/${vid}/profile`)).json.properties.constructor.value).toBe(
      'Bob',
    );
  });

  it('createOrUpdate answers {vid, isNew}, and 400 for an invalid email', async () => {
    const a = await t.call('POST', '/contacts/v1/contact/createOrUpdate/email/linus@kernel.test', {
      body: props({ firstname: 'Linus' }),
    });
    expect(a.json).toEqual({ vid: expect.any(Number), isNew: true });
    const b = await t.call('POST', '/contacts/v1/contact/createOrUpdate/email/LINUS@kernel.test', {
      body: props({ lastname: 'T' }),
    });
    expect(b.json).toEqual({ vid: a.json.vid, isNew: false });
    const bad = await t.call('POST', '/contacts/v1/contact/createOrUpdate/email/not_an_email', { body: props({}) });
    expect(bad.status).toBe(400);
    expect(bad.json.validationResults[0]).toMatchObject({
      error: 'INVALID_EMAIL',
      message: 'Email address not_an_email is invalid',
    });
    // Changing the email to one another contact owns is a conflict.
    await create({ email: 'taken@kernel.test' });
    const clash = await t.call('POST', '/contacts/v1/contact/createOrUpdate/email/linus@kernel.test', {
      body: props({ email: 'taken@kernel.test' }),
    });
    expect(clash.status).toBe(409);
  });

  it('batch upserts all or nothing with 202', async () => {
    const vid = await create({ email: 'batch0@x.test' });
    const ok = await t.call('POST', '/contacts/v1/contact/batch/', {
      body: [
        { vid, properties: [{ property: 'firstname', value: 'Zero' }] },
        { email: 'batch1@x.test', properties: [{ property: 'firstname', value: 'One' }] },
      ],
    });
    expect(ok.status).toBe(202);
    expect(
      (await t.call('GET', '/contacts/v1/contact/email/batch1@x.test/profile')).json.properties.firstname.value,
    ).toBe('One');
    const bad = await t.call('POST', '/contacts/v1/contact/batch/', {
      body: [
        { email: 'batch2@x.test', properties: [] },
        { email: 'broken', properties: [] },
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toBe('item 1: Email address broken is invalid');
    expect((await t.call('GET', '/contacts/v1/contact/email/batch2@x.test/profile')).status).toBe(404);
    expect((await t.call('POST', '/contacts/v1/contact/batch/', { body: [] })).status).toBe(400);
  });

  it('deletes: gone from reads and statistics', async () => {
    const before = (await t.call('GET', '/contacts/v1/contacts/statistics')).json.contacts;
    const vid = await create({ email: 'gone@x.test' });
    expect((await t.call('DELETE', `/contacts/v1/contact/vid/${vid}`)).json).toEqual({
      vid,
      deleted: true,
      reason: 'OK',
    });
    expect((await t.call('GET', `/contacts/v1/contact/vid/${vid}/profile`)).status).toBe(404);
    expect((await t.call('DELETE', `/contacts/v1/contact/vid/${vid}`)).status).toBe(404);
    expect((await t.call('GET', '/contacts/v1/contacts/statistics')).json.contacts).toBe(before);
    // The email is free again.
    expect((await t.call('POST', '/contacts/v1/contact', { body: props({ email: 'gone@x.test' }) })).status).toBe(200);
  });
});

describe('contact reads', () => {
  it('batch reads by vids, emails and utks, ignoring unknown ones', async () => {
    const a = await create({ email: 'ba@x.test', firstname: 'A' });
    const b = await create({ email: 'bb@x.test', firstname: 'B' });
    await t.platform.services.write((db) => t.platform.services.visitors.link(db, 62515, 'f'.repeat(32), a));
    const byVid = await t.call('GET', `/contacts/v1/contact/vids/batch/${a},${b},424242?vid=${b}`);
    expect(Object.keys(byVid.json).sort()).toEqual([String(a), String(b)].sort());
    expect(byVid.json[a].properties.firstname).toEqual({ value: 'A' });
    const byEmail = await t.call('GET', '/contacts/v1/contact/emails/batch/ba@x.test,nobody@x.test');
    expect(Object.keys(byEmail.json)).toEqual([String(a)]);
    const byUtk = await t.call('GET', `/contacts/v1/contact/utks/batch/${'f'.repeat(32)},${'0'.repeat(32)}`);
    expect(Object.keys(byUtk.json)).toEqual(['f'.repeat(32)]);
    expect((await t.call('GET', '/contacts/v1/contact/vids/batch/x1')).status).toBe(400);
  });

  it('batch reads by emails on the vids path too, as the spec lists it ("group by emails"), telling them apart by their values', async () => {
    const a = await create({ email: 'va@x.test', firstname: 'VA' });
    const b = await create({ email: 'vb@x.test', firstname: 'VB' });
    const c = await create({ email: 'vc@x.test' });
    // Keyed by vid, the same answer as emails/batch; unknown addresses left out, case ignored.
    const byEmail = await t.call(
      'GET',
      '/contacts/v1/contact/vids/batch/va@x.test,VB@x.test,nobody@x.test?property=firstname',
    );
    expect(byEmail.status).toBe(200);
    expect(Object.keys(byEmail.json).sort()).toEqual([String(a), String(b)].sort());
    expect(byEmail.json[b].properties).toEqual({ firstname: { value: 'VB' } });
    expect(byEmail.json).toEqual(
      (await t.call('GET', '/contacts/v1/contact/emails/batch/va@x.test,VB@x.test,nobody@x.test?property=firstname'))
        .json,
    );
    // The comma encoded, as clients send a list in one path segment; `vid`s in the query add to it.
    const encoded = await t.call(
      'GET',
      `/contacts/v1/contact/vids/batch/${encodeURIComponent('va@x.test,vb@x.test')}?vid=${c}`,
    );
    expect(Object.keys(encoded.json).sort()).toEqual([String(a), String(b), String(c)].sort());
    // Vids as before.
    expect(Object.keys((await t.call('GET', `/contacts/v1/contact/vids/batch/${a},${c}`)).json).sort()).toEqual(
      [String(a), String(c)].sort(),
    );

    // A mix, or an item that is neither, is a 400 naming the item; as is a list over 100.
    const refused = async (list: string, message: string) => {
      const res = await t.call('GET', `/contacts/v1/contact/vids/batch/${list}`);
      expect(res.status, list).toBe(400);
      expect(res.json).toMatchObject({ status: 'error', message });
    };
    await refused(
      `${a},va@x.test`,
      'path.contact_ids.1: is an email address, but item 0 is a vid: give all vids or all email addresses',
    );
    await refused(
      `va@x.test,vb@x.test,${b}`,
      'path.contact_ids.2: is a vid, but item 0 is an email address: give all vids or all email addresses',
    );
    await refused('va@x.test,nobody', 'path.contact_ids.1: must be a vid (a positive integer) or an email address');
    await refused('va@x', 'path.contact_ids.0: must be a vid (a positive integer) or an email address');
    await refused('-1', 'path.contact_ids.0: must be a vid (a positive integer) or an email address');
    const many = await t.call(
      'GET',
      `/contacts/v1/contact/vids/batch/${Array.from({ length: 101 }, (_, i) => `m${i}@x.test`).join(',')}`,
    );
    expect(many.status).toBe(400);
    expect(many.json.message).toMatch(/^path\.contact_ids: /);
  });

  it('batch reads with the keys only in the query string, as the legacy clients send them', async () => {
    const a = await create({ email: 'qa@x.test', firstname: 'QA' });
    const b = await create({ email: 'qb@x.test' });
    await t.platform.services.write((db) => t.platform.services.visitors.link(db, 62515, 'c'.repeat(32), b));
    const byVid = await t.call('GET', `/contacts/v1/contact/vids/batch/?vid=${a}&vid=${b}&vid=424242`);
    expect(Object.keys(byVid.json).sort()).toEqual([String(a), String(b)].sort());
    expect(byVid.json[a].properties.firstname).toEqual({ value: 'QA' });
    const byEmail = await t.call(
      'GET',
      '/contacts/v1/contact/emails/batch/?email=qa@x.test&email=qb@x.test&email=nobody@x.test',
    );
    expect(Object.keys(byEmail.json).sort()).toEqual([String(a), String(b)].sort());
    const byUtk = await t.call('GET', `/contacts/v1/contact/utks/batch/?utk=${'c'.repeat(32)}&utk=${'0'.repeat(32)}`);
    expect(Object.keys(byUtk.json)).toEqual(['c'.repeat(32)]);
    expect((await t.call('GET', '/contacts/v1/contact/vids/batch/?vid=x1')).json.message).toBe(
      'query.vid.0: must be a positive integer',
    );
  });

  it('finds by utk with the LEAD_GUID identity, 404 otherwise', async () => {
    const vid = await create({ email: 'visitor@x.test' });
    await t.platform.services.write((db) => t.platform.services.visitors.link(db, 62515, 'e'.repeat(32), vid));
    const res = await t.call('GET', `/contacts/v1/contact/utk/${'e'.repeat(32)}/profile`);
    expect(res.json['identity-profiles'][0].identities.map((i: { type: string }) => i.type)).toEqual([
      'EMAIL',
      'LEAD_GUID',
    ]);
    expect((await t.call('GET', `/contacts/v1/contact/utk/${'d'.repeat(32)}/profile`)).status).toBe(404);
  });

  it('searches by name, email and company with offset paging', async () => {
    for (const [first, last, company] of [
      ['Ada', 'Lovelace', 'Engines'],
      ['Adam', 'Smith', 'Markets'],
      ['Bob', 'Adams', 'Acme'],
    ])
      await create({ email: `${first.toLowerCase()}@search.test`, firstname: first, lastname: last, company });
    const res = await t.call('GET', '/contacts/v1/search/query?q=ada&count=2');
    expect(res.json).toMatchObject({ query: 'ada', offset: 2, 'has-more': true, total: 3 });
    const next = await t.call('GET', '/contacts/v1/search/query?q=ada&count=2&offset=2');
    expect(next.json).toMatchObject({ offset: 3, 'has-more': false });
    expect((await t.call('GET', '/contacts/v1/search/query?q=Ada Lovelace')).json.total).toBe(1);
    expect((await t.call('GET', '/contacts/v1/search/query?q=@search.test')).json.total).toBe(3);
    expect((await t.call('GET', '/contacts/v1/search/query?q=100%_')).json.total).toBe(0);
    expect((await t.call('GET', '/contacts/v1/search/query')).json.message).toBe('query.q: is required');
  });

  it('sorts search results by a property with sort and order (DESC by default; numbers as numbers; no value last)', async () => {
    const seats = { label: 'Seats', groupName: 'contactinformation', type: 'number', fieldType: 'number' };
    expect((await t.call('PUT', '/contacts/v1/properties/seats', { body: seats })).status).toBe(200);
    for (const [first, n] of [
      ['Sortb', '9'],
      ['Sorta', '100'],
      ['Sortc', ''],
    ])
      await create({ email: `${first.toLowerCase()}@sort.test`, firstname: first, ...(n && { seats: n }) });
    const names = async (query: string) => {
      const res = await t.call('GET', `/contacts/v1/search/query?q=@sort.test&property=firstname&${query}`);
      expect(res.status, res.text).toBe(200);
      return res.json.contacts.map(
        (c: { properties: { firstname: { value: string } } }) => c.properties.firstname.value,
      );
    };
    expect(await names('sort=firstname')).toEqual(['Sortc', 'Sortb', 'Sorta']);
    expect(await names('sort=firstname&order=ASC')).toEqual(['Sorta', 'Sortb', 'Sortc']);
    expect(await names('sort=seats&order=ASC')).toEqual(['Sortb', 'Sorta', 'Sortc']);
    expect(await names('sort=seats&order=DESC')).toEqual(['Sorta', 'Sortb', 'Sortc']);
    expect(await names('sort=firstname&order=ASC&count=1&offset=1')).toEqual(['Sortb']);
    const unknown = await t.call('GET', '/contacts/v1/search/query?q=@sort.test&sort=shoe_size');
    expect([unknown.status, unknown.json.message]).toEqual([400, "query.sort: 'shoe_size' is not a contact property"]);
    expect((await t.call('GET', '/contacts/v1/search/query?q=@sort.test&sort=firstname&order=UP')).status).toBe(400);
  });

  it('sorts by a property that became a number after it held text: the values that are not numbers sort as none', async () => {
    const plan = { label: 'Plan', groupName: 'contactinformation', type: 'string', fieldType: 'text' };
    expect((await t.call('PUT', '/contacts/v1/properties/plan', { body: plan })).status).toBe(200);
    for (const [first, value] of [
      ['Gold', 'gold'],
      ['Twelve', '12'],
      ['Half', '-0.5'],
      ['Spaced', ' 3e1 '],
      ['Dashed', '1-2'],
    ])
      await create({ email: `${first.toLowerCase()}@retyped.test`, firstname: first, plan: value });
    expect(
      (await t.call('POST', '/contacts/v1/properties/plan', { body: { type: 'number', fieldType: 'number' } })).status,
    ).toBe(200);
    const names = async (order: string) => {
      const res = await t.call('GET', `/contacts/v1/search/query?q=@retyped.test&sort=plan&order=${order}`);
      expect(res.status, res.text).toBe(200);
      return res.json.contacts.map(
        (c: { properties: { firstname: { value: string } } }) => c.properties.firstname.value,
      );
    };
    // 'gold' is no number on either engine; '1-2' is none on PostgreSQL and 1 on SQLite (its CAST
    // reads the leading number): either way it sorts among the others without failing.
    const asc = await names('ASC');
    expect(asc.filter((n: string) => n != 'Dashed')).toEqual(['Half', 'Twelve', 'Spaced', 'Gold']);
    expect((await names('DESC')).filter((n: string) => n != 'Dashed')).toEqual(['Spaced', 'Twelve', 'Half', 'Gold']);
  });

  it('lists recently updated contacts newest first with time and vid offsets', async () => {
    const vids: number[] = [];
    for (let i = 0; i < 3; i++) {
      t.clock.now += 1000;
      vids.push(await create({ email: `recent${i}@x.test` }));
    }
    const page = await t.call('GET', '/contacts/v1/lists/recently_updated/contacts/recent?count=2');
    expect(page.json.contacts.map((c: { vid: number }) => c.vid)).toEqual([vids[2], vids[1]]);
    expect(page.json['has-more']).toBe(true);
    const next = await t.call(
      'GET',
      `/contacts/v1/lists/recently_updated/contacts/recent?count=2&timeOffset=${page.json['time-offset']}&vidOffset=${page.json['vid-offset']}`,
    );
    expect(next.json.contacts[0].vid).toBe(vids[0]);
    expect(next.json.contacts[0].addedAt).toBe(page.json.contacts[1].addedAt - 1000);
  });

  it('lists recently created contacts newest first (an update does not move a contact), paged with time and vid offsets', async () => {
    const vids: number[] = [];
    for (let i = 0; i < 3; i++) {
      t.clock.now += 1000;
      vids.push(await create({ email: `created${i}@x.test` }));
    }
    t.clock.now += 1000;
    expect(
      (await t.call('POST', `/contacts/v1/contact/vid/${vids[0]}/profile`, { body: props({ firstname: 'Later' }) }))
        .status,
    ).toBe(204);
    const page = await t.call('GET', '/contacts/v1/lists/all/contacts/recent?count=2&property=email');
    expect(page.status, page.text).toBe(200);
    expect(page.json.contacts.map((c: { vid: number }) => c.vid)).toEqual([vids[2], vids[1]]);
    expect(page.json.contacts[0].properties).toEqual({ email: { value: 'created2@x.test' } });
    expect(page.json).toMatchObject({
      'has-more': true,
      'vid-offset': vids[1],
      'time-offset': page.json.contacts[1].addedAt,
    });
    const next = await t.call(
      'GET',
      `/contacts/v1/lists/all/contacts/recent?count=2&timeOffset=${page.json['time-offset']}&vidOffset=${page.json['vid-offset']}`,
    );
    expect(next.json.contacts[0].vid).toBe(vids[0]);
    expect(next.json.contacts[0].addedAt).toBe(page.json.contacts[1].addedAt - 1000);
    // A timeOffset alone starts at contacts created at that time or earlier.
    const byTime = await t.call(
      'GET',
      `/contacts/v1/lists/all/contacts/recent?count=1&timeOffset=${page.json.contacts[1].addedAt}`,
    );
    expect(byTime.json.contacts[0].vid).toBe(vids[1]);
  });
});
