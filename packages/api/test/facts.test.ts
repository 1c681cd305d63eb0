/** The facts the catalog carries for its consumers (resource, id parameter, retry policy, writes,
 * public, Atom entry, redirects): every route has them, and they agree with the rest of the route. */
import { describe, expect, it } from 'vitest';
import { openApiDocument, routes, type RouteDef } from '../src';

const paramsOf = (r: RouteDef) => Object.keys(r.params.shape);

describe('catalog facts', () => {
  it('names a resource for every route, and an id parameter only among its path parameters', () => {
    for (const r of routes) {
      expect(r.resource, r.id).toMatch(/^[a-z][\w.-]*$/i);
      if (r.idParam !== undefined) expect(paramsOf(r), r.id).toContain(r.idParam);
    }
  });

  it('names the content API v2 collection by its path segment, and its id parameter', () => {
    const content = routes.filter((r) => r.path.startsWith('/content/api/v2/'));
    expect(content.length).toBeGreaterThan(100);
    for (const r of content) {
      expect(r.path.startsWith(`/content/api/v2/${r.resource}`), r.id).toBe(true);
      // A route on one record carries its id first; version routes add `version_id` after it.
      expect(r.idParam, r.id).toBe(paramsOf(r).find((p) => p != 'version_id'));
    }
  });

  it('has a retry policy for every route: GET, PUT and DELETE are safe; only POSTs may be otherwise', () => {
    for (const r of routes) {
      expect(['safe', 'unsafe', 'safe-with-id'], r.id).toContain(r.retry);
      // The PUT form of publish-action (older clients) is the POST under another method: a
      // repeated publish is refused, so it is no safer to retry than the POST.
      if (r.method != 'POST' && !r.id.endsWith('.publishPut')) expect(r.retry, r.id).toBe('safe');
    }
    // Creates are not safe to repeat; the events API is, with an id in the body.
    expect(routes.find((r) => r.id == 'contacts.create')?.retry).toBe('unsafe');
    expect(routes.find((r) => r.id == 'events.send')?.retry).toBe('safe-with-id');
  });

  it('marks every non-GET as writing, and a writing GET explicitly (the pixels, which are public)', () => {
    for (const r of routes) if (r.method != 'GET') expect(r.writes, r.id).toBe(true);
    const writingGets = routes.filter((r) => r.method == 'GET' && r.writes);
    expect(writingGets.map((r) => r.id)).toEqual(['events.trigger', 'collect.pixel']);
    expect(writingGets.every((r) => r.public)).toBe(true);
  });

  it('calls a route public exactly when it takes no credentials', () => {
    for (const r of routes) expect(r.public, r.id).toBe(r.auth.includes('none'));
    expect(
      routes
        .filter((r) => r.public)
        .map((r) => r.id)
        .sort(),
    ).toEqual(['auth.refresh', 'auth.token', 'collect.batch', 'collect.pixel', 'events.trigger', 'forms.submit']);
  });

  it('says which entry every Atom body holds, and only for Atom bodies', () => {
    for (const r of routes) {
      if (r.bodyType == 'atom') expect(['post', 'comment'], r.id).toContain(r.atomEntry);
      else expect(r.atomEntry, r.id).toBeUndefined();
    }
  });

  it('says which routes may answer with a redirect (the form submission, to its redirect URL)', () => {
    expect(routes.filter((r) => r.redirects).map((r) => r.id)).toEqual(['forms.submit']);
  });

  it('exposes the facts in the OpenAPI document as x-svc-* extensions', () => {
    const doc = openApiDocument() as { paths: Record<string, Record<string, Record<string, unknown>>> };
    const ops = Object.values(doc.paths).flatMap((p) => Object.values(p));
    const send = ops.find((o) => o.operationId == 'events.send')!;
    expect(send['x-svc-retry']).toBe('safe-with-id');
    expect(ops.find((o) => o.operationId == 'events.trigger')!['x-svc-writes']).toBe(true);
    expect(ops.find((o) => o.operationId == 'content.blogPosts.get')!['x-svc-resource']).toBe('blog-posts');
    expect(ops.find((o) => o.operationId == 'forms.submit')!['x-svc-redirects']).toBe(true);
    // The tracking collector is in the catalog too, public and writing.
    expect(doc.paths['/collect/e'].post).toMatchObject({
      operationId: 'collect.batch',
      'x-svc-writes': true,
      security: [{}],
    });
    expect(doc.paths['/collect/p.gif'].get).toMatchObject({ operationId: 'collect.pixel', 'x-svc-writes': true });
  });
});
