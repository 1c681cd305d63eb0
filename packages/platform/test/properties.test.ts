import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
beforeAll(async () => {
  t = await startPlatform();
});
afterAll(() => t.close());

const shoe = {
  label: 'Shoe size',
  groupName: 'contactinformation',
  type: 'number',
  fieldType: 'number',
  formField: true,
};

describe('contact properties', () => {
  it('lists the defaults, with the platform-defined flag', async () => {
    const res = await t.call('GET', '/contacts/v1/properties');
    const email = res.json.find((p: { name: string }) => p.name == 'email');
    expect(email).toMatchObject({
      name: 'email',
      type: 'string',
      fieldType: 'text',
      groupName: 'contactinformation',
      svcDefined: true,
      readOnlyDefinition: true,
    });
    expect(res.json.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['firstname', 'lifecyclestage', 'svc_analytics_num_page_views']),
    );
  });

  it('creates, updates and deletes a custom property, and contact writes follow its type', async () => {
    const created = await t.call('PUT', '/contacts/v1/properties/shoe_size', { body: shoe });
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({
      name: 'shoe_size',
      svcDefined: false,
      deleted: false,
      readOnlyValue: false,
      displayMode: 'current_value',
    });
    expect((await t.call('PUT', '/contacts/v1/properties/shoe_size', { body: shoe })).status).toBe(409);

    const ok = await t.call('POST', '/contacts/v1/contact', {
      body: {
        properties: [
          { property: 'email', value: 's@x.test' },
          { property: 'shoe_size', value: 42 },
        ],
      },
    });
    expect(ok.json.properties.shoe_size.value).toBe('42');
    const bad = await t.call('POST', '/contacts/v1/contact', {
      body: {
        properties: [
          { property: 'email', value: 's2@x.test' },
          { property: 'shoe_size', value: 'big' },
        ],
      },
    });
    expect(bad.json.validationResults[0]).toMatchObject({ name: 'shoe_size', error: 'INVALID_NUMBER' });

    const updated = await t.call('POST', '/contacts/v1/properties/shoe_size', { body: { label: 'Shoe size (EU)' } });
    expect(updated.json.label).toBe('Shoe size (EU)');
    expect((await t.call('DELETE', '/contacts/v1/properties/shoe_size')).status).toBe(204);
    const gone = await t.call('DELETE', '/contacts/v1/properties/shoe_size');
    expect(gone.status).toBe(404);
    expect(gone.json.message).toBe("Couldn't find a Property with the given name 'shoe_size'");
  });

  it('deleting a property removes its values from contacts and its conditions from list filters; created again, it starts empty', async () => {
    const tier = { label: 'Tier', groupName: 'contactinformation', type: 'string', fieldType: 'text' };
    expect((await t.call('PUT', '/contacts/v1/properties/tier_level', { body: tier })).status).toBe(200);
    const made = await t.call('POST', '/contacts/v1/contact', {
      body: {
        properties: [
          { property: 'email', value: 'tier@x.test' },
          { property: 'tier_level', value: 'gold' },
          { property: 'city', value: 'Oslo' },
        ],
      },
    });
    const vid = made.json.vid;
    const list = await t.call('POST', '/contacts/v1/lists', {
      body: {
        name: 'Gold in Oslo, or silver',
        dynamic: true,
        filters: [
          [
            { operator: 'EQ', property: 'tier_level', value: 'gold' },
            { operator: 'EQ', property: 'city', value: 'Oslo' },
          ],
          [{ operator: 'EQ', property: 'tier_level', value: 'silver' }],
        ],
      },
    });
    expect(list.status, list.text).toBe(200);
    const listId = list.json.listId;
    t.clock.now += 1000;
    expect((await t.call('DELETE', '/contacts/v1/properties/tier_level')).status).toBe(204);

    const profile = (await t.call('GET', `/contacts/v1/contact/vid/${vid}/profile`)).json;
    expect(profile.properties.tier_level).toBeUndefined();
    expect(profile.properties.city.value).toBe('Oslo');
    const after = (await t.call('GET', `/contacts/v1/lists/${listId}`)).json;
    expect(after.filters).toEqual([[expect.objectContaining({ operator: 'EQ', property: 'city', value: 'Oslo' })]]);
    expect(after.internalListId).not.toBe(list.json.internalListId);
    const members = (await t.call('GET', `/contacts/v1/lists/${listId}/contacts/all`)).json.contacts.map(
      (c: { vid: number }) => c.vid,
    );
    expect(members).toEqual([vid]);

    // Created again, the property has no value and no old versions anywhere.
    t.clock.now += 1000;
    expect((await t.call('PUT', '/contacts/v1/properties/tier_level', { body: tier })).status).toBe(200);
    expect((await t.call('GET', `/contacts/v1/contact/vid/${vid}/profile`)).json.properties.tier_level).toBeUndefined();
    expect(
      (
        await t.call('POST', `/contacts/v1/contact/vid/${vid}/profile`, {
          body: { properties: [{ property: 'tier_level', value: 'bronze' }] },
        })
      ).status,
    ).toBe(204);
    const versions = (await t.call('GET', `/contacts/v1/contact/vid/${vid}/profile`)).json.properties.tier_level
      .versions;
    expect(versions.map((v: { value: string }) => v.value)).toEqual(['bronze']);
  });

  it('validates definitions: type/fieldType, enumeration options, group, name', async () => {
    const cases: [string, object, string][] = [
      [
        'a1',
        { ...shoe, type: 'number', fieldType: 'select' },
        'fieldType: select does not fit a number property (use number, text)',
      ],
      ['a2', { ...shoe, type: 'enumeration', fieldType: 'select' }, 'options: an enumeration property needs options'],
      [
        'a3',
        {
          ...shoe,
          type: 'enumeration',
          fieldType: 'select',
          options: [
            { label: 'A', value: 'a' },
            { label: 'B', value: 'a' },
          ],
        },
        'options: option values must be unique',
      ],
      ['a4', { ...shoe, groupName: 'nowhere' }, "groupName: no property group named 'nowhere'"],
      [
        'a5',
        { ...shoe, type: 'colour' },
        'body.type: Invalid option: expected one of "string"|"number"|"date"|"datetime"|"enumeration"|"bool"',
      ],
      ['Bad-Name', shoe, 'path.property_name: must be lower-case letters, digits and _'],
    ];
    for (const [name, body, message] of cases) {
      const res = await t.call('PUT', `/contacts/v1/properties/${name}`, { body });
      expect(res.status, name).toBe(400);
      expect(res.json.message, name).toBe(message);
    }
  });

  it('protects platform-defined properties', async () => {
    expect((await t.call('DELETE', '/contacts/v1/properties/email')).status).toBe(400);
    expect((await t.call('POST', '/contacts/v1/properties/email', { body: { label: 'E-mail' } })).status).toBe(400);
  });
});

