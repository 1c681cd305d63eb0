/** Forms (definitions, submissions to {forms_url} through the helper) and email subscriptions and
 * campaigns, against the real platform over HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedEmailDefaults } from '../../platform/src/store/email-seed';
import { clientFor, startTestPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
beforeAll(async () => {
  t = await startTestPlatform();
  await seedEmailDefaults(t.platform.services.engine, t.portals[0].portalId, t.clock.now);
});
afterAll(() => t.close());

describe('forms', () => {
  it('manages form definitions and their fields', async () => {
    const c = clientFor(t);
    const form = await c.forms.create({
      name: 'Contact us',
      fields: [{ name: 'email', required: true }, { name: 'firstname' }],
    });
    expect((await c.forms.get(form.guid)).name).toBe('Contact us');
    expect((await c.forms.list()).map((f) => f.guid)).toContain(form.guid);
    expect((await c.forms.getFields(form.guid)).map((f) => f.name)).toEqual(['email', 'firstname']);
    expect((await c.forms.getField(form.guid, 'email')).required).toBe(true);
    expect((await c.forms.update(form.guid, { name: 'Talk to us' })).name).toBe('Talk to us');
    expect(await c.forms.delete(form.guid)).toBeUndefined();
    await expect(c.forms.get(form.guid)).rejects.toMatchObject({ status: 404 });
  });

  it('submits to {forms_url} with the visitor token, and links the contact to it', async () => {
    const c = clientFor(t);
    const form = await c.forms.create({
      name: 'Signup',
      fields: [{ name: 'email', required: true }, { name: 'firstname' }],
    });
    const utk = 'c'.repeat(32);
    const answer = await c.forms.submitFields(t.portals[0].portalId, form.guid, {
      fields: { email: 'form@x.test', firstname: 'Form' },
      utk,
      pageUrl: 'https://acme.test/signup',
      pageName: 'Sign up',
    });
    expect(answer).toEqual({});
    const contact = await c.contacts.getByUtk(utk);
    expect(contact.properties.firstname.value).toBe('Form');
    expect(contact['form-submissions'][0]).toMatchObject({
      'form-id': form.guid,
      'page-url': 'https://acme.test/signup',
    });
  });

  it('reports the redirect of a submission instead of following it', async () => {
    const c = clientFor(t);
    const form = await c.forms.create({ name: 'With redirect', fields: [{ name: 'email' }] });
    const answer = await c.forms.submitFields(t.portals[0].portalId, form.guid, {
      fields: { email: 'redirect@x.test' },
      redirectUrl: 'https://acme.test/thanks',
    });
    expect(answer.redirectUrl).toMatch(/^https:\/\/acme\.test\/thanks\?submissionGuid=[0-9a-f-]{36}$/);
    // The raw route resolves to the 302 itself.
    const raw = await c.forms.submit(t.portals[0].portalId, form.guid, {
      email: 'raw@x.test',
      svc_context: JSON.stringify({ redirectUrl: 'https://acme.test/raw' }),
    });
    expect(raw).toMatchObject({
      status: 302,
      location: expect.stringMatching(/^https:\/\/acme\.test\/raw\?submissionGuid=/),
    });
  });

  it('names a bad submission: a field off the form', async () => {
    const c = clientFor(t);
    const form = await c.forms.create({ name: 'Strict', fields: [{ name: 'email' }] });
    await expect(
      c.forms.submitFields(t.portals[0].portalId, form.guid, { fields: { email: 'x@x.test', shoe: 42 } }),
    ).rejects.toMatchObject({ status: 400 });
  });

  it('writes the issue-19 definition fields and submits legal consent', async () => {
    const c = clientFor(t);
    const newsletter = (await c.email.subscriptionTypes()).subscriptionDefinitions.find(
      (d) => d.name == 'Weekly Newsletter',
    )!;
    const form = await c.forms.create({
      name: 'Consent (client)',
      fields: [
        { name: 'email', prefill: true },
        { name: 'firstname', isSmartField: true },
        { name: 'website', hidden: true, queryParam: 'utm_source', cookieName: 'src' },
      ],
      queuedFields: [{ name: 'company' }],
      queueLimit: 1,
      steps: [{ title: 'All', groups: 3 }],
      minFillTimeMs: 0,
      legalConsentOptions: {
        consentToProcessCheckboxLabel: 'I agree',
        communicationsCheckboxes: [{ subscriptionTypeId: newsletter.id, label: 'News' }],
      },
    });
    expect(form.queuedFields?.[0].name).toBe('company');
    const fields = { email: 'consent@x.test' };
    await expect(c.forms.submitFields(t.portals[0].portalId, form.guid, { fields })).rejects.toMatchObject({
      status: 400,
    });
    await c.forms.submitFields(t.portals[0].portalId, form.guid, {
      fields,
      legalConsent: {
        consent: { consentToProcess: true, communications: [{ value: true, subscriptionTypeId: newsletter.id }] },
      },
    });
    const contact = await c.contacts.getByEmail('consent@x.test');
    expect(contact['form-submissions'][0]['legal-consent']).toMatchObject({ consentToProcess: true });
    expect((await c.email.getStatus('consent@x.test')).subscriptionStatuses).toEqual([
      expect.objectContaining({ id: newsletter.id, legalBasis: 'CONSENT_WITH_NOTICE' }),
    ]);
  });
});

describe('email', () => {
  it('reads subscription types, updates an address and finds the change among campaign events', async () => {
    const c = clientFor(t);
    const { subscriptionDefinitions } = await c.email.subscriptionTypes();
    const newsletter = subscriptionDefinitions.find((d) => d.name == 'Weekly Newsletter')!;
    expect((await c.email.getStatus('Jerry+news@Example.org')).subscribed).toBe(true);

    expect(
      await c.email.updateStatus('Jerry+news@Example.org', {
        subscriptionStatuses: [{ id: newsletter.id, subscribed: false }],
      }),
    ).toEqual({ status: 'ok' });
    const status = await c.email.getStatus('jerry+news@example.org');
    expect(status.subscriptionStatuses).toEqual([expect.objectContaining({ id: newsletter.id, subscribed: false })]);

    const campaigns = [];
    for await (const campaign of c.email.campaigns()) campaigns.push(campaign);
    expect(campaigns.length).toBeGreaterThanOrEqual(3);
    const changes = campaigns.find((x) => x.appName == 'Subscriptions')!;
    expect((await c.email.getCampaign(changes.id)).id).toBe(changes.id);
    const events = [];
    for await (const e of c.email.events(changes.id, { eventType: 'STATUSCHANGE' })) events.push(e);
    expect(events.map((e) => e.recipient)).toContain('jerry+news@example.org');
  });
});
