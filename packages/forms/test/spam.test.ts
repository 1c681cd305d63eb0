/** Spam without a captcha: every form carries a honeypot that people neither see nor reach, and
 * sends what it saw of a person (trusted key, pointer and input events; fields it pre-filled; fields
 * the browser autofilled). Against the real platform (a form with the default minFillTimeMs): a
 * person's submission makes a contact however fast, a bot's (honeypot filled, or nothing of a person
 * seen before an instant post) makes none, and the bot sees the same success. jsdom's events
 * are a script's (not trusted), so these pages behave as a bot driving the embed would; the
 * trusted paths (typing, clicking, keyboard only) are in test/browser/forms-marketing.test.ts. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FormDefinition } from '../src/types';
import { openPage, platformWithForm, type Page } from './harness';

let p: Awaited<ReturnType<typeof platformWithForm>>;
let page: Page;
let definition: FormDefinition;
beforeAll(async () => {
  p = await platformWithForm();
  definition = (
    await p.t.call('POST', '/contacts/v1/forms', {
      body: { name: 'Guarded', fields: [{ name: 'email', required: true }, { name: 'firstname' }] },
    })
  ).json;
});
afterAll(() => p.close());
afterEach(() => page?.close());

const open = async (url?: string, def = definition) => {
  page = openPage({ attrs: { 'forms-url': p.t.formsUrl }, body: '<div id="f"></div>', url });
  return (await page.create({ portalId: p.portalId, formId: def.guid, target: '#f', definition: def }))!;
};
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const exists = async (email: string) =>
  (await p.t.call('GET', `/contacts/v1/contact/email/${email}/profile`)).status == 200;
const spam = () => p.t.platform.services.submissions.spam(p.t.platform.services.engine, p.portalId, definition.guid);

/** The browser's autofill state on `filled` (what `:autofill` matches), as Chromium sets it. */
function autofill(filled: HTMLInputElement[]) {
  const proto = page.window.HTMLInputElement.prototype;
  // Restored by calling it with the input's own `this`.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const matches = proto.matches;
  proto.matches = function (this: HTMLInputElement, selector: string) {
    if (selector == ':autofill') return filled.includes(this);
    return matches.call(this, selector);
  };
}

describe('spam', () => {
  it('the honeypot is out of sight, out of the tab order and hidden from assistive tech', async () => {
    const form = await open();
    const trap = form.querySelector<HTMLInputElement>('input[name="svc-hp"]')!;
    expect(trap.tabIndex).toBe(-1);
    expect(trap.getAttribute('autocomplete')).toBe('off');
    expect(trap.closest('[aria-hidden="true"]')!.classList.contains('svc-visually-hidden')).toBe(true);
    expect(form.querySelectorAll('label').length).toBe(2);
  });

  it('a script that fills and sends the form at once, with nothing of a person, makes no contact', async () => {
    const form = await open();
    page.type(page.field('Email'), 'instant@bots.test');
    expect(await page.submit(form)).toBe('onFormSubmitted');
    const [sub] = page.submissions();
    expect(sub.evidence).toEqual({ fillTimeMs: expect.any(Number), interactions: 0, prefilled: 0, autofilled: 0 });
    expect(sub.fillTimeMs).toBeLessThan(1500);
    expect(await exists('instant@bots.test')).toBe(false);
    expect((await spam())[0]).toMatchObject({ reason: 'NO_INTERACTION', values: { email: 'instant@bots.test' } });
  });

  it('a bot that fills the honeypot makes no contact and is told it succeeded', async () => {
    const form = await open();
    page.type(page.field('Email'), 'bot@example.com');
    form.querySelector<HTMLInputElement>('input[name="svc-hp"]')!.value = 'http://cheap-pills.example';
    await wait(1600);
    expect(await page.submit(form)).toBe('onFormSubmitted');
    expect(page.$('#f .svc-submitted-message').textContent).toBe('Thanks for submitting the form.');
    expect(await exists('bot@example.com')).toBe(false);
    expect((await spam()).map((s) => s.reason)).toContain('HONEYPOT');
  });

  it('not instant: a submission sent after the minimum time makes a contact even with nothing seen', async () => {
    const form = await open();
    page.type(page.field('Email'), 'patient@example.com');
    await wait(1600);
    expect(await page.submit(form)).toBe('onFormSubmitted');
    expect(page.submissions()[0].fillTimeMs).toBeGreaterThanOrEqual(1500);
    expect(await exists('patient@example.com')).toBe(true);
  });

  it("the browser's autofill is seen (:autofill) and counts as a person, sent at once", async () => {
    const form = await open();
    const [email, name] = [page.field('Email'), page.field('First Name')];
    page.type(email, 'autofilled@example.com');
    page.type(name, 'Auto');
    autofill([email, name]);
    expect(await page.submit(form)).toBe('onFormSubmitted');
    expect(page.submissions()[0].evidence).toMatchObject({ interactions: 0, autofilled: 2 });
    expect(await exists('autofilled@example.com')).toBe(true);
  });

  it('a honeypot the browser autofilled is sent empty: the person behind it is not a bot', async () => {
    const form = await open();
    page.type(page.field('Email'), 'trapped-by-autofill@example.com');
    const trap = form.querySelector<HTMLInputElement>('input[name="svc-hp"]')!;
    trap.value = 'Ada Lovelace';
    autofill([trap, page.field('Email')]);
    expect(await page.submit(form)).toBe('onFormSubmitted');
    const [sub] = page.submissions();
    expect(sub.honeypot).toBe('');
    // The honeypot is not counted among the fields autofilled.
    expect(sub.evidence.autofilled).toBe(1);
    expect(await exists('trapped-by-autofill@example.com')).toBe(true);
  });

  it('a form the embed pre-filled from the page, sent at once, makes a contact', async () => {
    const prefilled = (
      await p.t.call('POST', '/contacts/v1/forms', {
        body: { name: 'From the link', fields: [{ name: 'email', required: true, queryParam: 'email' }] },
      })
    ).json as FormDefinition;
    const form = await open('https://www.example.com/offer?email=linked%40example.com', prefilled);
    expect(await page.submit(form)).toBe('onFormSubmitted');
    expect(page.submissions()[0].evidence).toMatchObject({ interactions: 0, prefilled: 1 });
    expect(await exists('linked@example.com')).toBe(true);
  });

  it('hidden fields filled from the page (campaign parameters) are not a sign of a person', async () => {
    const tagged = (
      await p.t.call('POST', '/contacts/v1/forms', {
        body: {
          name: 'Tagged',
          fields: [
            { name: 'email', required: true },
            { name: 'firstname', hidden: true, queryParam: 'utm_source' },
          ],
        },
      })
    ).json as FormDefinition;
    const form = await open('https://www.example.com/offer?utm_source=news', tagged);
    page.type(page.field('Email'), 'tagged@bots.test');
    expect(await page.submit(form)).toBe('onFormSubmitted');
    expect(page.submissions()[0].evidence).toMatchObject({ interactions: 0, prefilled: 0 });
    expect(await exists('tagged@bots.test')).toBe(false);
  });
});
