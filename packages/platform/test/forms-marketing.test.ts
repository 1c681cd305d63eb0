/** Issue 19 on the platform, over real HTTP: legal consent (refused without what the form
 * requires, recorded with the texts shown on the contact and in the subscriptions API), spam
 * (honeypot, no sign of a person: recorded as such, no contact, and the answer a success), progressive
 * profiling's queued questions, and the new definition fields written and read back. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedEmailDefaults } from '../src/store/email-seed';
import { startPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
beforeAll(async () => {
  t = await startPlatform();
  await seedEmailDefaults(t.platform.services.engine, 62515, t.clock.now);
});
afterAll(() => t.close());

const PORTAL = 62515;

async function createForm(body: Record<string, unknown>) {
  const res = await t.call('POST', '/contacts/v1/forms', { body });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json;
}

function submit(guid: string, fields: [string, string][], extra: { context?: unknown; consent?: unknown } = {}) {
  const params = new URLSearchParams(fields);
  if (extra.context !== undefined) params.set('svc_context', JSON.stringify(extra.context));
  if (extra.consent !== undefined)
    params.set('legalConsentOptions', typeof extra.consent == 'string' ? extra.consent : JSON.stringify(extra.consent));
  return t.call('POST', `${t.formsUrl}/uploads/form/v2/${PORTAL}/${guid}`, {
    body: params.toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    portal: null,
  });
}

const profile = (email: string) => t.call('GET', `/contacts/v1/contact/email/${email}/profile?formSubmissionMode=all`);

async function subscriptionTypes() {
  const res = await t.call('GET', '/email/public/v1/subscriptions');
  return res.json.subscriptionDefinitions
    .filter((d: { active: boolean }) => d.active)
    .map((d: { id: number }) => d.id) as number[];
}

describe('legal consent', () => {
  let guid: string;
  let types: number[];
  beforeAll(async () => {
    types = await subscriptionTypes();
    const form = await createForm({
      name: 'Consent form',
      fields: [{ name: 'email', required: true }, { name: 'firstname' }],
      legalConsentOptions: {
        consentToProcessText: 'We process your data to answer you.',
        consentToProcessCheckboxLabel: 'I agree to the processing of my data.',
        communicationConsentText: 'We would like to send you news.',
        communicationsCheckboxes: [
          { subscriptionTypeId: types[0], label: 'Marketing emails', required: false },
          { subscriptionTypeId: types[1], label: 'The newsletter', required: false },
        ],
        privacyText: 'See our privacy policy.',
      },
    });
    guid = form.guid;
    expect(form.legalConsentOptions.communicationsCheckboxes).toHaveLength(2);
  });

  it('refuses a submission without the required consent to process, naming it', async () => {
    const res = await submit(guid, [['email', 'noconsent@example.com']]);
    expect(res.status).toBe(400);
    expect(res.json.errors).toEqual([
      expect.objectContaining({ errorType: 'REQUIRED_CONSENT', in: 'body.legalConsentOptions.consentToProcess' }),
    ]);
    expect((await profile('noconsent@example.com')).status).toBe(404);
  });

  it('refuses malformed consent and subscriptions the form does not offer', async () => {
    const bad = await submit(guid, [['email', 'bad@example.com']], { consent: '{nope' });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toContain('body.legalConsentOptions');
    const other = await submit(guid, [['email', 'bad@example.com']], {
      consent: { consent: { consentToProcess: true, communications: [{ value: true, subscriptionTypeId: 987654 }] } },
    });
    expect(other.status).toBe(400);
    expect(other.json.errors[0]).toMatchObject({ errorType: 'INVALID_CONSENT' });
  });

  it('records the consent on the contact and the subscriptions with legal basis and text', async () => {
    const res = await submit(
      guid,
      [
        ['email', 'ada@example.com'],
        ['firstname', 'Ada'],
      ],
      {
        consent: {
          consent: {
            consentToProcess: true,
            communications: [
              { value: true, subscriptionTypeId: types[1] },
              { value: false, subscriptionTypeId: types[0] },
            ],
          },
        },
      },
    );
    expect(res.status).toBe(204);
    const contact = (await profile('ada@example.com')).json;
    expect(contact['form-submissions'][0]['legal-consent']).toEqual({
      consentToProcess: true,
      text: 'We process your data to answer you.\nI agree to the processing of my data.',
      communications: [
        { subscriptionTypeId: types[0], value: false, text: 'We would like to send you news.\nMarketing emails' },
        { subscriptionTypeId: types[1], value: true, text: 'We would like to send you news.\nThe newsletter' },
      ],
    });
    const status = (await t.call('GET', '/email/public/v1/subscriptions/ada@example.com')).json;
    expect(status.subscriptionStatuses).toEqual([
      expect.objectContaining({
        id: types[1],
        subscribed: true,
        optState: 'OPT_IN',
        legalBasis: 'CONSENT_WITH_NOTICE',
        legalBasisExplanation: 'We would like to send you news.\nThe newsletter',
      }),
    ]);
  });

  it('refuses an unchecked required subscription, and a form offering a type the portal lacks', async () => {
    const form = await createForm({
      name: 'Required newsletter',
      fields: [{ name: 'email' }],
      legalConsentOptions: {
        communicationsCheckboxes: [{ subscriptionTypeId: types[0], label: 'Send me news', required: true }],
      },
    });
    const res = await submit(form.guid, [['email', 'req@example.com']], {
      consent: { consent: { communications: [{ value: false, subscriptionTypeId: types[0] }] } },
    });
    expect(res.status).toBe(400);
    expect(res.json.errors[0].message).toContain("'Send me news'");
    const ok = await submit(form.guid, [['email', 'req@example.com']], {
      consent: { consent: { communications: [{ value: true, subscriptionTypeId: types[0] }] } },
    });
    expect(ok.status).toBe(204);

    const wrong = await t.call('POST', '/contacts/v1/forms', {
      body: {
        name: 'Wrong',
        fields: [{ name: 'email' }],
        legalConsentOptions: { communicationsCheckboxes: [{ subscriptionTypeId: 99999, label: 'x' }] },
      },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.json.message).toContain('legalConsentOptions.communicationsCheckboxes.0.subscriptionTypeId');
  });

  it('leaves out the subscriptions of an address that left all email, and still takes the submission', async () => {
    await t.call('PUT', '/email/public/v1/subscriptions/gone@example.com', { body: { unsubscribeFromAll: true } });
    const res = await submit(guid, [['email', 'gone@example.com']], {
      consent: { consent: { consentToProcess: true, communications: [{ value: true, subscriptionTypeId: types[0] }] } },
    });
    expect(res.status).toBe(204);
    const status = (await t.call('GET', '/email/public/v1/subscriptions/gone@example.com')).json;
    expect(status.subscriptionStatuses.every((s: { subscribed: boolean }) => !s.subscribed)).toBe(true);
  });
});

describe('spam', () => {
  let guid: string;
  beforeAll(async () => {
    guid = (
      await createForm({
        name: 'Spam target',
        fields: [{ name: 'email', required: true }],
        redirect: 'https://example.com/thanks',
      })
    ).guid;
  });

  it('a filled honeypot is recorded as spam, makes no contact, and answers as a success', async () => {
    const res = await submit(
      guid,
      [
        ['email', 'bot@example.com'],
        ['svc-hp', 'http://spam.example'],
      ],
      { context: { fillTimeMs: 9000 } },
    );
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toMatch(/^https:\/\/example\.com\/thanks\?submissionGuid=/);
    expect((await profile('bot@example.com')).status).toBe(404);
    const spam = await t.platform.services.submissions.spam(t.platform.services.engine, PORTAL, guid);
    expect(spam[0]).toMatchObject({ reason: 'HONEYPOT' });
    expect(spam[0].values).toEqual({ email: 'bot@example.com' });
  });

  it('an instant post the embed saw no person touch is spam; a bad one is not told it is wrong', async () => {
    t.clock.now += 1000; // after the honeypot's, in the list's order (newest first)
    const fast = await submit(guid, [['email', 'not-an-email']], { context: { fillTimeMs: 200, interactions: 0 } });
    expect(fast.status).toBe(302);
    const spam = await t.platform.services.submissions.spam(t.platform.services.engine, PORTAL, guid);
    expect(spam[0]).toMatchObject({ reason: 'NO_INTERACTION' });
    // The inspector counts them apart from the form's submissions.
    const { inspector, engine } = t.platform.services;
    expect(await inspector.forms(engine, PORTAL)).toContainEqual(
      expect.objectContaining({ guid, submissions: 0, spam: 2 }),
    );
  });

  it('a person (however quick, honeypot empty) and an API client (no evidence) make contacts', async () => {
    expect(
      (
        await submit(
          guid,
          [
            ['email', 'person@example.com'],
            ['svc-hp', ''],
          ],
          { context: { fillTimeMs: 300, interactions: 4 } },
        )
      ).status,
    ).toBe(302);
    expect((await submit(guid, [['email', 'api@example.com']])).status).toBe(302);
    expect((await profile('person@example.com')).status).toBe(200);
    expect((await profile('api@example.com')).status).toBe(200);
  });

  it('a malformed fill time is ignored and named, and the submission is recorded', async () => {
    for (const [i, fillTimeMs] of [-5, 1.5, 'soon'].entries()) {
      const res = await submit(guid, [['email', `odd${i}@example.com`]], { context: { fillTimeMs, interactions: 0 } });
      expect(res.status, String(fillTimeMs)).toBe(302);
      expect(res.headers.get('x-svc-ignored-context')).toBe('fillTimeMs');
      expect((await profile(`odd${i}@example.com`)).status).toBe(200);
    }
  });

  it("spam counts toward the address's limit on form submissions: past it, a 429 for anyone at that address", async () => {
    const limited = await startPlatform({ publicRateLimit: { max: 3, windowMs: 60_000 } });
    try {
      const form = (
        await limited.call('POST', '/contacts/v1/forms', { body: { name: 'Limited', fields: [{ name: 'email' }] } })
      ).json;
      const post = (fields: [string, string][]) =>
        limited.call('POST', `${limited.formsUrl}/uploads/form/v2/${PORTAL}/${form.guid}`, {
          body: new URLSearchParams(fields).toString(),
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          portal: null,
        });
      const statuses = [];
      for (let i = 0; i < 3; i++)
        statuses.push(
          (
            await post([
              ['email', `bot${i}@example.com`],
              ['svc-hp', 'x'],
            ])
          ).status,
        );
      const person = await post([['email', 'late@example.com']]);
      expect([...statuses, person.status]).toEqual([204, 204, 204, 429]);
      expect(person.json).toMatchObject({ errorType: 'RATE_LIMIT', policyName: 'PER_ADDRESS' });
      limited.clock.now += 61_000;
      expect((await post([['email', 'late@example.com']])).status).toBe(204);
    } finally {
      await limited.close();
    }
  });

  it('the form can lower or turn off the minimum fill time', async () => {
    const form = await createForm({ name: 'Quick', fields: [{ name: 'email' }], minFillTimeMs: 0 });
    expect(form.minFillTimeMs).toBe(0);
    expect(
      (await submit(form.guid, [['email', 'quick@example.com']], { context: { fillTimeMs: 10, interactions: 0 } }))
        .status,
    ).toBe(204);
    expect((await profile('quick@example.com')).status).toBe(200);
  });
});

describe('progressive profiling and other definition fields', () => {
  it('keeps queued questions, pre-fill, smart fields, page sources and steps; a queued answer is written', async () => {
    const form = await createForm({
      name: 'Progressive',
      formFieldGroups: [
        { fields: [{ name: 'email', required: true, prefill: true }] },
        { fields: [{ name: 'firstname', prefill: true, isSmartField: true }] },
        {
          fields: [
            { name: 'website', hidden: true, queryParam: 'utm_source', cookieName: 'src', defaultValue: 'direct' },
          ],
        },
      ],
      queuedFields: [{ name: 'company' }, { name: 'jobtitle' }],
      queueLimit: 1,
      steps: [
        { title: 'You', groups: 2 },
        { title: 'More', groups: 1 },
      ],
    });
    expect(form.fields[0]).toMatchObject({ prefill: true });
    expect(form.fields[1]).toMatchObject({ isSmartField: true });
    expect(form.fields[2]).toMatchObject({ queryParam: 'utm_source', cookieName: 'src' });
    expect(form.queuedFields.map((f: { name: string }) => f.name)).toEqual(['company', 'jobtitle']);
    expect(form.queuedFields[0]).toMatchObject({ label: 'Company Name' });
    expect(form).toMatchObject({
      queueLimit: 1,
      steps: [
        { title: 'You', groups: 2 },
        { title: 'More', groups: 1 },
      ],
    });

    const res = await submit(form.guid, [
      ['email', 'queue@example.com'],
      ['company', 'Analytical Engines'],
    ]);
    expect(res.status).toBe(204);
    expect((await profile('queue@example.com')).json.properties.company.value).toBe('Analytical Engines');

    // Fields changed: the queue is checked against them again.
    const clash = await t.call('POST', `/contacts/v1/forms/${form.guid}`, {
      body: { fields: [{ name: 'email' }, { name: 'company' }] },
    });
    expect(clash.status).toBe(400);
    expect(clash.json.message).toContain("queuedFields.0.name: 'company'");
  });

  it('refuses a queued question that is not a property, or is on the form already', async () => {
    const notProperty = await t.call('POST', '/contacts/v1/forms', {
      body: { name: 'x', fields: [{ name: 'email' }], queuedFields: [{ name: 'nope_nope' }] },
    });
    expect(notProperty.status).toBe(400);
    expect(notProperty.json.message).toContain("queuedFields.0.name: 'nope_nope' is not a contact property");
    const twice = await t.call('POST', '/contacts/v1/forms', {
      body: { name: 'x', fields: [{ name: 'email' }], queuedFields: [{ name: 'email' }] },
    });
    expect(twice.status).toBe(400);
    const badParam = await t.call('POST', '/contacts/v1/forms', {
      body: { name: 'x', fields: [{ name: 'email', queryParam: 'a b' }] },
    });
    expect(badParam.status).toBe(400);
    expect(badParam.json.message).toContain('queryParam');
  });
});
