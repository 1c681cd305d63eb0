/** Issues 19 and 38 in real Chromium, on the demo website in front of the real platform and
 * companion: the contact form's consent recorded and visible through the API, a known visitor's
 * name filled in and the queued question on their next visit (sent half a second after the
 * page showed it), a multi-step form submitted with the keyboard alone, a form filled by
 * Chromium's own autofill; people at Playwright's speed are never spam. A bot's honeypot-filled
 * submission, and one a script fills and sends at once, make no contact. */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { haveChromium } from './chromium';
import { SHOTS, usePage, useSystem } from './session';
import { type System } from './system';

let sys: System;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: string[];

useSystem((s, b) => ((sys = s), (browser = b)));
usePage(
  () => browser,
  (c, p, found) => ((context = c), (page = p), (problems = found)),
);

const utkOf = async () => (await context.cookies()).find((c) => c.name == 'svcutk')?.value ?? '';
const form = (selector = '#contact-form') => ({
  input: (name: string) => page.locator(`${selector} [name="${name}"]`),
  labels: () =>
    page.$$eval(`${selector} label, ${selector} legend`, (ls) =>
      ls.filter((l) => (l as HTMLElement).offsetParent).map((l) => l.textContent.replace('*', '').trim()),
    ),
});
/** The platform's API with a token of the demo portal. */
const api = (path: string, init: { method?: string; body?: unknown } = {}) => sys.api(path, init);
/** What the embed said of the person in the submissions it sent (svc_context's evidence). */
function evidenceSent() {
  const sent: Record<string, unknown>[] = [];
  page.on('request', (r) => {
    if (r.method() == 'POST' && r.url().includes('/uploads/form/v2/')) {
      const { fillTimeMs, interactions, prefilled, autofilled } = JSON.parse(
        new URLSearchParams(r.postData() ?? '').get('svc_context') ?? '{}',
      );
      sent.push({ fillTimeMs, interactions, prefilled, autofilled });
    }
  });
  return sent;
}
const contactFormGuid = async () =>
  (await api('/contacts/v1/forms')).json.find((x: { name: string }) => x.name == 'Contact us').guid as string;

