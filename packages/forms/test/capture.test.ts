/** Capture mode: a form the site already has also submits to the platform, with the same context,
 * without getting in the way of the site's own submission. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openPage, PAGE_URL, platformWithForm, UTK, type Page } from './harness';

let p: Awaited<ReturnType<typeof platformWithForm>>;
let page: Page;
beforeAll(async () => {
  p = await platformWithForm();
});
afterAll(() => p.close());
afterEach(() => page?.close());

const SITE_FORM = `
  <form id="signup" action="/signup" method="post">
    <label for="e">Email</label><input id="e" name="email" type="email">
    <label for="n">Name</label><input id="n" name="firstname">
    <label for="pw">Password</label><input id="pw" name="password" type="password">
    <input type="checkbox" name="interests" value="news" id="i1"><label for="i1">News</label>
    <input type="checkbox" name="interests" value="events" id="i2"><label for="i2">Events</label>
    <button>Sign up</button>
  </form>`;

function open() {
  page = openPage({ attrs: { 'forms-url': p.t.formsUrl }, body: SITE_FORM, cookies: [`svcutk=${UTK}`] });
  const form = page.$<HTMLFormElement>('#signup');
  page.type(page.field('Email'), 'cap@example.com');
  page.type(page.field('Name'), 'Cap');
  page.type(page.field('Password'), 'hunter2');
  page.field('News').click();
  page.field('Events').click();
  return form;
}

describe('capture', () => {
  it('sends the site form to the platform with the same context, keepalive, no password, without preventing it', async () => {
    const form = open();
    const submitted: unknown[] = [];
    page.forms.capture(form, {
      portalId: p.portalId,
      formId: p.guid,
      onFormSubmitted: (f, d) => submitted.push([f, d]),
    });
    let prevented: boolean | undefined;
    // The site's own listener, after ours: the submission is still its to handle.
    form.addEventListener('submit', (e) => {
      prevented = e.defaultPrevented;
      e.preventDefault();
    });
    const done = new Promise((resolve) => form.addEventListener('svc-forms:onFormSubmitted', resolve));
    form.requestSubmit();
    await done;

    expect(prevented).toBe(false);
    const [sub] = page.submissions();
    expect(sub.values).toEqual({ email: 'cap@example.com', firstname: 'Cap', interests: 'news;events' });
    expect(sub.context).toEqual({ svcutk: UTK, pageUrl: PAGE_URL, pageName: 'Contact us' });
    expect(sub.keepalive).toBe(true);
    expect(submitted).toEqual([
      [form, { submissionValues: expect.arrayContaining([{ name: 'email', value: 'cap@example.com' }]) }],
    ]);
    const contact = await p.contact('cap@example.com');
    expect(contact.properties.interests.value).toBe('news;events');
    const byUtk = await p.t.call('GET', `/contacts/v1/contact/utk/${UTK}/profile`);
    expect(byUtk.json.vid).toBe(contact.vid);
  });

  it('reports a refusal through onFormSubmitError and the event; the returned function stops capturing', async () => {
    const form = open();
    const errors: unknown[] = [];
    const stop = page.forms.capture(form, {
      portalId: p.portalId,
      formId: 'no-such-form',
      onFormSubmitError: (_f, e) => errors.push(e),
    });
    form.addEventListener('submit', (e) => e.preventDefault());
    const failed = new Promise((resolve) => form.addEventListener('svc-forms:onFormSubmitError', resolve));
    form.requestSubmit();
    await failed;
    expect(errors).toEqual([{ status: 404, message: 'HTTP 404' }]);
    stop();
    form.requestSubmit();
    await page.settle();
    expect(page.submissions()).toHaveLength(1);
  });
});
