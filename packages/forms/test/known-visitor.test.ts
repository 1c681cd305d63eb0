/** Known visitors through the real companion and platform: pre-fill of the form's pre-fill fields
 * (no others), a queued question in place of an answered smart field on the next visit, and
 * nothing asked or filled for unknown, opted-out or cookieless visitors. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mountOn, type Mounted } from '../../companion/test/harness';
import { faultServer, openPage, platformWithForm, type Page } from './harness';

let p: Awaited<ReturnType<typeof platformWithForm>>;
let companion: Mounted;
let page: Page;
let guid: string;
const ADA = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1';

beforeAll(async () => {
  p = await platformWithForm();
  // The visitor cache forgets "unknown" at once: a submission makes a visitor known straight away.
  companion = await mountOn(p.t, { visitor: { missTtlMs: 0 } });
  const created = await p.t.call('POST', '/contacts/v1/forms', {
    body: {
      name: 'Progressive contact',
      minFillTimeMs: 0,
      fields: [
        { name: 'email', required: true, prefill: true },
        { name: 'firstname', label: 'First name', prefill: true },
        { name: 'lastname', label: 'Last name' },
        { name: 'company', label: 'Company', isSmartField: true, required: true },
      ],
      queuedFields: [
        { name: 'jobtitle', label: 'Your role' },
        { name: 'city', label: 'City' },
      ],
    },
  });
  expect(created.status).toBe(200);
  guid = created.json.guid;
});
afterAll(async () => {
  await companion.close();
  await p.close();
});
afterEach(() => page?.close());

const open = async (cookies: string[]) => {
  page = openPage({
    attrs: { 'forms-url': p.t.formsUrl, companion: companion.url },
    body: '<div id="f"></div>',
    cookies,
  });
  return (await page.create({ portalId: p.portalId, formId: guid, target: '#f' }))!;
};
const labels = (form: HTMLFormElement) =>
  Array.from(form.querySelectorAll('label')).map((l) => l.textContent.replace('*', ''));

describe('known visitors', () => {
  it('an unknown visitor sees the form as defined; a first submission makes them known', async () => {
    const form = await open([`svcutk=${ADA}`]);
    expect(page.sent.map((s) => s.url)).toEqual([
      `${companion.url}/forms/${guid}`,
      `${companion.url}/forms/${guid}/visitor`,
    ]);
    expect(labels(form)).toEqual(['Email', 'First name', 'Last name', 'Company']);
    expect(page.field('Email').value).toBe('');
    page.type(page.field('Email'), 'ada@example.com');
    page.type(page.field('First name'), 'Ada');
    page.type(page.field('Last name'), 'Lovelace');
    page.type(page.field('Company'), 'Analytical Engines');
    expect(await page.submit(form)).toBe('onFormSubmitted');
  });

  it('the next visit pre-fills the pre-fill fields only, and asks the queued question instead of the answered smart field', async () => {
    const form = await open([`svcutk=${ADA}`]);
    expect(page.field('Email').value).toBe('ada@example.com');
    expect(page.field('First name').value).toBe('Ada');
    // Known, but not a pre-fill field: not even sent to the browser.
    expect(page.field('Last name').value).toBe('');
    expect(page.sent.some((s) => s.body.includes('Lovelace'))).toBe(false);
    expect(labels(form)).toEqual(['Email', 'First name', 'Last name', 'Your role']);
    page.type(page.field('Your role'), 'Mathematician');
    expect(await page.submit(form)).toBe('onFormSubmitted');
    expect(page.submissions()[0].values).toEqual({
      email: 'ada@example.com',
      firstname: 'Ada',
      lastname: '',
      jobtitle: 'Mathematician',
    });
    expect((await p.contact('ada@example.com')).properties).toMatchObject({
      jobtitle: { value: 'Mathematician' },
      company: { value: 'Analytical Engines' },
    });
  });

  it('a third visit asks the next queued question', async () => {
    const form = await open([`svcutk=${ADA}`]);
    expect(labels(form)).toEqual(['Email', 'First name', 'Last name', 'City']);
  });

  it('an opted-out visitor gets nothing filled; a visitor without a utk is not even looked up', async () => {
    const out = await open([`svcutk=${ADA}`, '__svc_opt_out=yes']);
    expect(page.field('Email').value).toBe('');
    expect(page.sent.map((s) => s.url)).toEqual([`${companion.url}/forms/${guid}`]);
    expect(labels(out)).toEqual(['Email', 'First name', 'Last name', 'Company']);
    page.close();
    await open([]);
    expect(page.sent.map((s) => s.url)).toEqual([`${companion.url}/forms/${guid}`]);
    expect(page.field('Email').value).toBe('');
  });

  it('a companion that does not answer holds the form up 3 s at most; it renders as defined', async () => {
    const definition = (await p.t.call('GET', `/contacts/v1/forms/${guid}`)).json;
    // The definition at once, the visitor's part never.
    const slow = await faultServer((req, res) => {
      if (!req.url.endsWith('/visitor'))
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(definition));
    });
    try {
      page = openPage({
        attrs: { 'forms-url': p.t.formsUrl, companion: slow.url },
        body: '<div id="f"></div>',
        cookies: [`svcutk=${ADA}`],
      });
      const started = Date.now();
      const form = (await page.create({ portalId: p.portalId, formId: guid, target: '#f' }))!;
      expect(Date.now() - started).toBeLessThan(6000);
      expect(labels(form)).toEqual(['Email', 'First name', 'Last name', 'Company']);
      expect(page.field('Email').value).toBe('');
    } finally {
      await slow.close();
    }
  });

  it('a form with neither pre-fill nor queued questions asks nothing of the companion', async () => {
    page = openPage({
      attrs: { 'forms-url': p.t.formsUrl, companion: companion.url },
      body: '<div id="f"></div>',
      cookies: [`svcutk=${ADA}`],
    });
    await page.create({ portalId: p.portalId, formId: p.guid, target: '#f' });
    expect(page.sent.map((s) => s.url)).toEqual([`${companion.url}/forms/${p.guid}`]);
  });
});
