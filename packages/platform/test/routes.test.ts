/** The platform against the catalog: a handler for every route, and the generic behaviour
 * every route shares (validation naming the field, 404/405/413 as JSON, OpenAPI). */
import { routes } from '@svc/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
beforeAll(async () => {
  t = await startPlatform({ rateLimit: { max: 1_000_000, windowMs: 10_000 } });
});
afterAll(() => t.close());

describe('routes', () => {
  it('has a handler for every route of the catalog, part 1 and part 2', () => {
    const missing = routes.filter((r) => !(r.id in t.platform.handlers)).map((r) => r.id);
    expect(missing).toEqual([]);
  });

  it('accepts an API key (hapikey) on every content API route, and on no other authenticated route (§5.2)', async () => {
    const refused: string[] = [];
    for (const r of routes.filter((r) => !r.auth.includes('none'))) {
      const path = Object.keys(r.params.shape).reduce(
        (p, name) => p.replace(`:${name}`, name == 'ext' ? 'json' : name == 'search_type' ? 'city' : '1'),
        r.path,
      );
      const res = await t.call(r.method, `${path}?hapikey=${t.portals[0].apiKey}`, { portal: null });
      const accepted = res.status != 401 && res.status != 403;
      if (accepted != r.auth.includes('hapikey')) refused.push(`${r.id} ${res.status}`);
      if (r.auth.includes('hapikey') && !r.path.startsWith('/content/api/v2/'))
        refused.push(`${r.id} takes hapikey outside the content API`);
    }
    expect(refused).toEqual([]);
  });

  it('routes as Express does, whatever the route groups: any case, a literal segment before a parameter, 405 with Allow (OPTIONS too), 404', async () => {
    const created = await t.call('POST', '/contacts/v1/contact', {
      body: { properties: [{ property: 'email', value: 'routes@example.com' }] },
    });
    const vid = created.json.vid;
    const upper = await t.call('GET', `/CONTACTS/v1/contact/vid/${vid}/profile`);
    expect([upper.status, upper.json.vid]).toEqual([200, vid]);
    // `/lists/static` is a route of its own, before `/lists/:list_id`.
    expect((await t.call('GET', '/contacts/v1/lists/static')).status).toBe(200);
    for (const method of ['PATCH', 'OPTIONS']) {
      const res = await t.call(method, `/contacts/v1/contact/vid/${vid}/profile`);
      expect([res.status, res.headers.get('allow'), res.json.message]).toEqual([
        405,
        'POST, GET',
        `${method} is not allowed here; use POST or GET`,
      ]);
    }
    const unknown = await t.call('GET', '/nowhere/v1/contact');
    expect([unknown.status, unknown.json.message]).toEqual([404, 'no route for GET /nowhere/v1/contact']);
  });

  it('serves the OpenAPI document', async () => {
    const res = await t.call('GET', '/openapi.json', { portal: null });
    expect(res.json.openapi).toBe('3.1.0');
    expect(Object.keys(res.json.paths).length).toBeGreaterThan(150);
  });

  it('answers an oversized body 413 and broken JSON 400, in JSON', async () => {
    const big = await t.call('POST', '/contacts/v1/contact', {
      body: JSON.stringify({ properties: [{ property: 'firstname', value: 'x'.repeat(1_100_000) }] }),
      headers: { 'content-type': 'application/json' },
    });
    expect(big.status).toBe(413);
    expect(big.json.message).toBe('request body exceeds 1mb');
    const broken = await t.call('POST', '/contacts/v1/contact', {
      body: '{"properties": [',
      headers: { 'content-type': 'application/json' },
    });
    expect(broken.status).toBe(400);
    expect(broken.json.message).toBe('request body is not valid JSON');
  });

  it('refuses JSON nested past 64 levels, and says what JSON of the wrong kind should have been', async () => {
    for (const deep of [
      '['.repeat(1000) + ']'.repeat(1000),
      '{"name":' + '{"a":'.repeat(1000) + '1' + '}'.repeat(1001),
    ]) {
      const res = await t.call('POST', '/content/api/v2/blog-posts', {
        body: deep,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({
        category: 'VALIDATION_ERROR',
        message: 'body: nested more than 64 levels deep',
      });
    }
    for (const [body, kind] of [
      ['null', 'null'],
      ['42', 'number'],
      ['"x"', 'string'],
    ]) {
      const res = await t.call('POST', '/contacts/v1/contact', {
        body,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status, body).toBe(400);
      expect(res.json.message, body).toBe(`request body must be a JSON object or array, not ${kind}`);
    }
  });

  it('clamps a page size of any size the same way on every list route (a 30-digit count was a 500)', async () => {
    const sizes = ['count', 'limit', 'max'];
    const lists = routes.filter(
      (r) => r.method == 'GET' && !r.path.includes(':') && sizes.some((k) => k in r.query.shape),
    );
    expect(lists.length).toBeGreaterThan(20);
    // What required query parameters are given (a search needs its words, the events on a
    // timeline their contact: one of two parameters, which no single field requires).
    const SAMPLES: Record<string, string> = { q: 'a', objectType: 'contact' };
    const { vid } = (
      await t.call('POST', '/contacts/v1/contact', {
        body: { properties: [{ property: 'email', value: 'page-size@acme.test' }] },
      })
    ).json;
    const WHOM: Record<string, string> = { 'events.list': `objectId=${vid}&` };
    for (const r of lists) {
      const key = sizes.find((k) => k in r.query.shape)!;
      const required =
        Object.entries(r.query.shape as Record<string, { safeParse(v: unknown): { success: boolean } }>)
          .filter(([, schema]) => !schema.safeParse(undefined).success)
          .map(([name]) => `${name}=${SAMPLES[name] ?? `no-sample-for-${name}`}&`)
          .join('') + (WHOM[r.id] ?? '');
      for (const value of ['99999999999999999999', '916935923155770075566962311649']) {
        const res = await t.call('GET', `${r.path}?${required}${key}=${value}`);
        expect(res.status, `${r.id} ${key}=${value}: ${res.text.slice(0, 200)}`).toBe(200);
      }
      expect((await t.call('GET', `${r.path}?${required}${key}=0`)).json.message, r.id).toBe(
        `query.${key}: must be at least 1`,
      );
    }
  });

  it('names the field of a validation error', async () => {
    const res = await t.call('POST', '/contacts/v1/contact', { body: { properties: [{ value: 'x' }] } });
    expect(res.status).toBe(400);
    expect(res.json.message).toBe('body.properties.0.property: is required');
    const path = await t.call('GET', '/contacts/v1/contact/vid/abc/profile');
    expect(path.json.message).toBe('path.contact_id: must be a positive integer');
  });

  it('names a path parameter that is not valid percent-encoding (it was "request body is not valid JSON")', async () => {
    for (const [path, name] of [
      ['/contacts/v1/contact/vid/%ZZ/profile', 'contact_id'],
      ['/contacts/v1/contact/email/ada%E0%A4%A/profile', 'contact_email'],
      ['/content/api/v2/blog-posts/%ZZ', 'blog_post_id'],
    ]) {
      const res = await t.call('GET', path);
      expect(res.status, path).toBe(400);
      expect(res.json).toMatchObject({
        status: 'error',
        category: 'VALIDATION_ERROR',
        message: `path.${name}: is not valid percent-encoding`,
      });
    }
    const form = await t.call('POST', `${t.formsUrl}/uploads/form/v2/62515/%ZZ`, {
      body: 'email=a%40b.co',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      portal: null,
    });
    expect(form.status).toBe(400);
    expect(form.json.message).toBe('path.form_guid: is not valid percent-encoding');
  });
});
