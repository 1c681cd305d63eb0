/** Spam without a captcha: every form carries a honeypot that people neither see nor reach and the
 * time it was shown; against the real platform (a form with the default minimum fill time), a
 * person's submission makes a contact, a bot's (honeypot filled, or too fast) makes none, and the
 * bot sees the same success. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FormDefinition } from '../src/types';
import { openPage, platformWithForm, type Page } from './harness';

let p: Awaited<ReturnType<typeof platformWithForm>>;
let page: Page;
let definition: FormDefinition;
beforeAll(async () => {
  p = await platformWithForm();
  definition = (await p.t.call('POST', '/contacts/v1/forms', { body: { name: 'Guarded', fields: [{ name: 'email', required: true }] } })).json;
});
afterAll(() => p.close());
afterEach(() => page?.close());

const open = async () => {
  page = openPage({ attrs: { 'forms-url': p.t.formsUrl }, body: '<div id="f"></div>' });
  return (await page.create({ portalId: p.portalId, formId: definition.guid, target: '#f', definition }))!;
};
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const exists = async (email: string) => (await p.t.call('GET', `/contacts/v1/contact/email/${email}/profile`)).status == 200;

describe('spam', () => {
  it('the honeypot is out of sight, out of the tab order and hidden from assistive tech', async () => {
    const form = await open();
    const trap = form.querySelector<HTMLInputElement>('input[name="svc-hp"]')!;
    expect(trap.tabIndex).toBe(-1);
    expect(trap.getAttribute('autocomplete')).toBe('off');
    expect(trap.closest('[aria-hidden="true"]')!.classList.contains('svc-visually-hidden')).toBe(true);
    expect(form.querySelectorAll('label').length).toBe(1);
  });

  it("a person's submission (slow enough, trap empty) makes a contact; the fill time is sent", async () => {
    const form = await open();
    page.type(page.field('Email'), 'person@example.com');
    await wait(1600);
    expect(await page.submit(form)).toBe('onFormSubmitted');
    const [sub] = page.submissions();
    expect(sub.honeypot).toBe('');
    expect(sub.fillTimeMs).toBeGreaterThanOrEqual(1500);
    expect(await exists('person@example.com')).toBe(true);
  });

  it('a bot that fills the honeypot makes no contact and is told it succeeded', async () => {
    const form = await open();
    page.type(page.field('Email'), 'bot@example.com');
    form.querySelector<HTMLInputElement>('input[name="svc-hp"]')!.value = 'http://cheap-pills.example';
    await wait(1600);
    expect(await page.submit(form)).toBe('onFormSubmitted');
    expect(page.$('#f .svc-submitted-message').textContent).toBe('Thanks for submitting the form.');
    expect(await exists('bot@example.com')).toBe(false);
    const spam = await p.t.platform.services.forms.spam(p.t.platform.services.engine, p.portalId, definition.guid);
    expect(spam.map((s) => s.reason)).toContain('HONEYPOT');
  });

  it('a submission faster than a person fills the form makes no contact either', async () => {
    const form = await open();
    page.type(page.field('Email'), 'fast@example.com');
    expect(await page.submit(form)).toBe('onFormSubmitted');
    expect(page.submissions()[0].fillTimeMs).toBeLessThan(1500);
    expect(await exists('fast@example.com')).toBe(false);
  });
});
