/** Rendering: every field type as accessible HTML, from a definition given inline. */
import { afterEach, describe, expect, it } from 'vitest';
import { dependent, everyType } from './fixtures';
import { openPage, type Page } from './harness';

let page: Page;
afterEach(() => page?.close());

const render = async (
  o: Partial<Parameters<Page['create']>[0]> = {},
  pageOptions: Parameters<typeof openPage>[0] = {},
) => {
  page = openPage({
    attrs: { 'forms-url': 'https://forms.example.net' },
    body: '<div id="here"></div>',
    ...pageOptions,
  });
  const form = await page.create({
    portalId: 62515,
    formId: 'every-type',
    target: '#here',
    definition: everyType,
    ...o,
  });
  return form!;
};

describe('rendering every field type', () => {
  it('binds every visible control to a label and shows defaults, placeholders and help text', async () => {
    const form = await render();
    expect(form.parentElement!.id).toBe('here');
    expect(form.className).toBe('svc-form hs-form stacked');
    const first = page.field('First name');
    expect(first.type).toBe('text');
    expect(first.placeholder).toBe('Ada');
    expect(first.value).toBe('Grace');
    const email = page.field('Email');
    expect(email.type).toBe('email');
    expect(email.required).toBe(true);
    expect(page.document.getElementById(email.getAttribute('aria-describedby')!)!.textContent).toBe(
      'We never share it.',
    );
    expect(page.field<HTMLTextAreaElement>('Message').value).toBe('Hello');
    expect(page.field('Employees').type).toBe('number');
    const date = page.field('Visit date');
    expect([date.type, date.value]).toEqual(['date', '2026-11-02']);
    const select = page.field<HTMLSelectElement>('Company size');
    expect(Array.from(select.options, (o) => [o.value, o.text])).toEqual([
      ['', 'Pick one'],
      ['small', 'Small'],
      ['large', 'Large'],
    ]);
    const subscribe = page.field('Subscribe me');
    expect([subscribe.type, subscribe.checked]).toEqual(['checkbox', false]);
    // Every id is unique and every label points at a control.
    const ids = page.$$('[id]').map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const label of page.$$('label'))
      expect(page.document.getElementById((label as HTMLLabelElement).htmlFor)).toBeTruthy();
  });

  it('groups radios and checkboxes in a fieldset with a legend, leaving hidden options out', async () => {
    await render();
    const stage = page.$$('fieldset legend').find((l) => l.textContent.startsWith('Stage'))!.parentElement!;
    const radios = Array.from(stage.querySelectorAll('input'));
    expect(radios.map((r) => [r.type, r.value, r.checked, r.required])).toEqual([
      ['radio', 'lead', true, true],
      ['radio', 'customer', false, true],
    ]);
    expect(page.field('Customer')).toBe(radios[1]);
    const interests = page.$$('fieldset legend').find((l) => l.textContent == 'Interests')!.parentElement!;
    expect(Array.from(interests.querySelectorAll('input'), (i) => [i.value, i.checked])).toEqual([
      ['news', false],
      ['events', true],
    ]);
    // A group of several fields is a fieldset of its own.
    expect(stage.parentElement!.matches('fieldset.svc-group')).toBe(true);
  });

  it('adds hidden fields as hidden inputs, leaves disabled fields out, renders rich text and the submit text', async () => {
    const form = await render();
    const hidden = form.querySelector<HTMLInputElement>('input[name=campaign]')!;
    expect([hidden.type, hidden.value]).toEqual(['hidden', 'spring']);
    expect(form.querySelector('[name=fax]')).toBeNull();
    expect(form.querySelector('.svc-richtext')!.innerHTML).toBe(
      '<h2>Tell us about you</h2><p>It takes <strong>a minute</strong>.</p>',
    );
    const button = form.querySelector('button')!;
    expect([button.type, button.textContent, button.className]).toEqual(['submit', 'Send it', 'svc-button primary']);
    expect(form.querySelectorAll('.svc-required[aria-hidden=true]')).toHaveLength(2);
  });

  it('shows a dependent field only while its rule matches, and only then submits it', async () => {
    await render({ definition: dependent, formId: 'dependent' });
    const other = page.field('Where?');
    expect(other.closest('.svc-dependent')!.hasAttribute('hidden')).toBe(true);
    expect(other.disabled).toBe(true);
    page.type(page.field<HTMLSelectElement>('How did you hear of us?'), 'other');
    expect(other.closest('.svc-dependent')!.hasAttribute('hidden')).toBe(false);
    expect(other.disabled).toBe(false);
    page.type(page.field<HTMLSelectElement>('How did you hear of us?'), 'search');
    expect(other.disabled).toBe(true);
  });

  it('applies the options: classes, submit text, translations by locale, label overrides', async () => {
    const translations = {
      de: { submitText: 'Senden', select: 'Bitte wählen', fieldLabels: { firstname: 'Vorname' } },
    };
    const form = await render({
      cssClass: 'site-form',
      submitButtonClass: 'btn btn-primary',
      locale: 'de-AT',
      translations,
      definition: { ...everyType, submitText: undefined },
    });
    expect(form.classList.contains('site-form')).toBe(true);
    expect(form.querySelector('button')!.className).toBe('btn btn-primary');
    expect(form.querySelector('button')!.textContent).toBe('Senden');
    expect(page.field('Vorname').name).toBe('firstname');
    const second = await page.create({
      portalId: 62515,
      formId: 'dependent',
      target: '#here',
      definition: dependent,
      submitText: 'Go',
      locale: 'de',
      translations,
    });
    expect(second!.querySelector('select option')!.textContent).toBe('Bitte wählen');
    expect(second!.querySelector('button')!.textContent).toBe('Go');
  });

  it('keeps a hidden label for screen readers and renders plain fields when there are no groups', async () => {
    const form = await render({
      formId: 'plain',
      definition: {
        guid: 'plain',
        fields: [{ name: 'email', label: 'Email', labelHidden: true, placeholder: 'you@company.com' }],
      },
    });
    const label = form.querySelector('label')!;
    expect(label.className).toBe('svc-visually-hidden');
    expect(page.field('Email').placeholder).toBe('you@company.com');
    expect(page.field('Email').type).toBe('email');
  });

  it('keeps two embeds of one form apart by formInstanceId', async () => {
    page = openPage({
      attrs: { 'forms-url': 'https://forms.example.net' },
      body: '<div id="a"></div><div id="b"></div>',
    });
    const a = await page.create({
      portalId: 1,
      formId: 'dependent',
      target: '#a',
      definition: dependent,
      formInstanceId: 'top',
    });
    const b = await page.create({
      portalId: 1,
      formId: 'dependent',
      target: '#b',
      definition: dependent,
      formInstanceId: 'bottom',
    });
    expect(a!.id).not.toBe(b!.id);
    expect(a!.dataset.instanceId).toBe('top');
    const ids = page.$$('[id]').map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('adds one stylesheet with the script tag nonce (strict CSP), or the given one, never a style attribute', async () => {
    await render(
      {},
      { nonce: 'r4nd0m', attrs: { 'forms-url': 'https://forms.example.net' }, body: '<div id="here"></div>' },
    );
    await page.create({ portalId: 1, formId: 'dependent', target: '#here', definition: dependent });
    const styles = page.$$('style');
    expect(styles).toHaveLength(1);
    expect(styles[0].getAttribute('nonce')).toBe('r4nd0m');
    expect(page.$$('[style]')).toHaveLength(0);
    await page.create({
      portalId: 1,
      formId: 'dependent',
      target: '#here',
      definition: dependent,
      css: '.x{color:red}',
      nonce: 'other',
    });
    expect(page.$$('style').map((s) => s.getAttribute('nonce'))).toEqual(['r4nd0m', 'other']);
  });

  it('works with the keyboard alone: native controls in document order, no positive tabindex', async () => {
    const form = await render();
    expect(page.$$('[tabindex]').filter((e) => +e.getAttribute('tabindex')! > 0)).toHaveLength(0);
    const focusable = Array.from(form.querySelectorAll<HTMLElement>('input:not([type=hidden]),select,textarea,button'));
    expect(focusable.map((e) => e.tagName)).toContain('BUTTON');
    for (const el of focusable) {
      el.focus();
      expect(page.document.activeElement).toBe(el);
    }
  });
});
