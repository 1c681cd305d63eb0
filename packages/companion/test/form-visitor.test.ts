/** GET /forms/:guid/visitor against the real platform: a known visitor's values of the form's
 * pre-fill fields only, queued questions in place of answered smart fields up to the limit,
 * nothing for unknown, opted-out or cookieless visitors; and what GET /forms/:guid passes of the
 * issue-19 definition fields (and keeps back). Through both doors. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replacements } from '../src/form-visitor';
import {
  call,
  forEachDoor,
  identifiedVisitor,
  mountOn,
  newUtk,
  startTestPlatform,
  type Mounted,
  type TestPlatform,
} from './harness';

forEachDoor((door) => {
  let t: TestPlatform;
  let m: Mounted;
  let guid: string;
  const ada = newUtk();

  beforeAll(async () => {
    t = await startTestPlatform();
    await identifiedVisitor(t, ada, {
      email: 'ada@example.com',
      firstname: 'Ada',
      lastname: 'Lovelace',
      company: 'Analytical Engines',
      phone: '+44 1234',
    });
    const form = await t.call('POST', '/contacts/v1/forms', {
      body: {
        name: 'Contact us',
        notifyRecipients: 'sales@example.com',
        formFieldGroups: [
          { fields: [{ name: 'email', required: true, prefill: true, isSmartField: true }] },
          {
            fields: [
              { name: 'firstname', prefill: true },
              { name: 'company', isSmartField: true },
              { name: 'lastname', isSmartField: true },
            ],
          },
          { fields: [{ name: 'website', hidden: true, queryParam: 'utm_source', cookieName: 'src' }] },
        ],
        queuedFields: [{ name: 'phone', label: 'Phone' }, { name: 'jobtitle', label: 'Your role' }, { name: 'city' }],
        queueLimit: 1,
        minFillTimeMs: 2000,
        steps: [
          { title: 'You', groups: 1 },
          { title: 'More', groups: 2 },
        ],
        legalConsentOptions: { consentToProcessCheckboxLabel: 'I agree', privacyText: 'Privacy' },
      },
    });
    expect(form.status, form.text).toBe(200);
    guid = form.json.guid;
    m = await mountOn(t, {}, { door });
  });
  afterAll(async () => {
    await m.close();
    await t.close();
  });

  describe('GET /forms/:guid with issue 19 fields', () => {
    it('passes queued questions, consent options, steps and field sources; keeps smart fields and limits back', async () => {
      const r = await call(`${m.url}/forms/${guid}`);
      expect(r.status).toBe(200);
      expect(r.json.queuedFields.map((f: { name: string }) => f.name)).toEqual(['phone', 'jobtitle', 'city']);
      expect(r.json.legalConsentOptions).toEqual({ consentToProcessCheckboxLabel: 'I agree', privacyText: 'Privacy' });
      expect(r.json.steps).toEqual([
        { title: 'You', groups: 1 },
        { title: 'More', groups: 2 },
      ]);
      expect(r.json.fields[0]).toMatchObject({ name: 'email', prefill: true });
      expect(r.json.fields[4]).toMatchObject({ queryParam: 'utm_source', cookieName: 'src' });
      expect(r.text).not.toContain('isSmartField');
      expect(r.text).not.toContain('queueLimit');
      expect(r.text).not.toContain('minFillTimeMs');
    });
  });

  describe('GET /forms/:guid/visitor', () => {
    it("answers a known visitor's pre-fill values and the next unanswered queued question, privately", async () => {
      const r = await call(`${m.url}/forms/${guid}/visitor`, { cookie: `svcutk=${ada}` });
      expect(r.status).toBe(200);
      // lastname and company are answered, but not email's place (the platform finds the contact by it),
      // and only one (queueLimit); phone is answered, so jobtitle is next.
      expect(r.json).toEqual({
        values: { email: 'ada@example.com', firstname: 'Ada' },
        replace: { company: 'jobtitle' },
      });
      expect(r.text).not.toContain('Lovelace');
      expect(r.text).not.toContain('Analytical');
      expect(r.headers.get('cache-control')).toBe('private, no-store');
      expect(r.headers.get('vary')).toContain('Cookie');
    });

    it('answers nothing for unknown, opted-out, cookieless and malformed visitors', async () => {
      for (const cookie of ['', `svcutk=${newUtk()}`, `svcutk=${ada}; __svc_opt_out=yes`, 'svcutk=nope']) {
        const r = await call(`${m.url}/forms/${guid}/visitor`, { cookie });
        expect(r.json, cookie).toEqual({ values: {}, replace: {} });
      }
    });

    it('answers nothing for a form that asks for neither, and 404/400 for unknown or malformed guids', async () => {
      const plain = await t.call('POST', '/contacts/v1/forms', {
        body: { name: 'Plain', fields: [{ name: 'email' }, { name: 'firstname' }] },
      });
      expect((await call(`${m.url}/forms/${plain.json.guid}/visitor`, { cookie: `svcutk=${ada}` })).json).toEqual({
        values: {},
        replace: {},
      });
      expect(
        (await call(`${m.url}/forms/00000000-0000-0000-0000-000000000000/visitor`, { cookie: `svcutk=${ada}` })).status,
      ).toBe(404);
      expect((await call(`${m.url}/forms/no%20way/visitor`, { cookie: `svcutk=${ada}` })).status).toBe(400);
    });

    it('replacements: answered smart fields in order, unanswered queued questions, up to the limit', () => {
      const rules = { prefill: [], smart: ['a', 'b', 'c'], queued: ['x', 'y', 'z'], queueLimit: Infinity };
      const answered = (n: string) => ['a', 'c', 'x'].includes(n);
      expect(replacements(rules, answered)).toEqual({ a: 'y', c: 'z' });
      expect(replacements({ ...rules, queueLimit: 1 }, answered)).toEqual({ a: 'y' });
      expect(replacements({ ...rules, queued: ['x'] }, answered)).toEqual({});
    });
  });
});
