/** Client-side validation: nothing is sent until every visible field passes, errors are announced
 * through aria-invalid / aria-describedby, and they clear as the visitor corrects them. */
import { afterEach, describe, expect, it } from 'vitest';
import type { FormDefinition } from '../src/types';
import { field } from './fixtures';
import { openPage, type Page } from './harness';

let page: Page;
afterEach(() => page?.close());

const definition: FormDefinition = {
  guid: 'checks',
  fields: [
    field({
      name: 'email',
      label: 'Work email',
      required: true,
      fieldType: 'email',
      description: 'Your work address',
      validation: { blockedEmailAddresses: ['rival.com'] },
    }),
    field({ name: 'personal', label: 'Other email', fieldType: 'email', validation: { useDefaultBlockList: true } }),
    field({ name: 'seats', label: 'Seats', type: 'number', fieldType: 'number' }),
    field({ name: 'start', label: 'Start', type: 'date', fieldType: 'date' }),
    field({
      name: 'topics',
      label: 'Topics',
      type: 'enumeration',
      fieldType: 'checkbox',
      required: true,
      options: [
        { label: 'A', value: 'a' },
        { label: 'B', value: 'b' },
      ],
    }),
    field({ name: 'terms', label: 'I agree', type: 'bool', fieldType: 'booleancheckbox', required: true }),
  ],
};

async function open(extra: object = {}) {
  page = openPage({ attrs: { 'forms-url': 'http://127.0.0.1:9' }, body: '<main></main>' });
  const form = (await page.create({ portalId: 1, formId: 'checks', target: 'main', definition, ...extra }))!;
  return form;
}

const errorOf = (el: HTMLElement) => {
  const ids = (el.getAttribute('aria-describedby') ?? '').split(' ');
  return ids.map((id) => page.document.getElementById(id)).find((e) => e?.classList.contains('svc-error-msg'))
    ?.textContent;
};

describe('validation', () => {
  it('flags every required field, sends nothing, and focuses the first invalid one', async () => {
    const form = await open();
    form.requestSubmit();
    const email = page.field('Work email');
    expect(email.getAttribute('aria-invalid')).toBe('true');
    expect(email.classList.contains('invalid')).toBe(true);
    expect(errorOf(email)).toBe('Please complete this required field.');
    // The help text stays described too.
    expect(email.getAttribute('aria-describedby')!.split(' ')).toHaveLength(2);
    expect(errorOf(page.field('A'))).toBe('Please complete this required field.');
    expect(errorOf(page.field('I agree'))).toBe('Please complete this required field.');
    expect(page.field('Seats').hasAttribute('aria-invalid')).toBe(false);
    expect(page.document.activeElement).toBe(email);
    expect(page.sent).toHaveLength(0);
  });

  it('checks email format, blocked domains (field, option, default free-mail list), numbers and dates', async () => {
    await open({ manuallyBlockedEmailDomain: ['Example.ORG'], errorClass: 'is-bad' });
    const email = page.field('Work email');
    const check = (el: HTMLInputElement, value: string) => {
      page.type(el, value);
      page.$<HTMLFormElement>('form').requestSubmit();
      return errorOf(el);
    };
    expect(check(email, 'not-an-email')).toBe('Please enter a valid email address.');
    expect(email.classList.contains('is-bad')).toBe(true);
    expect(check(email, 'ada@rival.com')).toBe(
      'Please use another email address: this form does not accept addresses at rival.com.',
    );
    expect(check(email, 'ada@example.org')).toMatch(/example\.org/);
    expect(check(email, 'ada@company.com')).toBeUndefined();
    expect(check(page.field('Other email'), 'ada@gmail.com')).toMatch(/gmail\.com/);
    expect(check(page.field('Seats'), '12.5')).toBeUndefined();
    // A browser accepts an exponent; the platform does not.
    expect(check(page.field('Seats'), '1e5')).toBe('Please enter a number.');
    // A browser without a date picker (the input falls back to text) lets anything through.
    page.field('Start').type = 'text';
    expect(check(page.field('Start'), '30/02/2026')).toBe('Please enter a valid date.');
    expect(check(page.field('Start'), '2026-02-30')).toBe('Please enter a valid date.');
    expect(check(page.field('Start'), '2026-02-28')).toBeUndefined();
  });

  it("shows the definition's own validation message when the field's rules refuse an address, ours for the site's option", async () => {
    definition.fields![0].validation = {
      name: '',
      message: 'Please use your work address',
      blockedEmailAddresses: ['rival.com'],
    };
    try {
      await open({ manuallyBlockedEmailDomain: ['example.org'] });
      const email = page.field('Work email');
      const check = (value: string) => {
        page.type(email, value);
        page.$<HTMLFormElement>('form').requestSubmit();
        return errorOf(email);
      };
      expect(check('ada@rival.com')).toBe('Please use your work address');
      expect(check('ada@example.org')).toBe(
        'Please use another email address: this form does not accept addresses at example.org.',
      );
      expect(check('not-an-email')).toBe('Please enter a valid email address.');
    } finally {
      definition.fields![0].validation = { blockedEmailAddresses: ['rival.com'] };
    }
  });

  it('clears an error as soon as the visitor corrects the field', async () => {
    const form = await open();
    form.requestSubmit();
    const email = page.field('Work email');
    page.type(email, 'ada@company.com');
    expect(email.hasAttribute('aria-invalid')).toBe(false);
    expect(email.getAttribute('aria-describedby')).toBe(email.id + '-help');
    const terms = page.field('I agree');
    terms.click();
    expect(terms.hasAttribute('aria-invalid')).toBe(false);
    expect(page.$$('.svc-error-msg')).toHaveLength(1);
    page.field('B').click();
    expect(page.$$('.svc-error-msg')).toHaveLength(0);
  });

  it('uses translated messages', async () => {
    const form = await open({ locale: 'fr', translations: { fr: { required: 'Champ obligatoire.' } } });
    form.requestSubmit();
    expect(errorOf(page.field('Work email'))).toBe('Champ obligatoire.');
  });
});
