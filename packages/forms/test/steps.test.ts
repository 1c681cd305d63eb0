/** Multi-step forms: one step shown at a time in a fieldset with its title, Next checks the step's
 * own fields before moving on, Back returns with every value kept, the last step submits once
 * (all steps' values), and an error the platform names in an earlier step brings that step back. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FormDefinition } from '../src/types';
import { openPage, platformWithForm, type Page } from './harness';

let p: Awaited<ReturnType<typeof platformWithForm>>;
let page: Page;
let definition: FormDefinition;
beforeAll(async () => {
  p = await platformWithForm();
  const created = await p.t.call('POST', '/contacts/v1/forms', {
    body: {
      name: 'Steps',
      minFillTimeMs: 0,
      submitText: 'Send',
      formFieldGroups: [
        { fields: [{ name: 'email', required: true }] },
        { fields: [{ name: 'firstname', required: true }] },
        { fields: [{ name: 'company' }, { name: 'jobtitle' }] },
        { fields: [{ name: 'message' }] },
      ],
      steps: [
        { title: 'Who you are', groups: 2 },
        { title: 'Your company', groups: 1 },
        { title: 'Anything else?', groups: 1 },
      ],
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
const visible = (form: HTMLFormElement) =>
  Array.from(form.querySelectorAll<HTMLElement>('.svc-step')).map((s) => !s.hidden);
const buttons = (form: HTMLFormElement) =>
  Array.from(form.querySelectorAll('button'))
    .filter((b) => !b.hidden)
    .map((b) => b.textContent);

describe('multi-step forms', () => {
  it('shows one step at a time, validates it before the next, goes back with values kept, and submits once', async () => {
    const form = await open();
    const steps = form.querySelectorAll('.svc-step');
    expect(steps).toHaveLength(3);
    expect(Array.from(steps).map((s) => s.querySelector('legend')!.textContent)).toEqual([
      'Who you are',
      'Your company',
      'Anything else?',
    ]);
    expect(visible(form)).toEqual([true, false, false]);
    expect(buttons(form)).toEqual(['Next']);

    // Next with the step incomplete: its first invalid field, nothing sent.
    page.type(page.field('Email'), 'steps@example.com');
    form.requestSubmit();
    await page.settle();
    expect(visible(form)).toEqual([true, false, false]);
    expect(page.document.activeElement).toBe(page.field('First Name'));
    page.type(page.field('First Name'), 'Ada');
    form.requestSubmit();
    await page.settle();
    expect(visible(form)).toEqual([false, true, false]);
    expect(page.document.activeElement).toBe(page.field('Company Name'));
    expect(buttons(form)).toEqual(['Back', 'Next']);
    page.type(page.field('Company Name'), 'Analytical Engines');

    form.querySelector<HTMLButtonElement>('button[type=button]')!.click();
    expect(visible(form)).toEqual([true, false, false]);
    expect(page.field('Email').value).toBe('steps@example.com');
    expect(page.document.activeElement).toBe(page.field('Email'));
    form.requestSubmit();
    await page.settle();
    form.requestSubmit();
    await page.settle();
    expect(visible(form)).toEqual([false, false, true]);
    expect(buttons(form)).toEqual(['Back', 'Send']);
    expect(page.submissions()).toEqual([]);

    page.type(page.field<HTMLTextAreaElement>('Message'), 'Hello');
    expect(await page.submit(form)).toBe('onFormSubmitted');
    expect(page.submissions()).toHaveLength(1);
    expect(page.submissions()[0].values).toEqual({
      email: 'steps@example.com',
      firstname: 'Ada',
      company: 'Analytical Engines',
      jobtitle: '',
      message: 'Hello',
    });
    expect((await p.contact('steps@example.com')).properties.company.value).toBe('Analytical Engines');
  });

  it('an error the platform names in an earlier step shows that step with the message at the field', async () => {
    // The page's definition blocks nothing; the stored form refuses the domain.
    await p.t.call('POST', `/contacts/v1/forms/${definition.guid}`, {
      body: {
        formFieldGroups: [
          { fields: [{ name: 'email', required: true, validation: { blockedEmailAddresses: ['blocked.example'] } }] },
          { fields: [{ name: 'firstname', required: true }] },
          { fields: [{ name: 'company' }, { name: 'jobtitle' }] },
          { fields: [{ name: 'message' }] },
        ],
      },
    });
    const form = await open();
    page.type(page.field('Email'), 'ada@blocked.example');
    page.type(page.field('First Name'), 'Ada');
    for (let i = 0; i < 2; i++) {
      form.requestSubmit();
      await page.settle();
    }
    expect(visible(form)).toEqual([false, false, true]);
    expect(await page.submit(form)).toBe('onFormSubmitError');
    expect(visible(form)).toEqual([true, false, false]);
    expect(page.document.activeElement).toBe(page.field('Email'));
    expect(page.$('.svc-error-msg').textContent).toContain('blocked');
  });

  it('a form without steps has no Back button and submits at once', async () => {
    const form = await open({ ...definition, steps: undefined });
    expect(form.querySelectorAll('.svc-step')).toHaveLength(0);
    expect(buttons(form)).toEqual(['Send']);
  });
});
