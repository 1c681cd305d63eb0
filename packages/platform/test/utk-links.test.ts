/** A visitor token is linked to a contact only when it is a utk as @svc/protocol defines it (the
 * format the collector takes): a form submission's `svc_context.svcutk` and the events API's
 * `utk` refuse anything else with a 400 naming the field, and write nothing. Lookups by utk
 * still take any token: one that is not a utk is never linked, so it is not found. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
beforeAll(async () => {
  t = await startPlatform();
});
afterAll(() => t.close());

const PORTAL = 62515;
const NOT_UTKS = ['ABC', 'A'.repeat(32), 'a'.repeat(31), '../../integrations/v1/me'];

describe('linking a visitor token', () => {
  it('a form submission with a malformed svcutk keeps the lead and links nothing', async () => {
    const form = (
      await t.call('POST', '/contacts/v1/forms', { body: { name: 'Utk check', fields: [{ name: 'email' }] } })
    ).json;
    for (const [i, svcutk] of NOT_UTKS.entries()) {
      const body = new URLSearchParams({ email: `utk-${i}@example.com`, svc_context: JSON.stringify({ svcutk }) });
      const res = await t.call('POST', `${t.formsUrl}/uploads/form/v2/${PORTAL}/${form.guid}`, {
        body: body.toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        portal: null,
      });
      // The visitor's answers are recorded; the token is ignored and named (issue 38).
      expect([res.status, res.headers.get('x-svc-ignored-context')], svcutk).toEqual([204, 'svcutk']);
      expect((await t.call('GET', `/contacts/v1/contact/email/utk-${i}@example.com/profile`)).status).toBe(200);
      expect((await t.call('GET', `/contacts/v1/contact/utk/${encodeURIComponent(svcutk)}/profile`)).status).toBe(404);
    }
  });

  it('the events API refuses a malformed utk, by GET and by POST', async () => {
    const get = await t.call('GET', `/v1/event?_n=x&_a=${PORTAL}&utk=ABC`, { portal: null });
    expect(get.status).toBe(400);
    expect(get.json.message).toMatch(/^query\.utk: must be a visitor token/);
    const post = await t.call('POST', '/v1/event', { body: { eventName: 'x', utk: 'ABC' } });
    expect(post.status).toBe(400);
    expect(post.json.message).toMatch(/^body\.utk: must be a visitor token/);
    expect((await t.call('POST', '/v1/event', { body: { eventName: 'x', utk: 'a'.repeat(32) } })).status).toBe(204);
  });
});
