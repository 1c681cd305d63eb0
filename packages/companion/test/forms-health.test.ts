/** GET /forms/:guid (the public part of a definition, cached) and GET /healthz, against the real
 * platform, through both doors. */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, forEachDoor, mount, mountOn, startTestPlatform, type Mounted, type TestPlatform } from './harness';

forEachDoor((door) => {
  let t: TestPlatform;
  let m: Mounted;
  let guid: string;

  beforeAll(async () => {
    t = await startTestPlatform();
    const form = await t.call('POST', '/contacts/v1/forms', {
      body: {
        name: 'Contact us',
        notifyRecipients: 'sales@example.com',
        submitText: 'Send',
        fields: [
          { name: 'email', label: 'Email', required: true },
          { name: 'firstname', label: 'First name' },
        ],
      },
    });
    guid = form.json.guid;
    m = await mountOn(t, {}, { door });
  });
  afterAll(async () => {
    await m.close();
    await t.close();
  });

  describe('GET /forms/:guid', () => {
    it('answers the public definition without internal settings', async () => {
      const r = await call(`${m.url}/forms/${guid}`);
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ guid, name: 'Contact us', submitText: 'Send', portalId: t.portals[0].portalId });
      expect(r.json.fields.map((f: { name: string }) => f.name)).toEqual(['email', 'firstname']);
      expect(r.json.fields[0]).toMatchObject({ label: 'Email', required: true });
      expect(r.text).not.toContain('sales@example.com');
      expect(r.json).not.toHaveProperty('notifyRecipients');
      expect(r.json).not.toHaveProperty('embeddedCode');
      expect(r.headers.get('cache-control')).toBe('public, max-age=60');
    });

    it('passes group rich text, dependent fields and the public part of validation', async () => {
      const created = await t.call('POST', '/contacts/v1/forms', {
        body: {
          name: 'Demo request',
          notifyRecipients: 'sales@example.com',
          formFieldGroups: [
            { fields: [], richText: { content: '<p>Book a <b>demo</b></p>' } },
            {
              fields: [
                {
                  name: 'email',
                  validation: {
                    message: 'Work address, please',
                    blockedEmailAddresses: ['example.org'],
                    useDefaultBlockList: true,
                  },
                },
                {
                  name: 'numemployees',
                  dependentFieldFilters: [
                    {
                      filters: [{ operator: 'EQ', strValue: '1000+' }],
                      dependentFormField: { name: 'company', label: 'Which company?', required: true },
                    },
                  ],
                },
              ],
            },
          ],
        },
      });
      expect(created.status).toBe(200);
      const r = await call(`${m.url}/forms/${created.json.guid}`);
      expect(r.status).toBe(200);
      expect(r.json.formFieldGroups[0]).toEqual({ fields: [], richText: { content: '<p>Book a <b>demo</b></p>' } });
      // A group without text carries none; group settings stay server-side.
      expect(r.json.formFieldGroups[1]).toEqual({ fields: r.json.fields });
      expect(r.json.fields[0].validation).toEqual({
        name: '',
        message: 'Work address, please',
        data: '',
        useDefaultBlockList: true,
        blockedEmailAddresses: ['example.org'],
      });
      expect(r.json.fields[1].dependentFieldFilters).toEqual([
        {
          filters: [{ operator: 'EQ', strValue: '1000+' }],
          dependentFormField: expect.objectContaining({
            name: 'company',
            label: 'Which company?',
            required: true,
            fieldType: 'text',
          }),
          formFieldAction: 'DISPLAY',
        },
      ]);
      // Only the keys the embed uses, nested ones included.
      const dependent = r.json.fields[1].dependentFieldFilters[0].dependentFormField;
      expect(dependent).not.toHaveProperty('groupName');
      expect(dependent).not.toHaveProperty('isSmartField');
      expect(r.json.fields[0]).not.toHaveProperty('isSmartField');
      expect(r.text).not.toContain('sales@example.com');
    });

    it('caches definitions until the TTL passes', async () => {
      expect((await t.call('POST', `/contacts/v1/forms/${guid}`, { body: { submitText: 'Go' } })).status).toBe(200);
      expect((await call(`${m.url}/forms/${guid}`)).json.submitText).toBe('Send');
      t.clock.now += 61_000;
      expect((await call(`${m.url}/forms/${guid}`)).json.submitText).toBe('Go');
    });

    it('answers 404 for an unknown form and 400 for a malformed guid', async () => {
      const unknown = await call(`${m.url}/forms/00000000-0000-0000-0000-000000000000`);
      expect(unknown.status).toBe(404);
      expect(unknown.json).toEqual({ status: 'error', message: 'no form with this guid' });
      const bad = await call(`${m.url}/forms/${encodeURIComponent('../contacts')}`);
      expect(bad.status).toBe(400);
      expect(bad.json.message).toMatch(/guid/);
    });

    it('names the guid when it is not valid percent-encoding, on the definition and the visitor route', async () => {
      for (const path of ['/forms/%ZZ', '/forms/%E0%A4%A', '/forms/%E0%A4%A/visitor']) {
        const r = await call(`${m.url}${path}`);
        expect(r.status, path).toBe(400);
        expect(r.json, path).toEqual({
          status: 'error',
          message: 'the path parameter guid is not valid percent-encoding',
        });
      }
    });

    it('answers 304 to a browser whose copy is current', async () => {
      const first = await call(`${m.url}/forms/${guid}`);
      const etag = first.headers.get('etag')!;
      expect(etag).toMatch(/^W\/"/);
      // undici's request, not fetch: fetch adds Cache-Control: no-cache to conditional requests.
      const again = await request(`${m.url}/forms/${guid}`, { headers: { 'if-none-match': etag } });
      expect(again.statusCode).toBe(304);
      expect(await again.body.text()).toBe('');
    });
  });

  describe('GET /healthz', () => {
    it('is ok when the platform answers', async () => {
      const r = await call(`${m.url}/healthz`);
      expect(r.status).toBe(200);
      expect(r.json).toEqual({ status: 'ok', upstream: 'ok', pendingEvents: 0 });
    });

    it('says unauthorized when the credentials are refused, without the platform\u2019s message', async () => {
      const bad = await mountOn(t, { auth: { accessToken: 'svc-pat-wrong' } }, { door });
      try {
        const r = await call(`${bad.url}/healthz`);
        expect(r.status).toBe(503);
        expect(r.json).toEqual({ status: 'degraded', upstream: 'unauthorized', pendingEvents: 0 });
      } finally {
        await bad.close();
      }
    });

    it('says unreachable when the platform is down', async () => {
      const down = await mount({ baseUrl: 'http://127.0.0.1:9', auth: { accessToken: 'x' } }, { door });
      try {
        const r = await call(`${down.url}/healthz`);
        expect(r.status).toBe(503);
        expect(r.json.upstream).toBe('unreachable');
      } finally {
        await down.close();
      }
    });
  });
});
