/** Contact lists through the client, against the real platform over HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, startTestPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
beforeAll(async () => {
  t = await startTestPlatform();
});
afterAll(() => t.close());

describe('lists', () => {
  it('adds and removes static members by vid and email', async () => {
    const c = clientFor(t);
    const ada = await c.contacts.create({ properties: [{ property: 'email', value: 'ada@list.test' }] });
    await c.contacts.create({ properties: [{ property: 'email', value: 'bob@list.test' }] });
    const list = await c.lists.create({ name: 'VIPs' });
    expect(list).toMatchObject({ name: 'VIPs', dynamic: false, listType: 'STATIC' });

    const added = await c.lists.add(list.listId, { vids: [ada.vid], emails: ['bob@list.test', 'nobody@list.test'] });
    expect(added.updated).toHaveLength(2);
    expect(added.invalidEmails).toEqual(['nobody@list.test']);
    // Adding again is a no-op the platform reports as discarded.
    expect((await c.lists.add(list.listId, { vids: [ada.vid] })).discarded).toEqual([ada.vid]);

    const members = await c.lists.getContacts(list.listId, { property: ['email'] });
    expect(members.contacts.map((m) => m.properties.email.value).sort()).toEqual(['ada@list.test', 'bob@list.test']);
    expect((await c.lists.remove(list.listId, { emails: ['bob@list.test'] })).updated).toHaveLength(1);
    expect((await c.lists.get(list.listId)).metaData.size).toBe(1);

    expect((await c.lists.update(list.listId, { name: 'Very important' })).name).toBe('Very important');
    expect((await c.lists.getBatch({ listId: [list.listId, 999999] })).lists.map((l) => l.listId)).toEqual([
      list.listId,
    ]);
    expect(await c.lists.delete(list.listId)).toBeUndefined();
    await expect(c.lists.get(list.listId)).rejects.toMatchObject({
      status: 404,
      message: `Couldn't find a List with the given id '${list.listId}'.`,
    });
  });

  it('keeps dynamic lists by their filters, refreshes them, and refuses manual changes', async () => {
    const c = clientFor(t);
    const list = await c.lists.create({
      name: 'Acme people',
      dynamic: true,
      filters: [[{ operator: 'EQ', property: 'company', value: 'Acme', type: 'string' }]],
    });
    await c.contacts.create({
      properties: [
        { property: 'email', value: 'wile@acme.test' },
        { property: 'company', value: 'Acme' },
      ],
    });
    expect(await c.lists.refresh(list.listId)).toBeUndefined();
    const members = await c.lists.getRecentContacts(list.listId, { property: ['email'] });
    expect(members.contacts.map((m) => m.properties.email.value)).toEqual(['wile@acme.test']);
    await expect(c.lists.add(list.listId, { emails: ['wile@acme.test'] })).rejects.toMatchObject({ status: 400 });
    expect((await c.lists.listDynamic()).lists.map((l) => l.listId)).toContain(list.listId);
    expect((await c.lists.listStatic()).lists.map((l) => l.listId)).not.toContain(list.listId);
    expect((await c.lists.list()).lists.map((l) => l.listId)).toContain(list.listId);
  });
});
