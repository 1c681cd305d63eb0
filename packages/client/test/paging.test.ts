/** Paged reads as async iterators against the real platform: every item once, the bounds kept,
 * and no page fetched that the loop does not need (counted by an undici interceptor). */
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SvcApiError } from '../src';
import { clientFor, startTestPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
let listId: number;
beforeAll(async () => {
  t = await startTestPlatform();
  const c = clientFor(t);
  await c.contacts.batch(
    Array.from({ length: 250 }, (_, i) => ({
      email: `page${i}@x.test`,
      properties: [{ property: 'company', value: i % 2 ? 'Odd Inc' : 'Even Ltd' }],
    })),
  );
  listId = (await c.lists.create({ name: 'Paged' })).listId;
  await c.lists.add(listId, { emails: Array.from({ length: 120 }, (_, i) => `page${i}@x.test`) });
});
afterAll(() => t.close());

/** A client whose requests are counted on the way out. */
function counted() {
  const paths: string[] = [];
  const dispatcher = new Agent().compose((dispatch) => (opts, handler) => {
    paths.push(opts.path);
    return dispatch(opts, handler);
  });
  return { client: clientFor(t, t.portals[0], { dispatcher }), paths };
}

describe('paging', () => {
  it('yields every contact once, across pages', async () => {
    const { client, paths } = counted();
    const vids: number[] = [];
    for await (const contact of client.contacts.all({ property: ['email'] })) vids.push(contact.vid);
    expect(vids).toHaveLength(250);
    expect(new Set(vids).size).toBe(250);
    expect(paths).toHaveLength(3);
    expect(paths[1]).toMatch(/[?&]vidOffset=\d+/);
  });

  it('stops at maxItems and maxPages without fetching a page more', async () => {
    const { client, paths } = counted();
    const items = async (it: AsyncIterable<unknown>) => {
      let n = 0;
      for await (const _ of it) n++;
      return n;
    };
    expect(await items(client.contacts.all({}, { maxItems: 150 }))).toBe(150);
    expect(paths).toHaveLength(2);
    expect(await items(client.contacts.all({}, { maxItems: 100 }))).toBe(100);
    expect(paths).toHaveLength(3);
    expect(await items(client.contacts.all({ count: 10 }, { maxPages: 2 }))).toBe(20);
    expect(paths).toHaveLength(5);
    expect(await items(client.contacts.all({}, { maxItems: 0 }))).toBe(0);
    expect(paths).toHaveLength(5);
  });

  it('fetches nothing more once the loop breaks', async () => {
    const { client, paths } = counted();
    for await (const contact of client.contacts.all({ count: 5 })) if (contact) break;
    expect(paths).toHaveLength(1);
  });

  it('pages list members, lists, recent changes and search results by their own cursors', async () => {
    const c = clientFor(t);
    const members: number[] = [];
    for await (const m of c.lists.contacts(listId, { count: 50 })) members.push(m.vid);
    expect(new Set(members).size).toBe(120);

    const recent: number[] = [];
    for await (const m of c.contacts.recent({ count: 40 }, { maxItems: 90 })) recent.push(m.vid);
    expect(new Set(recent).size).toBe(90);

    const odd: string[] = [];
    for await (const m of c.contacts.searchAll({ q: 'Odd Inc', count: 20 })) odd.push(m.properties.company.value);
    expect(odd).toHaveLength(125);

    for (let i = 0; i < 3; i++) await c.lists.create({ name: `More ${i}` });
    const lists: number[] = [];
    for await (const l of c.lists.all({ count: 2 })) lists.push(l.listId);
    expect(new Set(lists).size).toBe(4);
  });

  it('surfaces the first page’s error, e.g. a content list the platform refuses', async () => {
    const c = clientFor(t);
    const pages = c.content.blogPosts.all({ order_by: 'colour' });
    const err = await pages.next().catch((e) => e);
    expect(err).toBeInstanceOf(SvcApiError);
    expect(err).toMatchObject({ status: 400, path: '/content/api/v2/blog-posts?limit=100&order_by=colour' });
  });
});
