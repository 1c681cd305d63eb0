import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../src/db/engine';
import { startPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
beforeAll(async () => {
  t = await startPlatform();
});
afterAll(() => t.close());

const PORTAL = 62515;

async function createForm(body: Record<string, unknown>) {
  const res = await t.call('POST', '/contacts/v1/forms', { body });
  expect(res.status).toBe(200);
  return res.json;
}

/** A urlencoded submission on {forms_url}, without credentials. */
function submit(
  guid: string,
  fields: [string, string][],
  {
    portalId = PORTAL,
    context,
    headers = {},
  }: { portalId?: number; context?: unknown; headers?: Record<string, string> } = {},
) {
  const params = new URLSearchParams(fields);
  if (context !== undefined) params.set('svc_context', typeof context == 'string' ? context : JSON.stringify(context));
  return t.call('POST', `${t.formsUrl}/uploads/form/v2/${portalId}/${guid}`, {
    body: params.toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    portal: null,
  });
}

const contactByEmail = (email: string) =>
  t.call('GET', `/contacts/v1/contact/email/${email}/profile?formSubmissionMode=all`);

describe('form definitions', () => {
  it('creates a form whose fields default from the contact properties', async () => {
    const form = await createForm({
      name: 'Newsletter',
      redirect: 'https://example.com/thanks',
      fields: [{ name: 'email', required: true }, { name: 'firstname', label: 'Your name' }, { name: 'numemployees' }],
    });
    expect(form).toMatchObject({
      portalId: PORTAL,
      name: 'Newsletter',
      method: 'POST',
      redirect: 'https://example.com/thanks',
      inlineMessage: '',
      deletable: true,
    });
    expect(form.guid).toMatch(/^[0-9a-f-]{36}$/);
    expect(form.fields.map((f: { name: string }) => f.name)).toEqual(['email', 'firstname', 'numemployees']);
    expect(form.fields[0]).toMatchObject({
      label: 'Email',
      type: 'string',
      fieldType: 'text',
      groupName: 'contactinformation',
      required: true,
      displayOrder: 0,
    });
    expect(form.fields[1]).toMatchObject({ label: 'Your name', required: false });
    expect(form.fields[2]).toMatchObject({ type: 'enumeration', fieldType: 'select' });
    expect(form.fields[2].options.map((o: { value: string }) => o.value)).toContain('1-5');
    expect(form.formFieldGroups).toHaveLength(3);
    expect(form.formFieldGroups[1].fields).toEqual([form.fields[1]]);
    expect(form.embeddedCode).toContain(`svc.forms.create({ portalId: ${PORTAL}, formId: "${form.guid}" })`);
    expect(form.createdAt).toBe(form.updatedAt);
  });

  it('lists, reads, updates (fields replace) and deletes', async () => {
    const form = await createForm({
      name: 'Contact us',
      formFieldGroups: [{ fields: [{ name: 'email' }] }, { fields: [{ name: 'message' }] }],
    });
    expect(form.fields.map((f: { name: string }) => f.name)).toEqual(['email', 'message']);
    const list = await t.call('GET', '/contacts/v1/forms');
    expect(list.json.map((f: { guid: string }) => f.guid)).toContain(form.guid);
    expect((await t.call('GET', `/contacts/v1/forms/${form.guid}`)).json).toEqual(form);

    t.clock.now += 1000;
    const renamed = await t.call('POST', `/contacts/v1/forms/${form.guid}`, { body: { submitText: 'Send' } });
    expect(renamed.json).toMatchObject({ name: 'Contact us', submitText: 'Send', updatedAt: form.updatedAt + 1000 });
    expect(renamed.json.fields).toEqual(form.fields);
    const refielded = await t.call('POST', `/contacts/v1/forms/${form.guid}`, {
      body: { fields: [{ name: 'email' }, { name: 'phone' }] },
    });
    expect(refielded.json.fields.map((f: { name: string }) => f.name)).toEqual(['email', 'phone']);

    const fields = await t.call('GET', `/contacts/v1/fields/${form.guid}`);
    expect(fields.json).toEqual(refielded.json.fields);
    const phone = await t.call('GET', `/contacts/v1/fields/${form.guid}/phone`);
    expect(phone.json).toMatchObject({ name: 'phone', label: 'Phone Number' });

    const deleted = await t.call('DELETE', `/contacts/v1/forms/${form.guid}`);
    expect(deleted.status).toBe(204);
    const gone = await t.call('GET', `/contacts/v1/forms/${form.guid}`);
    expect(gone.status).toBe(404);
  });

  it('lists forms made in the same millisecond in the order they were made', async () => {
    // The clock stands still: only the tie-break orders them (their guids are random).
    const made: string[] = [];
    for (const name of ['Tie 1', 'Tie 2', 'Tie 3', 'Tie 4'])
      made.push((await createForm({ name, fields: [{ name: 'email' }] })).guid);
    const listed = (await t.call('GET', '/contacts/v1/forms')).json.map((f: { guid: string }) => f.guid);
    expect(listed.filter((guid: string) => made.includes(guid))).toEqual(made);
    // An update keeps a form's place.
    expect((await t.call('POST', `/contacts/v1/forms/${made[0]}`, { body: { submitText: 'Go' } })).status).toBe(200);
    const again = (await t.call('GET', '/contacts/v1/forms')).json.map((f: { guid: string }) => f.guid);
    expect(again.filter((guid: string) => made.includes(guid))).toEqual(made);
  });

  it('answers 404 for an unknown form, an unknown field and another portal’s form', async () => {
    const guid = crypto.randomUUID();
    const missing = await t.call('GET', `/contacts/v1/forms/${guid}`);
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({
      status: 'error',
      message: `No form found with guid '${guid}'`,
      type: 'NOT_FOUND',
    });
    expect((await t.call('GET', `/contacts/v1/fields/${guid}`)).status).toBe(404);

    const form = await createForm({ name: 'Mine', fields: [{ name: 'email' }] });
    const field = await t.call('GET', `/contacts/v1/fields/${form.guid}/firstname`);
    expect(field.status).toBe(404);
    expect(field.json.message).toBe(
      `The Form with the guid '${form.guid}' has no FormField with the name 'firstname'.`,
    );

    const other = t.portals[1];
    for (const [method, path] of [
      ['GET', `/contacts/v1/forms/${form.guid}`],
      ['POST', `/contacts/v1/forms/${form.guid}`],
      ['DELETE', `/contacts/v1/forms/${form.guid}`],
      ['GET', `/contacts/v1/fields/${form.guid}`],
    ]) {
      const res = await t.call(method, path, {
        portal: other,
        body: method == 'POST' ? { name: 'stolen' } : undefined,
      });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect((await t.call('GET', '/contacts/v1/forms', { portal: other })).json).toEqual([]);
    expect((await t.call('GET', `/contacts/v1/forms/${form.guid}`)).json.name).toBe('Mine');
  });

  it('rejects a missing name and fields that are not writable contact properties', async () => {
    const noName = await t.call('POST', '/contacts/v1/forms', { body: { fields: [{ name: 'email' }] } });
    expect(noName.status).toBe(400);
    expect(noName.json).toMatchObject({
      type: 'MISSING_NAME',
      message: expect.stringMatching(/^Form name is required, form guid '/),
    });
    const blank = await t.call('POST', '/contacts/v1/forms', { body: { name: '  ' } });
    expect(blank.json.type).toBe('MISSING_NAME');

    const unknown = await t.call('POST', '/contacts/v1/forms', {
      body: { name: 'x', fields: [{ name: 'email' }, { name: 'shoe_size' }] },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.json.message).toBe("fields.1.name: 'shoe_size' is not a contact property");
    const readOnly = await t.call('POST', '/contacts/v1/forms', {
      body: { name: 'x', fields: [{ name: 'createdate' }] },
    });
    expect(readOnly.json.message).toBe("fields.0.name: 'createdate' is a read-only contact property");
    const twice = await t.call('POST', '/contacts/v1/forms', {
      body: { name: 'x', fields: [{ name: 'email' }, { name: 'email' }] },
    });
    expect(twice.status).toBe(400);

    const form = await createForm({ name: 'Valid', fields: [{ name: 'email' }] });
    const update = await t.call('POST', `/contacts/v1/forms/${form.guid}`, {
      body: { fields: [{ name: 'shoe_size' }] },
    });
    expect(update.status).toBe(400);
    expect((await t.call('GET', `/contacts/v1/fields/${form.guid}`)).json.map((f: { name: string }) => f.name)).toEqual(
      ['email'],
    );
  });
});

/** A form using every part of the reference's group and field format the embed reads. */
const RICH_FORM = {
  name: 'Demo request',
  formFieldGroups: [
    { fields: [], richText: { content: '<h2>Book a demo</h2><p>It takes <b>a minute</b>.</p>', type: 'TEXT' } },
    {
      fields: [
        {
          name: 'email',
          required: true,
          validation: {
            message: 'Please use your work address',
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
      default: true,
      isSmartGroup: false,
    },
  ],
};

describe('groups, rich text, validation and dependent fields', () => {
  it('keeps the groups with their rich text, the fields’ validation and dependent fields', async () => {
    const form = await createForm(RICH_FORM);
    expect(form.formFieldGroups).toHaveLength(2);
    expect(form.formFieldGroups[0]).toEqual({
      fields: [],
      default: true,
      isSmartGroup: false,
      richText: RICH_FORM.formFieldGroups[0].richText,
    });
    expect(form.formFieldGroups[1]).toMatchObject({ default: true, isSmartGroup: false, richText: { content: '' } });
    // `fields` stays the flat list; the dependent field lives in its parent's filters.
    expect(form.fields.map((f: { name: string }) => f.name)).toEqual(['email', 'numemployees']);
    expect(form.formFieldGroups[1].fields).toEqual(form.fields);
    expect(form.fields[0].validation).toEqual({
      name: '',
      message: 'Please use your work address',
      data: '',
      useDefaultBlockList: true,
      blockedEmailAddresses: ['example.org'],
    });
    const [rule] = form.fields[1].dependentFieldFilters;
    expect(rule).toMatchObject({ filters: [{ operator: 'EQ', strValue: '1000+' }], formFieldAction: 'DISPLAY' });
    // The dependent field is filled from its contact property like any other.
    expect(rule.dependentFormField).toMatchObject({
      name: 'company',
      label: 'Which company?',
      required: true,
      type: 'string',
      groupName: 'companyinformation',
    });
    expect(form.fields[0].dependentFieldFilters).toEqual([]);

    expect((await t.call('GET', `/contacts/v1/forms/${form.guid}`)).json).toEqual(form);
    expect((await t.call('GET', `/contacts/v1/fields/${form.guid}/company`)).json).toEqual(rule.dependentFormField);

    // Writing `fields` replaces the groups: one group per field again, without rich text.
    const flat = await t.call('POST', `/contacts/v1/forms/${form.guid}`, { body: { fields: [{ name: 'email' }] } });
    expect(flat.json.formFieldGroups).toEqual([
      { fields: flat.json.fields, default: true, isSmartGroup: false, richText: { content: '' } },
    ]);
  });

  it('refuses a dependent field already on the form, unknown properties and unbounded rules', async () => {
    const twice = await t.call('POST', '/contacts/v1/forms', {
      body: {
        name: 'x',
        fields: [
          { name: 'email' },
          {
            name: 'numemployees',
            dependentFieldFilters: [{ filters: [{ operator: 'IS_NOT_EMPTY' }], dependentFormField: { name: 'email' } }],
          },
        ],
      },
    });
    expect(twice.status).toBe(400);
    expect(twice.json.message).toBe(
      "fields.1.dependentFieldFilters.0.dependentFormField.name: 'email' is on the form twice",
    );
    const unknown = await t.call('POST', '/contacts/v1/forms', {
      body: {
        name: 'x',
        fields: [
          {
            name: 'email',
            dependentFieldFilters: [
              { filters: [{ operator: 'EQ', strValue: 'a' }], dependentFormField: { name: 'shoe_size' } },
            ],
          },
        ],
      },
    });
    expect(unknown.json.message).toBe(
      "fields.0.dependentFieldFilters.0.dependentFormField.name: 'shoe_size' is not a contact property",
    );
    const longText = await t.call('POST', '/contacts/v1/forms', {
      body: { name: 'x', formFieldGroups: [{ fields: [], richText: { content: 'x'.repeat(65_537) } }] },
    });
    expect(longText.status).toBe(400);
    const manyDomains = await t.call('POST', '/contacts/v1/forms', {
      body: {
        name: 'x',
        fields: [
          {
            name: 'email',
            validation: { blockedEmailAddresses: Array.from({ length: 1001 }, (_, i) => `d${i}.test`) },
          },
        ],
      },
    });
    expect(manyDomains.status).toBe(400);
    const manyFields = await t.call('POST', '/contacts/v1/forms', {
      body: {
        name: 'x',
        formFieldGroups: [150, 51].map((n) => ({ fields: Array.from({ length: n }, () => ({ name: 'email' })) })),
      },
    });
    expect(manyFields.json.message).toBe('formFieldGroups: at most 200 fields in all');
    const noFilters = await t.call('POST', '/contacts/v1/forms', {
      body: {
        name: 'x',
        fields: [{ name: 'email', dependentFieldFilters: [{ filters: [], dependentFormField: { name: 'company' } }] }],
      },
    });
    expect(noFilters.status).toBe(400);
  });

  it('accepts a value of a dependent field in a submission, and does not require it', async () => {
    const form = await createForm(RICH_FORM);
    const res = await submit(form.guid, [
      ['email', 'dep@example.com'],
      ['numemployees', '1000+'],
      ['company', 'Initech'],
    ]);
    expect(res.status).toBe(204);
    const contact = await contactByEmail('dep@example.com');
    expect(contact.json.properties).toMatchObject({ numemployees: { value: '1000+' }, company: { value: 'Initech' } });
    // Shown only when its condition holds, which the embed decides: left out, it is not missing.
    expect(
      (
        await submit(form.guid, [
          ['email', 'dep2@example.com'],
          ['numemployees', '1-5'],
        ])
      ).status,
    ).toBe(204);
  });

  it('refuses an address the email field blocks (its own domains, the free-mail list), as the embed does', async () => {
    const form = await createForm(RICH_FORM);
    for (const email of ['lead@Example.ORG', 'lead@gmail.com']) {
      const res = await submit(form.guid, [['email', email]]);
      expect(res.status).toBe(400);
      expect(res.json.errors).toEqual([
        { message: `Email address ${email} is blocked by the form`, errorType: 'BLOCKED_EMAIL', in: 'body.email' },
      ]);
      expect((await contactByEmail(email.toLowerCase())).status).toBe(404);
    }
    expect((await submit(form.guid, [['email', 'lead@example.net']])).status).toBe(204);
  });

  it('keeps serving and accepting forms stored before groups were kept', async () => {
    const form = await createForm({ name: 'Old', fields: [{ name: 'email' }, { name: 'firstname' }] });
    // A definition as earlier versions wrote it: no groups, no dependent-field rules.
    const { engine } = t.platform.services;
    const old = JSON.parse(
      (await engine.value(
        sql<[string], { definition: string }>('SELECT definition FROM forms WHERE guid = ?'),
        form.guid,
      ))!,
    );
    for (const f of old.fields) delete f.dependentFieldFilters;
    await engine.run(
      sql<[string, string]>('UPDATE forms SET definition = ? WHERE guid = ?'),
      JSON.stringify(old),
      form.guid,
    );

    const read = await t.call('GET', `/contacts/v1/forms/${form.guid}`);
    expect(read.status).toBe(200);
    expect(read.json.formFieldGroups.map((g: { fields: { name: string }[] }) => g.fields.map((f) => f.name))).toEqual([
      ['email'],
      ['firstname'],
    ]);
    expect(
      (
        await submit(form.guid, [
          ['email', 'old@example.com'],
          ['firstname', 'Old'],
        ])
      ).status,
    ).toBe(204);
  });
});

describe('form submission', () => {
  let form: { guid: string; name: string };
  beforeAll(async () => {
    await t.call('PUT', '/contacts/v1/properties/interests', {
      body: {
        label: 'Interests',
        groupName: 'contactinformation',
        type: 'enumeration',
        fieldType: 'checkbox',
        options: ['news', 'events', 'offers'].map((v) => ({ label: v, value: v })),
      },
    });
    form = await createForm({
      name: 'Signup',
      fields: [
        { name: 'email', required: true },
        { name: 'firstname', required: true },
        { name: 'company' },
        { name: 'interests' },
      ],
    });
  });

  it('creates the contact, records the submission and links the visitor token (204, no auth)', async () => {
    const utk = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
    const context = { svcutk: utk, pageUrl: 'https://example.com/signup', pageName: 'Sign up' };
    const res = await submit(
      form.guid,
      [
        ['email', 'Grace@Example.com'],
        ['firstname', 'Grace'],
        ['company', ''],
        ['interests', 'news'],
        ['interests', 'events'],
      ],
      { context },
    );
    expect(res.status).toBe(204);
    expect(res.text).toBe('');

    const contact = await contactByEmail('grace@example.com');
    expect(contact.status).toBe(200);
    expect(contact.json.properties).toMatchObject({
      email: { value: 'grace@example.com' },
      firstname: { value: 'Grace' },
      interests: { value: 'news;events' },
      num_conversion_events: { value: '1' },
      recent_conversion_date: { value: String(t.clock.now) },
    });
    expect(contact.json.properties.company).toBeUndefined();
    const [submission] = contact.json['form-submissions'];
    expect(submission).toMatchObject({
      'form-id': form.guid,
      'portal-id': PORTAL,
      'page-url': context.pageUrl,
      'page-title': 'Sign up',
      title: 'Signup',
    });
    expect(contact.json.properties.firstname.versions[0]).toMatchObject({
      'source-type': 'FORM',
      'source-id': submission['conversion-id'],
    });

    const byUtk = await t.call('GET', `/contacts/v1/contact/utk/${utk}/profile`);
    expect(byUtk.status).toBe(200);
    expect(byUtk.json.vid).toBe(contact.json.vid);
    expect(byUtk.json['identity-profiles'][0].identities).toContainEqual(
      expect.objectContaining({ type: 'LEAD_GUID', value: utk }),
    );
  });

  it('updates the same contact on a second submission and appends a submission', async () => {
    const first = await contactByEmail('grace@example.com');
    t.clock.now += 60_000;
    const res = await submit(form.guid, [
      ['email', 'grace@example.com'],
      ['firstname', 'Grace H.'],
      ['company', 'Navy'],
    ]);
    expect(res.status).toBe(204);
    const contact = await contactByEmail('grace@example.com');
    expect(contact.json.vid).toBe(first.json.vid);
    expect(contact.json.properties).toMatchObject({
      firstname: { value: 'Grace H.' },
      company: { value: 'Navy' },
      interests: { value: 'news;events' },
      num_conversion_events: { value: '2' },
      recent_conversion_date: { value: String(t.clock.now) },
    });
    expect(contact.json['form-submissions']).toHaveLength(2);
    expect(contact.json['form-submissions'][0].timestamp).toBe(t.clock.now);
  });

  it('takes hutk as another name of svcutk in svc_context (clients written for the real API send it)', async () => {
    const utk = 'b7'.repeat(16);
    const res = await submit(
      form.guid,
      [
        ['email', 'hutk@example.com'],
        ['firstname', 'H'],
      ],
      { context: { hutk: utk } },
    );
    expect(res.status).toBe(204);
    const byUtk = await t.call('GET', `/contacts/v1/contact/utk/${utk}/profile`);
    expect(byUtk.json.properties.email.value).toBe('hutk@example.com');
    // A malformed one is ignored and named; the submission is kept (spam-review.test.ts has more).
    const bad = await submit(
      form.guid,
      [
        ['email', 'hutk2@example.com'],
        ['firstname', 'H'],
      ],
      { context: { hutk: 'not-a-token' } },
    );
    expect([bad.status, bad.headers.get('x-svc-ignored-context')]).toEqual([204, 'hutk']);
    expect((await contactByEmail('hutk2@example.com')).status).toBe(200);
  });

  it('redirects with 302 to the context’s redirectUrl, else the form’s redirect', async () => {
    const fromContext = await submit(
      form.guid,
      [
        ['email', 'r1@example.com'],
        ['firstname', 'R'],
      ],
      {
        context: { redirectUrl: 'https://example.com/thanks?lang=en#top' },
      },
    );
    expect(fromContext.status).toBe(302);
    expect(fromContext.headers.get('location')).toMatch(
      /^https:\/\/example\.com\/thanks\?lang=en&submissionGuid=[0-9a-f-]{36}#top$/,
    );
    const guid = fromContext.headers.get('location')!.match(/submissionGuid=([0-9a-f-]+)/)![1];
    const contact = await contactByEmail('r1@example.com');
    expect(contact.json['form-submissions'][0]['conversion-id']).toBe(guid);

    const redirecting = await createForm({
      name: 'Redirecting',
      redirect: 'https://example.com/done',
      fields: [{ name: 'email' }],
    });
    const fromForm = await submit(redirecting.guid, [['email', 'r2@example.com']]);
    expect(fromForm.status).toBe(302);
    expect(fromForm.headers.get('location')).toMatch(/^https:\/\/example\.com\/done\?submissionGuid=[0-9a-f-]{36}$/);
    expect(fromForm.text).toBe('');
  });

  it('redirects only to http(s) URLs: a javascript: or relative redirect is refused where it is written, ignored in a submission', async () => {
    for (const redirect of [
      'javascript:alert(document.cookie)',
      'data:text/html,<script>1</script>',
      '/relative',
      'not a url',
    ]) {
      const created = await t.call('POST', '/contacts/v1/forms', {
        body: { name: `Bad redirect ${redirect}`, redirect, fields: [{ name: 'email' }] },
      });
      expect(created.status, redirect).toBe(400);
      expect(created.json.message, redirect).toBe('body.redirect: must be an absolute http(s) URL');
      const updated = await t.call('POST', `/contacts/v1/forms/${form.guid}`, { body: { redirect } });
      expect(updated.status, redirect).toBe(400);
      // The visitor's answers are kept; the redirect is not followed (the form has none: 204).
      const submitted = await submit(
        form.guid,
        [
          ['email', 'js@example.com'],
          ['firstname', 'J'],
        ],
        { context: { redirectUrl: redirect } },
      );
      expect(
        [submitted.status, submitted.headers.get('x-svc-ignored-context'), submitted.headers.get('location')],
        redirect,
      ).toEqual([204, 'redirectUrl', null]);
    }
    expect((await contactByEmail('js@example.com')).status).toBe(200);
    // An empty redirect means none: the inline message shows.
    expect(
      (
        await t.call('POST', '/contacts/v1/forms', {
          body: { name: 'No redirect', redirect: '', fields: [{ name: 'email' }] },
        })
      ).status,
    ).toBe(200);
  });

  it('answers 404 for an unknown form and for another portal’s form', async () => {
    const unknown = await submit(crypto.randomUUID(), [
      ['email', 'x@example.com'],
      ['firstname', 'X'],
    ]);
    expect(unknown.status).toBe(404);
    expect(unknown.json.type).toBe('NOT_FOUND');
    const wrongPortal = await submit(
      form.guid,
      [
        ['email', 'x@example.com'],
        ['firstname', 'X'],
      ],
      { portalId: t.portals[1].portalId },
    );
    expect(wrongPortal.status).toBe(404);
    expect((await contactByEmail('x@example.com')).status).toBe(404);
  });

  it('answers 400 naming the fields: missing required, not on the form, invalid email', async () => {
    const missing = await submit(form.guid, [['email', 'y@example.com']]);
    expect(missing.status).toBe(400);
    expect(missing.json.message).toBe("Required field 'firstname' is missing");
    expect(missing.json.errors).toEqual([
      { message: "Required field 'firstname' is missing", errorType: 'REQUIRED_FIELD', in: 'body.firstname' },
    ]);

    const extra = await submit(form.guid, [
      ['email', 'y@example.com'],
      ['firstname', 'Y'],
      ['shoe_size', '42'],
    ]);
    expect(extra.status).toBe(400);
    expect(extra.json.errors).toEqual([
      expect.objectContaining({ errorType: 'FIELD_NOT_IN_FORM_DEFINITION', in: 'body.shoe_size' }),
    ]);

    const badEmail = await submit(form.guid, [
      ['email', 'not-an-email'],
      ['firstname', 'Y'],
    ]);
    expect(badEmail.status).toBe(400);
    expect(badEmail.json.errors).toEqual([expect.objectContaining({ errorType: 'INVALID_EMAIL', in: 'body.email' })]);
    const noEmail = await submit(form.guid, [['firstname', 'Y']]);
    expect(noEmail.json.errors).toEqual([expect.objectContaining({ errorType: 'REQUIRED_FIELD', in: 'body.email' })]);

    const badOption = await submit(form.guid, [
      ['email', 'y@example.com'],
      ['firstname', 'Y'],
      ['interests', 'gossip'],
    ]);
    expect(badOption.status).toBe(400);
    expect(badOption.json.validationResults[0]).toMatchObject({ name: 'interests', error: 'INVALID_OPTION' });

    // Nothing was half-written.
    expect((await contactByEmail('y@example.com')).status).toBe(404);
  });

  it('stores a submission of a form without an email field: no contact for an unknown visitor, the known visitor’s contact updated', async () => {
    const survey = await createForm({
      name: 'Survey',
      fields: [{ name: 'company', required: true }, { name: 'jobtitle' }],
    });
    const stored = () =>
      t.platform.services.engine.all(
        sql<[string]>('SELECT vid, values_json FROM form_submissions WHERE form_guid = ? ORDER BY timestamp'),
        survey.guid,
      );
    const stranger = 'c3'.repeat(16);
    const anonymous = await submit(
      survey.guid,
      [
        ['company', 'Umbrella Corp'],
        ['jobtitle', 'Analyst'],
      ],
      { context: { svcutk: stranger } },
    );
    expect(anonymous.status, anonymous.text).toBe(204);
    expect(await stored()).toEqual([
      { vid: null, values_json: JSON.stringify({ company: 'Umbrella Corp', jobtitle: 'Analyst' }) },
    ]);
    expect((await t.call('GET', `/contacts/v1/contact/utk/${stranger}/profile`)).status).toBe(404);
    expect((await t.call('GET', '/contacts/v1/search/query?q=Umbrella')).json.total).toBe(0);
    // Still validated: the required field.
    expect((await submit(survey.guid, [['jobtitle', 'x']])).json.errors).toEqual([
      expect.objectContaining({ errorType: 'REQUIRED_FIELD', in: 'body.company' }),
    ]);

    // A visitor who is a contact already (by an earlier form) has the answers on their contact.
    const known = 'c4'.repeat(16);
    expect(
      (
        await submit(
          form.guid,
          [
            ['email', 'known@example.com'],
            ['firstname', 'Kim'],
          ],
          { context: { svcutk: known } },
        )
      ).status,
    ).toBe(204);
    t.clock.now += 1000;
    expect((await submit(survey.guid, [['company', 'Hooli']], { context: { svcutk: known } })).status).toBe(204);
    const contact = await contactByEmail('known@example.com');
    expect(contact.json.properties).toMatchObject({
      company: { value: 'Hooli' },
      num_conversion_events: { value: '2' },
    });
    expect(contact.json['form-submissions'].map((s: { 'form-id': string }) => s['form-id'])).toEqual([
      survey.guid,
      form.guid,
    ]);
  });

  it('stops asking for a field whose property was deleted, and still accepts submissions (also from a page loaded before)', async () => {
    const made = await t.call('PUT', '/contacts/v1/properties/pet_name', {
      body: { label: 'Pet', groupName: 'contactinformation', type: 'string', fieldType: 'text' },
    });
    expect(made.status, made.text).toBe(200);
    const pets = await createForm({
      name: 'Pets',
      formFieldGroups: [
        { fields: [{ name: 'email', required: true }] },
        { fields: [{ name: 'pet_name', required: true }] },
        { fields: [{ name: 'firstname' }] },
      ],
    });
    expect(
      (
        await submit(pets.guid, [
          ['email', 'pets@example.com'],
          ['pet_name', 'Rex'],
        ])
      ).status,
    ).toBe(204);
    t.clock.now += 1000;
    expect((await t.call('DELETE', '/contacts/v1/properties/pet_name')).status).toBe(204);

    const read = (await t.call('GET', `/contacts/v1/forms/${pets.guid}`)).json;
    expect(read.fields.map((f: { name: string }) => f.name)).toEqual(['email', 'firstname']);
    expect(read.formFieldGroups.map((g: { fields: { name: string }[] }) => g.fields.map((f) => f.name))).toEqual([
      ['email'],
      ['firstname'],
    ]);
    expect((await t.call('GET', `/contacts/v1/fields/${pets.guid}`)).json.map((f: { name: string }) => f.name)).toEqual(
      ['email', 'firstname'],
    );
    expect((await t.call('GET', `/contacts/v1/fields/${pets.guid}/pet_name`)).status).toBe(404);

    // The required field is no longer required; a page loaded before the deletion still sends it.
    expect((await submit(pets.guid, [['email', 'pets2@example.com']])).status).toBe(204);
    const stale = await submit(pets.guid, [
      ['email', 'pets3@example.com'],
      ['pet_name', 'Tom'],
    ]);
    expect(stale.status, stale.text).toBe(204);
    expect((await contactByEmail('pets3@example.com')).json.properties.pet_name).toBeUndefined();

    // A property created again under that name is a new one: the form does not ask for it.
    t.clock.now += 1000;
    expect(
      (
        await t.call('PUT', '/contacts/v1/properties/pet_name', {
          body: { label: 'Pet', groupName: 'contactinformation', type: 'string', fieldType: 'text' },
        })
      ).status,
    ).toBe(200);
    expect(
      (await t.call('GET', `/contacts/v1/forms/${pets.guid}`)).json.fields.map((f: { name: string }) => f.name),
    ).toEqual(['email', 'firstname']);
  });

  it('sends CORS headers on submissions and preflights', async () => {
    const origin = 'https://site.example';
    const res = await submit(
      form.guid,
      [
        ['email', 'cors@example.com'],
        ['firstname', 'C'],
      ],
      { headers: { origin } },
    );
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBeTruthy();
    const preflight = await fetch(`${t.formsUrl}/uploads/form/v2/${PORTAL}/${form.guid}`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(preflight.status).toBeLessThan(300);
    expect(preflight.headers.get('access-control-allow-origin')).toBeTruthy();
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
  });
});
