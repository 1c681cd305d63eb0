/** Fields that take their value from the page: a query parameter (campaign parameters remembered
 * for the session, so they survive the way from the landing page to the form's page), a cookie,
 * else the definition's default; submitted to the real platform. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FormDefinition } from '../src/types';
import { openPage, platformWithForm, type Page } from './harness';

let p: Awaited<ReturnType<typeof platformWithForm>>;
let page: Page;
let definition: FormDefinition;
beforeAll(async () => {
  p = await platformWithForm();
  for (const name of ['utm_source', 'gclid', 'partner'])
    await p.t.call('PUT', `/contacts/v1/properties/${name}`, {
      body: { label: name, groupName: 'contactinformation', type: 'string', fieldType: 'text' },
    });
  const created = await p.t.call('POST', '/contacts/v1/forms', {
    body: {
      name: 'Campaign form',
      minFillTimeMs: 0,
      fields: [
        { name: 'email', required: true },
        { name: 'utm_source', hidden: true, queryParam: 'utm_source', defaultValue: 'direct' },
        { name: 'gclid', hidden: true, queryParam: 'gclid' },
        { name: 'partner', hidden: true, queryParam: 'ref', cookieName: 'partner' },
      ],
    },
  });
  expect(created.status).toBe(200);
  definition = created.json;
});
afterAll(() => p.close());
afterEach(() => page?.close());

const open = async (url: string, extra: { cookies?: string[]; session?: Record<string, string> } = {}) => {
  page = openPage({ attrs: { 'forms-url': p.t.formsUrl }, body: '<div id="f"></div>', url, ...extra });
  return (await page.create({ portalId: p.portalId, formId: definition.guid, target: '#f', definition }))!;
};
const hidden = (form: HTMLFormElement) =>
  Object.fromEntries(
    Array.from(form.querySelectorAll<HTMLInputElement>('input[type=hidden]')).map((i) => [i.name, i.value]),
  );

describe('values from the page', () => {
  it('takes query parameters of the page, and the definition default otherwise', async () => {
    const form = await open('https://www.example.com/contact?utm_source=newsletter&ref=acme');
    expect(hidden(form)).toEqual({ utm_source: 'newsletter', gclid: '', partner: 'acme' });
    page.type(page.field('Email'), 'utm@example.com');
    expect(await page.submit(form)).toBe('onFormSubmitted');
    expect((await p.contact('utm@example.com')).properties).toMatchObject({
      utm_source: { value: 'newsletter' },
      partner: { value: 'acme' },
    });
    page.close();
    expect(hidden(await open('https://www.example.com/contact'))).toEqual({
      utm_source: 'direct',
      gclid: '',
      partner: '',
    });
  });

  it('remembers campaign parameters for the session: a later page without them still has them', async () => {
    // The landing page: forms.js runs, no form on it.
    page = openPage({
      attrs: { 'forms-url': p.t.formsUrl },
      url: 'https://www.example.com/landing?utm_source=ads&gclid=G-123&ref=x&token=secret',
    });
    const stored = page.window.sessionStorage.getItem('svc_params')!;
    // Campaign parameters only: not every parameter of a URL is fit to keep (a token).
    expect(JSON.parse(stored)).toEqual({ utm_source: 'ads', gclid: 'G-123' });
    page.close();
    // The form's page, in the same tab (its sessionStorage), without parameters.
    const form = await open('https://www.example.com/contact', { session: { svc_params: stored } });
    expect(hidden(form)).toMatchObject({ utm_source: 'ads', gclid: 'G-123' });
    page.close();
    // The current URL wins over what was remembered.
    expect(
      hidden(await open('https://www.example.com/contact?utm_source=mail', { session: { svc_params: stored } })),
    ).toMatchObject({ utm_source: 'mail', gclid: 'G-123' });
  });

  it('takes a cookie when the query parameter gives nothing, decoded', async () => {
    const form = await open('https://www.example.com/contact', { cookies: ['partner=Initech%20Ltd'] });
    expect(hidden(form).partner).toBe('Initech Ltd');
    page.close();
    expect(
      hidden(await open('https://www.example.com/contact?ref=acme', { cookies: ['partner=Initech'] })).partner,
    ).toBe('acme');
  });

  it('a broken session store does not break the form', async () => {
    const form = await open('https://www.example.com/contact?utm_source=x', { session: { svc_params: '{not json' } });
    expect(hidden(form).utm_source).toBe('x');
    expect(page.errors).toEqual([]);
  });
});
