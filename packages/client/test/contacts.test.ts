/** Contacts and contact properties through the client, against the real platform over HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SvcApiError } from '../src';
import { clientFor, startTestPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
beforeAll(async () => {
  t = await startTestPlatform();
});
afterAll(() => t.close());

describe('contacts', () => {
  it('creates, reads, upserts, updates and deletes with typed inputs and outputs', async () => {
    const c = clientFor(t);
    const created = await c.contacts.create({
      properties: [
        { property: 'email', value: 'ada+test@x.test' },
        { property: 'firstname', value: 'Ada' },
      ],
    });
    expect(created.vid).toBeGreaterThan(0);
    expect(created.properties.firstname.value).toBe('Ada');

    // An email with `+` in the path: encoded, so the platform sees the same address.
    const byEmail = await c.contacts.getByEmail('ada+test@x.test', {
      property: ['firstname'],
      propertyMode: 'value_only',
    });
    expect(byEmail.vid).toBe(created.vid);
    expect(byEmail.properties).toEqual({ firstname: { value: 'Ada' } });

    const upsert = await c.contacts.createOrUpdate('grace@x.test', {
      properties: [{ property: 'firstname', value: 'Grace' }],
    });
    expect(upsert).toEqual({ vid: expect.any(Number), isNew: true });
    expect(
      (await c.contacts.createOrUpdate('grace@x.test', { properties: [{ property: 'lastname', value: 'Hopper' }] }))
        .isNew,
    ).toBe(false);

    // Bodiless success (204) resolves to undefined; numbers and booleans are accepted as values.
    expect(
      await c.contacts.update(created.vid, {
        properties: [
          { property: 'lastname', value: 'Lovelace' },
          { property: 'phone', value: 5551234 },
        ],
      }),
    ).toBeUndefined();
    const byVid = await c.contacts.getByVid(created.vid);
    expect(byVid.properties.lastname.value).toBe('Lovelace');
    expect(byVid.properties.phone.value).toBe('5551234');

    expect(await c.contacts.delete(upsert.vid)).toMatchObject({ vid: upsert.vid, deleted: true });
    await expect(c.contacts.getByVid(upsert.vid)).rejects.toMatchObject({ status: 404 });
  });

  it('reads batches by vids, emails and utks given as arrays', async () => {
    const c = clientFor(t);
    await c.contacts.batch([
      { email: 'b1@x.test', properties: [{ property: 'firstname', value: 'B1' }] },
      { email: 'b2@x.test', properties: [{ property: 'firstname', value: 'B2' }] },
    ]);
    const b1 = await c.contacts.getByEmail('b1@x.test');
    const b2 = await c.contacts.getByEmail('b2@x.test');
    const byVids = await c.contacts.getBatchByVids([b1.vid, b2.vid]);
    expect(Object.keys(byVids).sort()).toEqual([String(b1.vid), String(b2.vid)].sort());
    const byEmails = await c.contacts.getBatchByEmails(['b1@x.test', 'b2@x.test'], { property: ['firstname'] });
    expect(
      Object.values(byEmails)
        .map((x) => x.properties.firstname.value)
        .sort(),
    ).toEqual(['B1', 'B2']);
    // The spec's "group by emails" on the vids path: the same method, given addresses.
    expect(await c.contacts.getBatchByVids(['b1@x.test', 'b2@x.test'], { property: ['firstname'] })).toEqual(byEmails);
    await expect(c.contacts.getBatchByVids([b1.vid, 'b2@x.test'])).rejects.toMatchObject({ status: 400 });

    const utk = 'a'.repeat(32);
    await c.forms.submitFields(
      t.portals[0].portalId,
      (await c.forms.create({ name: 'Utk form', fields: [{ name: 'email' }] })).guid,
      { fields: { email: 'b1@x.test' }, utk },
    );
    const byUtks = await c.contacts.getBatchByUtks([utk, 'b'.repeat(32)]);
    expect(Object.keys(byUtks)).toEqual([utk]);
  });

  it('searches and counts', async () => {
    const c = clientFor(t);
    await c.contacts.create({
      properties: [
        { property: 'email', value: 'searchme@x.test' },
        { property: 'company', value: 'Findable Ltd' },
      ],
    });
    const found = await c.contacts.search({ q: 'findable' });
    expect(found.contacts.map((x) => x.properties.company?.value)).toContain('Findable Ltd');
    expect((await c.contacts.statistics()).contacts).toBeGreaterThanOrEqual(4);
  });

  it('encodes every path parameter: a utk of ../x stays one segment', async () => {
    const c = clientFor(t);
    const err: SvcApiError = await c.contacts.getByUtk('../../integrations/v1/me').catch((e) => e);
    expect(err).toBeInstanceOf(SvcApiError);
    // The platform's own 404 for this route (an unknown utk), not a climb to another route.
    expect(err.status).toBe(404);
    expect(err.message).not.toMatch(/^no route/);
    expect(err.path).toBe('/contacts/v1/contact/utk/..%2F..%2Fintegrations%2Fv1%2Fme/profile');
    for (const bad of ['..', '.', ''])
      await expect(c.contacts.getByUtk(bad)).rejects.toThrow(`path parameter contact_utk must not be "${bad}"`);
    // `?`, `#`, `%` and spaces in a value are data, not URL syntax.
    const odd = await c.contacts.getByEmail('x?y#z%20@x.test').catch((e: SvcApiError) => e);
    expect(odd).toMatchObject({ path: '/contacts/v1/contact/email/x%3Fy%23z%2520%40x.test/profile' });
  });
});

describe('properties', () => {
  it('creates, updates, reads and deletes a property and a group', async () => {
    const c = clientFor(t);
    const group = await c.properties.createGroup('shoes', { displayName: 'Shoes' });
    expect(group).toMatchObject({ name: 'shoes', displayName: 'Shoes' });
    const shoe = await c.properties.create('shoe_size', {
      label: 'Shoe size',
      groupName: 'shoes',
      type: 'number',
      fieldType: 'number',
    });
    expect(shoe).toMatchObject({ name: 'shoe_size', svcDefined: false });
    expect(
      (
        await c.properties.update('shoe_size', {
          label: 'Shoe size (EU)',
          groupName: 'shoes',
          type: 'number',
          fieldType: 'number',
        })
      ).label,
    ).toBe('Shoe size (EU)');
    expect((await c.properties.list()).map((p) => p.name)).toContain('shoe_size');
    expect(
      (await c.properties.getGroup('shoes', { includeProperties: 'true' })).properties?.map((p) => p.name),
    ).toEqual(['shoe_size']);
    await expect(
      c.properties.create('shoe_size', { label: 'Again', groupName: 'shoes', type: 'number', fieldType: 'number' }),
    ).rejects.toMatchObject({ status: 409 });
    expect(await c.properties.delete('shoe_size')).toBeUndefined();
    expect(await c.properties.deleteGroup('shoes')).toBeUndefined();
    expect(await c.deals.getPropertyGroup('dealinformation')).toMatchObject({ name: 'dealinformation' });
  });
});