describe('property groups', () => {
  it('creates, reads with properties, updates and deletes a custom group', async () => {
    const created = await t.call('PUT', '/contacts/v1/groups/loyalty', {
      body: { displayName: 'Loyalty', displayOrder: 7 },
    });
    expect(created.json).toEqual({ name: 'loyalty', displayName: 'Loyalty', displayOrder: 7, svcDefined: false });
    expect((await t.call('PUT', '/contacts/v1/groups/loyalty', { body: {} })).status).toBe(409);
    await t.call('PUT', '/contacts/v1/properties/points', { body: { ...shoe, label: 'Points', groupName: 'loyalty' } });
    const read = await t.call('GET', '/contacts/v1/groups/loyalty?includeProperties=true');
    expect(read.json.properties.map((p: { name: string }) => p.name)).toEqual(['points']);
    expect((await t.call('GET', '/contacts/v1/groups/loyalty')).json.properties).toBeUndefined();
    expect(
      (await t.call('POST', '/contacts/v1/groups/loyalty', { body: { displayName: 'Rewards' } })).json.displayName,
    ).toBe('Rewards');
    expect((await t.call('DELETE', '/contacts/v1/groups/loyalty')).status).toBe(204);
    const moved = (await t.call('GET', '/contacts/v1/properties')).json.find(
      (p: { name: string }) => p.name == 'points',
    );
    expect(moved.groupName).toBe('contactinformation');
    const gone = await t.call('GET', '/contacts/v1/groups/loyalty');
    expect(gone.json.message).toBe("Couldn't find a Group with the given name 'loyalty'.");
  });

  it('has the default groups, which cannot be deleted', async () => {
    const res = await t.call('GET', '/contacts/v1/groups/contactinformation');
    expect(res.json).toMatchObject({
      name: 'contactinformation',
      displayName: 'Contact Information',
      svcDefined: true,
    });
    expect((await t.call('DELETE', '/contacts/v1/groups/contactinformation')).status).toBe(400);
  });

  it('reads deal property groups with includeProperties, with the deals schema scope', async () => {
    const res = await t.call('GET', '/properties/v1/deals/groups/named/dealinformation?includeProperties=true');
    expect(res.json).toMatchObject({ name: 'dealinformation', displayName: 'Deal Information', svcDefined: true });
    expect(res.json.properties.map((p: { name: string }) => p.name)).toEqual([
      'dealname',
      'amount',
      'closedate',
      'dealstage',
    ]);
    expect((await t.call('GET', '/properties/v1/deals/groups/named/nope')).status).toBe(404);
  });

  it('keeps portals apart', async () => {
    await t.call('PUT', '/contacts/v1/groups/private_group', { body: { displayName: 'Mine' } });
    expect((await t.call('GET', '/contacts/v1/groups/private_group', { portal: t.portals[1] })).status).toBe(404);
  });
});