describe.skipIf(!haveChromium)('forms that marketers expect, in Chromium', () => {
  it('records consent, then knows the visitor: name filled in, and the queued question instead of the last name', async () => {
    await page.goto(`${sys.siteUrl}/contact`);
    await expect.poll(utkOf).toMatch(/^[0-9a-f]{32}$/);
    const utk = await utkOf();
    const f = form();
    await f.input('email').fill('ada.l@acme.test');
    await f.input('firstname').fill('Ada');
    await f.input('lastname').fill('Lovelace');
    expect(await f.labels()).toContain('Send me the weekly newsletter');
    await page.getByLabel('Send me the weekly newsletter').check();
    await page.getByLabel('I agree that Acme Widgets stores my details').check();
    // At Playwright's speed, with no pause: a person.
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.textContent('#contact-form'), { timeout: 15_000 }).toContain('Thanks!');

    // The consent, visible through the API: on the contact's submission and as the subscription.
    const contact = await api(`/contacts/v1/contact/utk/${utk}/profile`);
    expect(contact.json['form-submissions'][0]['legal-consent']).toMatchObject({
      consentToProcess: true,
      text: expect.stringContaining('I agree that Acme Widgets stores my details'),
    });
    const subscriptions = await api('/email/public/v1/subscriptions/ada.l%40acme.test');
    expect(subscriptions.json.subscriptionStatuses).toEqual([
      expect.objectContaining({
        subscribed: true,
        optState: 'OPT_IN',
        legalBasis: 'CONSENT_WITH_NOTICE',
        legalBasisExplanation: expect.stringContaining('weekly newsletter'),
      }),
    ]);

    // The second visit: the companion knows the visitor once its 2 s of "not known" have passed.
    await expect
      .poll(
        async () => (
          await page.goto(`${sys.siteUrl}/contact`),
          await f.input('email').waitFor(),
          f.input('email').inputValue()
        ),
        { timeout: 15_000, interval: 500 },
      )
      .toBe('ada.l@acme.test');
    expect(await f.input('firstname').inputValue()).toBe('Ada');
    const labels = await f.labels();
    expect(labels).toContain('Which company are you with?');
    expect(labels).not.toContain('Last Name');
    await page.screenshot({ path: `${SHOTS}/demo-contact-known.png` });
    // The returning visitor changes one field and sends half a second after the form showed.
    const sent = evidenceSent();
    await page.waitForTimeout(500);
    await f.input('company').fill('Analytical Engines');
    await page.getByLabel('I agree that Acme Widgets stores my details').check();
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.textContent('#contact-form'), { timeout: 15_000 }).toContain('Thanks!');
    const after = await api(`/contacts/v1/contact/utk/${utk}/profile`);
    expect(after.json.properties).toMatchObject({
      company: { value: 'Analytical Engines' },
      lastname: { value: 'Lovelace' },
    });
    expect(
      (await api(`/contacts/v1/contact/utk/${utk}/profile?formSubmissionMode=all`)).json['form-submissions'],
    ).toHaveLength(2);
    expect(sent).toEqual([
      { fillTimeMs: expect.any(Number), interactions: expect.any(Number), prefilled: 2, autofilled: 0 },
    ]);
    expect(sent[0].fillTimeMs).toBeLessThan(1500);
    expect(sent[0].interactions).toBeGreaterThan(0);

    // The third visit asks the next queued question.
    await page.goto(`${sys.siteUrl}/contact`);
    await f.input('email').waitFor();
    expect(await f.labels()).toContain('What is your role?');
    expect(problems).toEqual([]);
  });

  it('submits a multi-step form with the keyboard alone', async () => {
    const created = await api('/contacts/v1/forms', {
      method: 'POST',
      body: {
        name: 'Demo request (steps)',
        submitText: 'Request a demo',
        formFieldGroups: [
          { fields: [{ name: 'email', required: true }] },
          { fields: [{ name: 'firstname', required: true }] },
          { fields: [{ name: 'company' }] },
        ],
        steps: [
          { title: 'About you', groups: 2 },
          { title: 'Your company', groups: 1 },
        ],
      },
    });
    expect(created.status).toBe(200);
    await page.goto(`${sys.siteUrl}/contact`);
    await page.locator('#contact-form input[name=email]').waitFor();
    // A second embed on the page, created as a site's own script would.
    await page.evaluate(
      ({ formId, formsUrl }) => {
        const target = document.createElement('div');
        target.id = 'steps-form';
        document.querySelector('main')!.append(target);
        return window.svc!.forms!.create({ portalId: 62515, formId, formsUrl, target, css: '' }).then(() => undefined);
      },
      { formId: created.json.guid, formsUrl: sys.formsUrl },
    );
    const f = form('#steps-form');
    await f.input('email').waitFor();
    /** The name of the focused control of the steps form ('' elsewhere). */
    const focused = () =>
      page.evaluate(() =>
        document.activeElement?.closest('#steps-form') ? (document.activeElement as HTMLInputElement).name : '',
      );
    // Tab from wherever the page starts until the new form's first field.
    for (let i = 0; i < 80 && (await focused()) != 'email'; i++) await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement!.closest('#steps-form') != null)).toBe(true);
    await page.keyboard.type('keys@acme.test');
    // Enter on an incomplete step stays on it, at the missing field.
    await page.keyboard.press('Enter');
    await expect.poll(focused).toBe('firstname');
    await page.keyboard.type('Kay');
    await page.keyboard.press('Enter');
    await expect.poll(focused).toBe('company');
    expect(await f.labels()).toEqual(['Your company', 'Company Name']);
    // Back and forth with the keyboard: the values stay.
    await page.keyboard.press('Tab'); // the honeypot is out of the tab order: next is Back
    expect(await page.evaluate(() => document.activeElement!.textContent)).toBe('Back');
    await page.keyboard.press('Enter');
    await expect.poll(focused).toBe('email');
    expect(await f.input('firstname').inputValue()).toBe('Kay');
    await page.keyboard.press('Enter');
    await expect.poll(focused).toBe('company');
    await page.keyboard.type('Keyboard Ltd');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.textContent('#steps-form'), { timeout: 15_000 }).toContain('Thanks');
    const contact = await api('/contacts/v1/contact/email/keys%40acme.test/profile');
    expect(contact.json.properties).toMatchObject({ firstname: { value: 'Kay' }, company: { value: 'Keyboard Ltd' } });
    expect(contact.json['form-submissions']).toHaveLength(1);
    expect(problems).toEqual([]);
  });

  it("a bot's honeypot-filled submission looks like a success and makes no contact", async () => {
    await page.goto(`${sys.siteUrl}/contact`);
    const f = form();
    await f.input('email').fill('bot@acme.test');
    await f.input('firstname').fill('Bot');
    await page.getByLabel('I agree that Acme Widgets stores my details').check();
    // A bot fills every input it finds, the hidden one too.
    await f.input('svc-hp').fill('http://cheap.example', { force: true });
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.textContent('#contact-form'), { timeout: 15_000 }).toContain('Thanks!');
    expect((await api('/contacts/v1/contact/email/bot%40acme.test/profile')).status).toBe(404);
    const spam = await sys.platform.services.submissions.spam(
      sys.platform.services.engine,
      62515,
      await contactFormGuid(),
    );
    expect(spam.find((s) => s.values.email == 'bot@acme.test')?.reason).toBe('HONEYPOT');
    expect(problems).toEqual([]);
  });

  it('a script that fills the form and sends it at once, no person seen, is kept as spam with no contact', async () => {
    await page.goto(`${sys.siteUrl}/contact`);
    await form().input('email').waitFor();
    const sent = evidenceSent();
    await page.evaluate(() => {
      const f = document.querySelector<HTMLFormElement>('#contact-form form')!;
      const set = (name: string, value: string) =>
        (f.querySelector<HTMLInputElement>(`[name="${name}"]`)!.value = value);
      set('email', 'script@bots.test');
      set('firstname', 'Script');
      f.querySelectorAll<HTMLInputElement>('input[type=checkbox]').forEach((c) => (c.checked = true));
      f.requestSubmit();
    });
    await expect.poll(() => page.textContent('#contact-form'), { timeout: 15_000 }).toContain('Thanks!');
    expect(sent).toEqual([{ fillTimeMs: expect.any(Number), interactions: 0, prefilled: 0, autofilled: 0 }]);
    expect((await api('/contacts/v1/contact/email/script%40bots.test/profile')).status).toBe(404);
    const spam = await sys.platform.services.submissions.spam(
      sys.platform.services.engine,
      62515,
      await contactFormGuid(),
    );
    expect(spam.find((s) => s.values.email == 'script@bots.test')?.reason).toBe('NO_INTERACTION');
  });

  it("a form filled by Chromium's own autofill and sent at once makes a contact", async () => {
    await page.goto(`${sys.siteUrl}/contact`);
    await form().input('email').waitFor();
    const sent = evidenceSent();
    // Chromium's autofill, driven through the DevTools protocol: the browser's own filling path
    // (its events, the :autofill state), as when a person picks a saved address.
    const cdp = await context.newCDPSession(page);
    const { root } = await cdp.send('DOM.getDocument');
    const { nodeId } = await cdp.send('DOM.querySelector', {
      nodeId: root.nodeId,
      selector: '#contact-form [name="email"]',
    });
    const { node } = await cdp.send('DOM.describeNode', { nodeId });
    const address = [
      { name: 'EMAIL_ADDRESS', value: 'filled@acme.test' },
      { name: 'NAME_FIRST', value: 'Filled' },
      { name: 'NAME_LAST', value: 'Byautofill' },
    ];
    // The browser learns the page's forms a while after they render, later on a loaded machine; until
    // then it answers "Field not found", so ask again until it knows the field.
    await expect
      .poll(
        () =>
          cdp.send('Autofill.trigger', { fieldId: node.backendNodeId, address: { fields: address } }).then(
            () => 'filled',
            (e: Error) => e.message,
          ),
        { timeout: 15_000 },
      )
      .toBe('filled');
    await expect.poll(() => form().input('email').inputValue()).toBe('filled@acme.test');
    await page.getByLabel('I agree that Acme Widgets stores my details').check();
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.textContent('#contact-form'), { timeout: 15_000 }).toContain('Thanks!');
    expect(sent[0].autofilled).toBeGreaterThanOrEqual(2);
    const contact = await api('/contacts/v1/contact/email/filled%40acme.test/profile');
    expect(contact.json.properties).toMatchObject({
      firstname: { value: 'Filled' },
      lastname: { value: 'Byautofill' },
    });
    expect(problems).toEqual([]);
  });
});
