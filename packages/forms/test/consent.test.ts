/** Legal consent: the form's consent texts (sanitised) and checkboxes, checked before sending,
 * sent as legalConsentOptions, refused by the real platform when missing (shown to the visitor),
 * and recorded on the contact and in the subscriptions API. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { seedEmailDefaults } from '../../platform/src/store/email-seed';
import type { FormDefinition } from '../src/types';
import { openPage, platformWithForm, type Page } from './harness';

let p: Awaited<ReturnType<typeof platformWithForm>>;
let page: Page;
let definition: FormDefinition;
let types: number[];
beforeAll(async () => {
  p = await platformWithForm();
  await seedEmailDefaults(p.t.platform.services.engine, p.portalId, p.t.clock.now);
  types = (await p.t.call('GET', '/email/public/v1/subscriptions')).json.subscriptionDefinitions.map(
    (d: { id: number }) => d.id,
  );
  const created = await p.t.call('POST', '/contacts/v1/forms', {
    body: {
      name: 'Consent',
      minFillTimeMs: 0,
      fields: [{ name: 'email', required: true }],
      legalConsentOptions: {
        communicationConsentText: '<p>We would like to email you.<script>window.pwned=1</script></p>',
        communicationsCheckboxes: [{ subscriptionTypeId: types[1], label: 'Weekly newsletter' }],
        consentToProcessText: '<p>We store what you send.</p>',
        consentToProcessCheckboxLabel: 'I agree to the processing of my data',
        privacyText: '<p>See <a href="https://www.example.com/privacy" onclick="x()">our policy</a>.</p>',
      },
    },
  });
  expect(created.status).toBe(200);
  definition = created.json;
});
afterAll(() => p.close());
afterEach(() => page?.close());

const open = async (def = definition) => {
  page = openPage({ attrs: { 'forms-url': p.t.formsUrl }, body: '<div id="f"></div>' });
  return (await page.create({ portalId: p.portalId, formId: def.guid, target: '#f', definition: def }))!;
};

describe('legal consent', () => {
  it('shows the texts sanitised and a labelled checkbox per consent; the required one is checked before sending', async () => {
    const form = await open();
    const consent = form.querySelector('.svc-consent')!;
    expect(consent.textContent).toContain('We would like to email you.');
    expect(consent.querySelector('script')).toBeNull();
    expect(consent.querySelector('a')!.getAttribute('onclick')).toBeNull();
    expect(page.field('Weekly newsletter').type).toBe('checkbox');
    const process = page.field('I agree to the processing of my data');
    expect(process.required).toBe(true);
    page.type(page.field('Email'), 'consent@example.com');
    form.requestSubmit();
    await page.settle();
    expect(page.submissions()).toEqual([]);
    expect(page.document.activeElement).toBe(process);
    expect(process.getAttribute('aria-invalid')).toBe('true');
  });

  it('sends consent apart from the values; the platform records it on the contact and the subscription', async () => {
    const form = await open();
    page.type(page.field('Email'), 'consent@example.com');
    page.field('I agree to the processing of my data').click();
    page.field('Weekly newsletter').click();
    expect(await page.submit(form)).toBe('onFormSubmitted');
    const [sub] = page.submissions();
    expect(sub.values).toEqual({ email: 'consent@example.com' });
    expect(sub.consent).toEqual({
      consent: { consentToProcess: true, communications: [{ value: true, subscriptionTypeId: types[1] }] },
    });
    const contact = await p.t.call('GET', '/contacts/v1/contact/email/consent@example.com/profile');
    expect(contact.json['form-submissions'][0]['legal-consent']).toMatchObject({
      consentToProcess: true,
      communications: [{ subscriptionTypeId: types[1], value: true }],
    });
    const status = (await p.t.call('GET', '/email/public/v1/subscriptions/consent@example.com')).json;
    expect(status.subscriptionStatuses).toEqual([
      expect.objectContaining({ id: types[1], subscribed: true, legalBasis: 'CONSENT_WITH_NOTICE' }),
    ]);
    expect(status.subscriptionStatuses[0].legalBasisExplanation).toContain('Weekly newsletter');
  });

  it("shows the platform's refusal when a page's definition lacks the consent the form now requires", async () => {
    // An outdated definition (no consent options) against the form as stored.
    const form = await open({ ...definition, legalConsentOptions: undefined });
    page.type(page.field('Email'), 'stale@example.com');
    expect(await page.submit(form)).toBe('onFormSubmitError');
    expect(page.$('.svc-form-status').textContent).toContain('Consent to process personal data is required');
    expect(page.field('Email').value).toBe('stale@example.com');
  });
});
