/** The platform against the catalog: a handler for every part-1 route, and the generic behaviour
 * every route shares (validation naming the field, 404/405/413 as JSON, OpenAPI). */
import { routes } from '@svc/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
beforeAll(async () => {
  t = await startPlatform();
});
afterAll(() => t.close());

describe('routes', () => {
  it('has a handler for every part-1 route of the catalog', () => {
    const missing = routes.filter((r) => r.milestone == 1 && !(r.id in t.platform.handlers)).map((r) => r.id);
    expect(missing).toEqual([]);
  });

  it('answers part-2 routes 501 in JSON until they are built', async () => {
    const res = await t.call('GET', '/blog/v1/list.json');
    expect(res.status).toBe(501);
    expect(res.json).toMatchObject({ status: 'error', category: 'NOT_IMPLEMENTED' });
  });

  it('serves the OpenAPI document', async () => {
    const res = await t.call('GET', '/openapi.json', { portal: null });
    expect(res.json.openapi).toBe('3.1.0');
    expect(Object.keys(res.json.paths).length).toBeGreaterThan(150);
  });

  it('answers an oversized body 413 and broken JSON 400, in JSON', async () => {
    const big = await t.call('POST', '/contacts/v1/contact', { body: JSON.stringify({ properties: [{ property: 'firstname', value: 'x'.repeat(1_100_000) }] }) , headers: { 'content-type': 'application/json' } });
    expect(big.status).toBe(413);
    expect(big.json.message).toBe('request body exceeds 1mb');
    const broken = await t.call('POST', '/contacts/v1/contact', { body: '{"properties": [', headers: { 'content-type': 'application/json' } });
    expect(broken.status).toBe(400);
    expect(broken.json.message).toBe('request body is not valid JSON');
  });

  it('names the field of a validation error', async () => {
    const res = await t.call('POST', '/contacts/v1/contact', { body: { properties: [{ value: 'x' }] } });
    expect(res.status).toBe(400);
    expect(res.json.message).toBe('body.properties.0.property: is required');
    const path = await t.call('GET', '/contacts/v1/contact/vid/abc/profile');
    expect(path.json.message).toBe('path.contact_id: must be a positive integer');
  });
});
