import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
beforeAll(async () => {
  t = await startPlatform();
});
afterAll(() => t.close());

const props = (o: Record<string, string>) => ({
  properties: Object.entries(o).map(([property, value]) => ({ property, value })),
});

describe('contacts', () => {
  it('creates a contact and reads it by vid and email with history', async () => {
    const created = await t.call('POST', '/contacts/v1/contact', {
      body: props({ email: 'Ada@Example.com', firstname: 'Ada' }),
    });
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({
      'portal-id': 62515,
      'is-contact': true,
      properties: { email: { value: 'ada@example.com' }, firstname: { value: 'Ada' } },
    });
    const vid = created.json.vid;
    const byVid = await t.call('GET', `/contacts/v1/contact/vid/${vid}/profile`);
    expect(byVid.json.properties.firstname.versions[0]).toMatchObject({
      value: 'Ada',
      'source-type': 'API',
      selected: true,
    });
    expect(byVid.json['identity-profiles'][0].identities[0]).toMatchObject({
      type: 'EMAIL',
      value: 'ada@example.com',
      'is-primary': true,
    });
    const byEmail = await t.call('GET', '/contacts/v1/contact/email/ada@example.com/profile');
    expect(byEmail.json.vid).toBe(vid);
  });

  it('answers 409 CONTACT_EXISTS with the identity profile, and 400 validationResults for a bad email', async () => {
    const dup = await t.call('POST', '/contacts/v1/contact', { body: props({ email: 'ada@example.com' }) });
    expect(dup.status).toBe(409);
    expect(dup.json).toMatchObject({
      status: 'error',
      error: 'CONTACT_EXISTS',
      identityProfile: { identity: [{ type: 'EMAIL', value: 'ada@example.com', isPrimary: true }] },
    });
    expect(dup.json.correlationId).toMatch(/^[0-9a-f-]{36}$/);
    const bad = await t.call('POST', '/contacts/v1/contact', { body: props({ email: 'not-an-email' }) });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({
      message: 'Property values were not valid',
      validationResults: [
        { isValid: false, error: 'INVALID_EMAIL', name: 'email', message: 'Email address not-an-email is invalid' },
      ],
    });
  });

  it('pages all contacts by vid with count and vidOffset', async () => {
    for (let i = 0; i < 25; i++)
      await t.call('POST', '/contacts/v1/contact', { body: props({ email: `p${i}@example.com`, firstname: `P${i}` }) });
    const first = await t.call('GET', '/contacts/v1/lists/all/contacts/all');
    expect(first.json.contacts).toHaveLength(20);
    expect(first.json['has-more']).toBe(true);
    const second = await t.call(
      'GET',
      `/contacts/v1/lists/all/contacts/all?count=100&vidOffset=${first.json['vid-offset']}`,
    );
    expect(second.json['has-more']).toBe(false);
    expect(first.json.contacts.length + second.json.contacts.length).toBe(26);
    expect(second.json.contacts[0].vid).toBeGreaterThan(first.json['vid-offset']);
    expect(Object.keys(second.json.contacts[0].properties).sort()).toEqual(['firstname', 'lastmodifieddate']);
    const zero = await t.call('GET', '/contacts/v1/lists/all/contacts/all?count=0');
    expect(zero.status).toBe(400);
    expect(zero.json.message).toBe('query.count: must be at least 1');
    const garbage = await t.call('GET', '/contacts/v1/lists/all/contacts/all?count=lots');
    expect(garbage.json.message).toBe('query.count: must be a whole number');
    const clamped = await t.call('GET', '/contacts/v1/lists/all/contacts/all?count=101');
    expect(clamped.json.contacts).toHaveLength(26);
  });

  it('keeps portals apart', async () => {
    const other = t.portals[1];
    const mine = await t.call('GET', '/contacts/v1/contact/email/ada@example.com/profile', { portal: other });
    expect(mine.status).toBe(404);
    const all = await t.call('GET', '/contacts/v1/lists/all/contacts/all', { portal: other });
    expect(all.json.contacts).toEqual([]);
  });
});

describe('auth', () => {
  it('rejects missing and wrong credentials with the legacy bodies', async () => {
    const none = await t.call('GET', '/contacts/v1/lists/all/contacts/all', { portal: null });
    expect(none.status).toBe(401);
    expect(none.json.category).toBe('INVALID_AUTHENTICATION');
    const wrong = await t.call('GET', '/contacts/v1/lists/all/contacts/all', {
      portal: null,
      headers: { authorization: 'Bearer svc-pat-nope' },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.text).not.toContain('svc-pat-nope');
  });
});

describe('routing', () => {
  it('answers unknown routes 404 and wrong methods 405 in JSON', async () => {
    const missing = await t.call('GET', '/contacts/v9/nothing');
    expect(missing.status).toBe(404);
    expect(missing.json.status).toBe('error');
    const wrongMethod = await t.call('PUT', '/contacts/v1/lists/all/contacts/all');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET');
  });
});
