/** `startTwin` from `@svc/platform/testing` (the built package, through its exports map), as a
 * site's vitest suite uses it: addresses, credentials, the SVC_* variables, a typed admin client
 * for portals, faults, journal and outbox, and close(). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminError, startTwin, type Twin } from '@svc/platform/testing';

let twin: Twin;
beforeAll(async () => {
  twin = await startTwin();
});
afterAll(() => twin?.close());

const get = (path: string, token = twin.credentials.privateAppToken) =>
  fetch(twin.baseUrl + path, { headers: { authorization: `Bearer ${token}` } });

describe('startTwin', () => {
  it('serves the demo portal with its credentials and the admin API', async () => {
    expect(twin.adminUrl).toBe(`${twin.baseUrl}/_admin`);
    expect(twin.env).toMatchObject({
      SVC_BASE_URL: twin.baseUrl,
      SVC_FORMS_URL: twin.formsUrl,
      SVC_PORTAL_ID: String(twin.portalId),
      SVC_TOKEN: twin.credentials.privateAppToken,
      SVC_ADMIN_KEY: twin.adminKey,
    });
    expect((await get('/contacts/v1/properties')).status).toBe(200);
    const forms = await (await get('/contacts/v1/forms')).json();
    expect(forms.length).toBeGreaterThan(0); // the demo portal's forms
  });

  it('drives portals, faults, journal and outbox through the typed client', async () => {
    const other = await twin.admin.portals.create({ name: 'Other site', tier: 'starter' });
    expect((await twin.admin.portals.list()).map((p) => p.portalId)).toContain(other.portalId);

    const id = await twin.admin.faults.add({ route: 'properties.list', status: 503, times: 1 });
    expect((await twin.admin.faults.list())[0]).toMatchObject({ id, remaining: 1 });
    expect((await get('/contacts/v1/properties')).status).toBe(503);
    expect((await get('/contacts/v1/properties')).status).toBe(200);
    expect(await twin.admin.journal.count({ route: 'properties.list', status: 503 })).toBe(1);
    const [last] = await twin.admin.journal.list({ route: 'properties.list', limit: 1 });
    expect(last).toMatchObject({ status: 200, portalId: twin.portalId });

    const refreshed = await fetch(`${twin.baseUrl}/oauth/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        client_id: other.oauth.clientId,
        client_secret: other.oauth.clientSecret,
        refresh_token: other.oauth.refreshToken,
      }),
    });
    const { access_token } = (await refreshed.json()) as { access_token: string };
    expect((await twin.admin.outbox.tokens({ portalId: other.portalId }))[0].accessToken).toBe(access_token);
    expect(await twin.admin.outbox.emails()).toEqual([]);
    expect(await twin.admin.outbox.webhooks()).toEqual([]);

    await twin.admin.portals.reset(other.portalId);
    await twin.admin.portals.delete(other.portalId);
    await expect(twin.admin.portals.delete(other.portalId)).rejects.toMatchObject({ status: 404 });
    await expect(twin.admin.faults.add({})).rejects.toBeInstanceOf(AdminError);
  });

  it('closes: nothing listens after', async () => {
    const t = await startTwin();
    await t.close();
    await expect(fetch(t.baseUrl)).rejects.toThrow(/fetch failed/);
  });
});
