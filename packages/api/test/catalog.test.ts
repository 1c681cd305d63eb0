/** The catalog against the spec: every route there, each once. The spec is read from the shared
 * folder beside the checkout when there is one (it is the source), else from the copy kept in
 * packages/api/spec/ (a clean clone elsewhere, as in CI); where both are there they must be equal. */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { catalog, openApiDocument, routes } from '../src';

const SHARED = fileURLToPath(new URL('../../../../shared/spec/platform-api.md', import.meta.url));
const COPY = fileURLToPath(new URL('../spec/platform-api.md', import.meta.url));
const spec = readFileSync(existsSync(SHARED) ? SHARED : COPY, 'utf8');
if (spec != readFileSync(COPY, 'utf8'))
  throw new Error(
    'packages/api/spec/platform-api.md is not the shared spec: copy ../shared/spec/platform-api.md over it',
  );

/** `METHOD path` with every parameter written `:`, so `:id` and `:blog_post_id` compare equal. */
const key = (method: string, path: string) => `${method} ${path.replace(/:[A-Za-z_]\w*/g, ':')}`;

/** Routes the spec's tables list (§4.2–§4.7, §4.9, §4.10). */
function tableRoutes() {
  const out: string[] = [];
  for (const [, methods, path] of spec.matchAll(/^\| (GET|POST|PUT|DELETE|POST or PUT) \| (\S+) \|/gm))
    for (const method of methods.split(' or ')) out.push(key(method, path.replace('{forms_url}', '')));
  return out;
}

/** §4.1's documented endpoints, written in bold. */
function sectionOneRoutes() {
  const section = spec.slice(spec.indexOf('### 4.1'), spec.indexOf('### 4.2'));
  return [...section.matchAll(/\*\*(GET|POST|PUT|DELETE) (\/[^*\s]+)\*\*/g)].map(([, m, p]) => key(m, p));
}

