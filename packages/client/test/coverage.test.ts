/** Every catalog route has a client method, and every method reaches its own route on the real
 * platform, which implements every one of them. */
import { catalog, type RouteDef } from '@svc/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable, SvcApiError } from '../src';
import { clientFor, faultServer, startTestPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
beforeAll(async () => {
  t = await startTestPlatform();
});
afterAll(() => t.close());

const routes = Object.values(catalog) as RouteDef[];

/** A value of the right shape for a path parameter, naming nothing that exists. */
function paramValue(name: string, portalId: number): string | number | string[] {
  if (name == 'ext') return 'json';
  if (name == 'search_type') return 'city';
  if (name == 'portal_id') return portalId;
  if (name == 'contact_emails') return ['nobody@x.test', 'nobody+2@x.test'];
  if (name == 'contact_ids') return ['987654', '987655'];
  if (/email/.test(name)) return 'nobody+1@x.test';
  if (/utk/.test(name)) return 'f'.repeat(32);
  if (/_id$|^vid$|Id$/.test(name)) return 987654;
  return 'no-such-thing';
}

describe('coverage', () => {
  it('keeps a route table equal to the catalog (regenerate with `npm run routes -w @svc/client`)', () => {
    const fromCatalog = Object.fromEntries(
      routes.map((r) => [
        r.id,
        {
          ...{ method: r.method, path: r.path, host: r.host, body: r.bodyType, auth: [...r.auth] },
          // The facts the catalog carries for consumers (undefined ones drop out, as in the table).
          ...{
            public: r.public,
            retry: r.retry,
            writes: r.writes,
            resource: r.resource,
            idParam: r.idParam,
            atomEntry: r.atomEntry,
            defaultBody: r.defaultBody,
            redirects: r.redirects,
          },
        },
      ]),
    );
    expect(JSON.parse(JSON.stringify(routeTable))).toEqual(fromCatalog);
  });

  it('has a method for every catalog route, grouped by area', () => {
    const client = clientFor(t) as unknown as Record<string, unknown>;
    const at = (id: string) =>
      id.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], client);
    const missing = routes.filter((r) => typeof at(r.id) != 'function').map((r) => r.id);
    expect(missing).toEqual([]);
    expect(routes.length).toBeGreaterThan(200);
  });

  it('reaches every route on the platform: a real answer, never the router’s 404 or 405', async () => {
    const client = clientFor(t, t.portals[0], { retries: 0 }) as unknown as Record<string, unknown>;
    const outcomes = await Promise.all(
      routes.map(async (r) => {
        const fn = r.id.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], client) as (
          ...a: unknown[]
        ) => Promise<unknown>;
        const params = Object.keys(r.params.shape).map((name) => paramValue(name, t.portals[0].portalId));
        const input = r.bodyType == 'multipart' ? new FormData() : {};
        try {
          await fn(...params, input);
          return { id: r.id, milestone: r.milestone, status: 200, message: '' };
        } catch (err) {
          expect(err).toBeInstanceOf(SvcApiError);
          const e = err as SvcApiError;
          return {
            id: r.id,
            milestone: r.milestone,
            status: e.status,
            message: e.message,
            route: `${r.method} ${r.path}`,
          };
        }
      }),
    );
    const unrouted = outcomes.filter(
      (o) => o.status == 0 || o.status == 405 || (o.status == 404 && o.message.startsWith('no route for')),
    );
    expect(unrouted).toEqual([]);
    // Part 2 answers for real too: a success, refused by validation, or an unknown id (the
    // parameters name nothing); never a 501 or a 5xx.
    const part2 = outcomes.filter((o) => o.milestone == 2);
    expect(part2.filter((o) => ![200, 400, 404].includes(o.status))).toEqual([]);
    // Part 1 answers for real: nothing 501, nothing 500.
    expect(outcomes.filter((o) => o.milestone == 1 && o.status >= 500)).toEqual([]);
  });
});

describe('typed surface', () => {
  // The @ts-expect-error lines are checked by `npm run typecheck`; the calls run too.
  it('takes path parameters in path order, then the input, and sends them where they belong', async () => {
    const server = await faultServer((_r, res) => void res.writeHead(204).end());
    try {
      const c = clientFor(t, t.portals[0], { baseUrl: server.url, formsUrl: server.url });
      await c.content.blogPosts.publish(7); // publishing is the default action
      await c.content.pages.publish('8', { action: 'cancel-publish' });
      await c.lists.add(3, { vids: [1, 2], emails: ['a+b@x.test'] });
      await c.workflows.pastEvents(4, 5);
      await c.blogV1.getPost('post-guid', 'json');
      await c.prospects.unhide({ organization: 'Acme Inc' });
      // @ts-expect-error: lists.add needs its list id first
      await c.lists.add({ vids: [1] }).catch(() => undefined);
      // @ts-expect-error: the body of contacts.create is required
      await c.contacts.create().catch(() => undefined);
      // @ts-expect-error: a property value is a string, number, boolean or null
      await c.contacts.create({ properties: [{ property: 'email', value: {} }] }).catch(() => undefined);
      const sent = server.seen.slice(0, 6).map((r) => [r.method, r.url, r.body]);
      expect(sent).toEqual([
        ['POST', '/content/api/v2/blog-posts/7/publish-action', '{"action":"schedule-publish"}'],
        ['POST', '/content/api/v2/pages/8/publish-action', '{"action":"cancel-publish"}'],
        ['POST', '/contacts/v1/lists/3/add', '{"vids":[1,2],"emails":["a+b@x.test"]}'],
        ['GET', '/automation/v2/workflows/4/logevents/contacts/5/past', ''],
        ['GET', '/blog/v1/posts/post-guid.json', ''],
        ['DELETE', '/prospects/v1/filters', 'organization=Acme+Inc'],
      ]);
    } finally {
      await server.close();
    }
  });
});
