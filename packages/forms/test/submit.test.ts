/** Submission to the real platform: values and context as the platform reads them, then each
 * outcome — 204 (inline thank-you), 302 (redirect), 404, 400 — as the visitor sees it. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openPage, PAGE_URL, platformWithForm, UTK, type Page } from './harness';

let p: Awaited<ReturnType<typeof platformWithForm>>;
let page: Page;
beforeAll(async () => {
  p = await platformWithForm();
});
afterAll(() => p.close());
afterEach(() => page?.close());

async function open(extra: object = {}, cookies = [`svcutk=${UTK}`]) {
  page = openPage({ attrs: { 'forms-url': p.t.formsUrl }, body: '<section id="contact"></section>', cookies });
  return (await page.create({
    portalId: p.portalId,
    formId: p.guid,
    target: '#contact',
    definition: p.definition,
    ...extra,
  }))!;
}

function fill(email: string) {
  page.type(page.field('Email'), email);
  page.type(page.field('First Name'), 'Ada');
  page.type(page.field<HTMLTextAreaElement>('Message'), 'Hello there');
  page.type(page.field<HTMLSelectElement>('Number of Employees'), '5-25');
  page.field('news').click();
  page.field('offers').click();
  page.type(page.field('Visit date'), '2026-11-02');
}

describe('submission', () => {
  it('sends urlencoded values with svcutk, page URL and page name; the platform links the visitor; thank-you shown', async () => {
    const form = await open();
    expect(form.querySelector('button')!.textContent).toBe('Send');
    fill('ada@example.com');
    expect(await page.submit(form)).toBe('onFormSubmitted');
    const [sub] = page.submissions();
    expect(sub.url).toBe(`${p.t.formsUrl}/uploads/form/v2/${p.portalId}/${p.guid}`);
    expect(sub.values).toEqual({
      email: 'ada@example.com',
      firstname: 'Ada',
      message: 'Hello there',
      numemployees: '5-25',
      interests: 'news;offers',
      visit_date: String(Date.UTC(2026, 10, 2)),
    });
    expect(sub.context).toEqual({ svcutk: UTK, pageUrl: PAGE_URL, pageName: 'Contact us' });

    const contact = await p.contact('ada@example.com');
    expect(contact.properties).toMatchObject({
      firstname: { value: 'Ada' },
      interests: { value: 'news;offers' },
      visit_date: { value: String(Date.UTC(2026, 10, 2)) },
    });
    const byUtk = await p.t.call('GET', `/contacts/v1/contact/utk/${UTK}/profile`);
    expect(byUtk.json.vid).toBe(contact.vid);
    expect(contact['form-submissions'][0]).toMatchObject({ 'page-url': PAGE_URL, 'page-title': 'Contact us' });

    const thanks = page.$('#contact .svc-submitted-message');
    expect(thanks.textContent).toBe('Thanks for submitting the form.');
    expect(thanks.getAttribute('role')).toBe('status');
    expect(page.document.activeElement).toBe(thanks);
    expect(page.$('#contact form')).toBeNull();
  });

  it('sends no svcutk when the cookie is missing or malformed', async () => {
    const form = await open({}, ['svcutk=<script>']);
    fill('bob@example.com');
    await page.submit(form);
    expect(page.submissions()[0].context).toEqual({ pageUrl: PAGE_URL, pageName: 'Contact us' });
  });

  it('shows an inline message from the options, sanitised', async () => {
    const form = await open({ inlineMessage: '<p>Thanks, <b>we will call</b>.</p><script>window.bad=1</script>' });
    fill('cy@example.com');
    await page.submit(form);
    expect(page.$('.svc-submitted-message').innerHTML).toBe('<p>Thanks, <b>we will call</b>.</p>');
  });

  it('302: the platform redirects to redirectUrl, the visitor is sent there', async () => {
    let submitted: unknown;
    const form = await open({
      redirectUrl: 'https://www.example.com/thanks',
      onFormSubmitted: (_f: HTMLFormElement, d: unknown) => (submitted = d),
    });
    fill('dee@example.com');
    expect(await page.submit(form)).toBe('onFormSubmitted');
    expect(page.submissions()[0].context.redirectUrl).toBe('https://www.example.com/thanks');
    expect(submitted).toMatchObject({
      redirectUrl: expect.stringMatching(/^https:\/\/www\.example\.com\/thanks\?submissionGuid=[0-9a-f-]{36}$/),
    });
    // jsdom cannot navigate: it reports the attempt.
    expect(page.errors.some((e) => e.startsWith('Not implemented: navigation'))).toBe(true);
  });

  it('404: an unknown form says it is no longer available and keeps the answers', async () => {
    const form = await open({ formId: '00000000-0000-4000-8000-000000000000' });
    fill('eve@example.com');
    expect(await page.submit(form)).toBe('onFormSubmitError');
    expect(page.$('.svc-form-status').textContent).toBe('This form is no longer available.');
    expect(page.field('Email').value).toBe('eve@example.com');
  });

  it('400: the platform refuses a value; the message is shown at the field, nothing is cleared', async () => {
    // A definition with a field the platform's form does not have.
    const definition = {
      ...p.definition,
      formFieldGroups: [
        ...p.definition.formFieldGroups,
        { fields: [{ name: 'shoe_size', label: 'Shoe size', fieldType: 'text' }] },
      ],
    };
    const form = await open({ definition });
    fill('fay@example.com');
    page.type(page.field('Shoe size'), '42');
    expect(await page.submit(form)).toBe('onFormSubmitError');
    const shoe = page.field('Shoe size');
    expect(shoe.getAttribute('aria-invalid')).toBe('true');
    expect(page.document.getElementById(`${shoe.id}-error`)!.textContent).toBe("Field 'shoe_size' is not on the form");
    expect(page.$('.svc-form-status').textContent).toBe('Please check the fields marked above.');
    expect(page.document.activeElement).toBe(shoe);
    expect([page.field('Email').value, shoe.value]).toEqual(['fay@example.com', '42']);
  });
});