/** §4.8 expanded: the CRUD pattern, read-only collections, the per-object table, files, folders. */
function contentRoutes() {
  const prefix = '/content/api/v2';
  const ids: Record<string, string> = {};
  const out: string[] = [];
  const section = spec.slice(spec.indexOf('### 4.8'), spec.indexOf('### 4.9'));
  for (const [, name] of section.matchAll(/([a-z-]+) \(:\w+\)/g)) ids[name] = ':';
  const full = section.match(/Objects with full create\/list\/update\/delete\/get: (.*?)\. Pattern/)![1];
  for (const [, x] of full.matchAll(/([a-z-]+) \(:\w+\)/g))
    for (const [m, p] of [
      ['POST', ''],
      ['GET', ''],
      ['PUT', '/:'],
      ['DELETE', '/:'],
      ['GET', '/:'],
      ['POST', '/:/restore-deleted'],
    ])
      out.push(key(m, `${prefix}/${x}${p}`));
  const readOnly = section.match(/Read-only collections: (.*?): GET list/)![1];
  for (const [, x] of readOnly.matchAll(/([a-z-]+) \(:\w+\)/g))
    out.push(key('GET', `${prefix}/${x}`), key('GET', `${prefix}/${x}/:`));
  for (const [, objects, calls] of section.matchAll(/^\| ([a-z, -]+) \| ((?:GET|POST|PUT)[^|]*) \|/gm))
    for (const object of objects.split(', '))
      for (const call of calls.split(' ; ')) {
        const [method, path] = call.trim().split(' ');
        out.push(key(method, prefix + path.replace(/^\/(X|blogs)\//, `/${object}/`)));
      }
  const files = section.match(/Files \(prefix \/files\): (.*)/)![1];
  const folders = section.match(/Folders \(prefix \/folders\): (.*)/)![1];
  for (const text of [files, folders])
    for (const [, method, path] of text.matchAll(/(GET|POST|PUT|DELETE) (\/[\w/:-]+)/g))
      out.push(key(method, prefix + path));
  // "plus versions endpoints" for folders; files' versions come from the per-object table.
  out.push(key('GET', `${prefix}/folders/:/versions`), key('GET', `${prefix}/folders/:/versions/:`));
  return out;
}

describe('catalog', () => {
  const mine = new Set(routes.map((r) => key(r.method, r.path)));

  it('has every route of the spec', () => {
    const expected = new Set([...tableRoutes(), ...contentRoutes(), ...sectionOneRoutes()]);
    const missing = [...expected].filter((k) => !mine.has(k));
    expect(missing).toEqual([]);
    // And nothing beyond the spec but the enterprise-events HTTP API (§4.10 leaves its paths open)
    // and the tracking collector (its wire format is the tracker's, packages/tracker/README.md).
    const extra = [...mine].filter((k) => !expected.has(k));
    // And what legacy clients call: the OAuth token endpoint (the refresh helper), the batch reads
    // with their keys only in the query string, the batch read by emails on the legacy API's own
    // path (the spec's "group by emails" is the vids path, which tells emails from vids by their
    // values), recently created contacts, every campaign and the portal-wide email events,
    // publish-action sent as PUT (an older Python client). And the events
    // on a contact's timeline, in the real API's event-occurrence shape (the spec lists no read of them).
    expect(extra.sort()).toEqual([
      'GET /collect/p.gif',
      'GET /contacts/v1/contact/emails/batch/',
      'GET /contacts/v1/contact/emails/batch/:',
      'GET /contacts/v1/contact/utks/batch/',
      'GET /contacts/v1/contact/vids/batch/',
      'GET /contacts/v1/lists/all/contacts/recent',
      'GET /email/public/v1/campaigns/by-id',
      'GET /email/public/v1/events',
      'GET /events/v3/events',
      'GET /v1/event',
      'POST /collect/e',
      'POST /oauth/v1/token',
      'POST /v1/event',
      'PUT /content/api/v2/blog-posts/:/publish-action',
      'PUT /content/api/v2/pages/:/publish-action',
    ]);
    expect(expected.size).toBeGreaterThan(200);
  });

  it('lists each route once, under its own client name', () => {
    expect(mine.size).toBe(routes.length);
    for (const [id, route] of Object.entries(catalog)) expect(route.id).toBe(id);
  });

  it('declares path parameters exactly as the path names them', () => {
    for (const route of routes) {
      const inPath = [...route.path.matchAll(/:([A-Za-z_]\w*)/g)].map((m) => m[1]).sort();
      expect(Object.keys(route.params.shape).sort(), route.id).toEqual(inPath);
    }
  });

  it('keeps the documented auth and scopes', () => {
    expect(catalog['contacts.getAll'].scopes).toEqual([
      'crm.objects.contacts.read',
      'crm.objects.contacts.write',
      'content',
    ]);
    expect(catalog['deals.getPropertyGroup'].scopes).toEqual(['crm.schemas.deals.read']);
    expect(catalog['deals.getPropertyGroup'].auth).toEqual(['oauth', 'privateApp']);
    for (const route of routes)
      expect(route.auth.includes('hapikey'), route.id).toBe(route.path.startsWith('/content/api/v2'));
    expect(catalog['forms.submit'].host).toBe('forms');
  });

  it('validates the documented paging bounds', () => {
    const query = catalog['contacts.getAll'].query;
    expect(query.parse({}).count).toBe(20);
    expect(query.parse({ count: '101' }).count).toBe(100);
    expect(query.safeParse({ count: '0' }).success).toBe(false);
    expect(query.safeParse({ count: 'x' }).success).toBe(false);
    expect(query.parse({ property: 'email' }).property).toEqual(['email']);
    expect(query.parse({ property: ['email', 'firstname'] }).property).toEqual(['email', 'firstname']);
  });

  it('generates an OpenAPI 3.1 document with an operation per route', () => {
    const doc = openApiDocument() as {
      openapi: string;
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    expect(doc.openapi).toBe('3.1.0');
    const ops = Object.values(doc.paths).flatMap((p) => Object.values(p).map((o) => o.operationId));
    expect(ops.sort()).toEqual(Object.keys(catalog).sort());
    expect(doc.paths['/contacts/v1/contact/utk/{contact_utk}/profile'].get).toMatchObject({
      operationId: 'contacts.getByUtk',
    });
    expect(() => JSON.stringify(doc)).not.toThrow();
    expect(z.toJSONSchema(catalog['contacts.create'].body, { io: 'input' })).toMatchObject({ type: 'object' });
  });
});
