/** The normal path for group rich text, dependent fields and blocked domains: a form written to the
 * real platform, served by the real companion's `GET /forms/:guid`, rendered and submitted. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mountOn, type Mounted } from '../../companion/test/harness';
import { openPage, platformWithForm, type Page } from './harness';

let p: Awaited<ReturnType<typeof platformWithForm>>;
let companion: Mounted;
let page: Page;
let guid: string;
beforeAll(async () => {
  p = await platformWithForm();
  companion = await mountOn(p.t);
  const created = await p.t.call('POST', '/contacts/v1/forms', {
    body: {
      name: 'Demo request',
      minFillTimeMs: 0,
      formFieldGroups: [
        // Stored and served as written: the embed is what sanitises it.
        {
          fields: [],
          richText: {
            content:
              '<h2>Book a demo</h2><p onclick="steal()">It takes <b>a minute</b>.<script>steal()</script><img src=x onerror="steal()"></p>',
          },
        },
        {
          fields: [
            { name: 'email', required: true, validation: { blockedEmailAddresses: ['example.org'] } },
            {
              name: 'numemployees',
              dependentFieldFilters: [
                {
                  filters: [{ operator: 'EQ', strValue: '1000+' }],
                  dependentFormField: { name: 'company', label: 'Which company?', required: true },
                },
              ],
            },
          ],
        },
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

describe('a definition from the companion', () => {
  it('shows the sanitised rich text, refuses a blocked domain and shows and sends the dependent field when its rule matches', async () => {
    page = openPage({ attrs: { 'forms-url': p.t.formsUrl, companion: companion.url }, body: '<div id="f"></div>' });
    const form = (await page.create({ portalId: p.portalId, formId: guid, target: '#f' }))!;
    expect(page.sent[0].url).toBe(`${companion.url}/forms/${guid}`);

    const text = form.querySelector('.svc-richtext')!;
    expect(text.innerHTML).toBe('<h2>Book a demo</h2><p>It takes <b>a minute</b>.</p>');
    // The text comes before the fields.
    expect(form.firstElementChild).toBe(text);

    const company = page.field('Which company?');
    expect(company.closest('.svc-dependent')!.hasAttribute('hidden')).toBe(true);
    expect(company.disabled).toBe(true);
    page.type(page.field<HTMLSelectElement>('Number of Employees'), '1000+');
    expect(company.closest('.svc-dependent')!.hasAttribute('hidden')).toBe(false);
    expect(company.disabled).toBe(false);

    // The blocked domain from the field's validation is refused before anything is sent.
    page.type(page.field('Email'), 'ada@example.org');
    page.type(company, 'Initech');
    form.requestSubmit();
    await page.settle();
    expect(page.$('.svc-error-msg').textContent).toContain('example.org');
    expect(page.submissions()).toEqual([]);

    page.type(page.field('Email'), 'ada@initech.test');
    expect(await page.submit(form)).toBe('onFormSubmitted');
    expect(page.submissions()[0].values).toMatchObject({
      email: 'ada@initech.test',
      numemployees: '1000+',
      company: 'Initech',
    });
    expect((await p.contact('ada@initech.test')).properties).toMatchObject({
      numemployees: { value: '1000+' },
      company: { value: 'Initech' },
    });
    expect(page.errors).toEqual([]);
  });
});
