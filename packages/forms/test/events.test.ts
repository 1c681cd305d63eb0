/** Callbacks with native elements, the same moments as DOM CustomEvents and postMessage events,
 * and the definition loaded from the real companion's `GET /forms/:guid`. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mountOn, type Mounted } from '../../companion/test/harness';
import { openPage, platformWithForm, type Page } from './harness';

let p: Awaited<ReturnType<typeof platformWithForm>>;
let companion: Mounted;
let page: Page;
beforeAll(async () => {
  p = await platformWithForm();
  companion = await mountOn(p.t);
});
afterAll(async () => {
  await companion.close();
  await p.close();
});
afterEach(() => page?.close());

const open = () => {
  page = openPage({ attrs: { 'forms-url': p.t.formsUrl, companion: companion.url }, body: '<div id="f"></div>' });
  return page;
};

describe('callbacks and events', () => {
  it('fetches the definition from the companion and runs every callback in order with native elements', async () => {
    open();
    const calls: [string, ...unknown[]][] = [];
    const form = await page.create({
      portalId: p.portalId,
      formId: p.guid,
      target: '#f',
      onBeforeFormInit: (ctx) => calls.push(['onBeforeFormInit', ctx]),
      onFormReady: (f) => calls.push(['onFormReady', f]),
      onBeforeFormSubmit: (f, values) => {
        calls.push(['onBeforeFormSubmit', f, [...values]]);
        // The values may be changed before they are sent.
        values.find((v) => v.name == 'message')!.value = 'changed by the page';
      },
      onFormSubmit: (f, values) => calls.push(['onFormSubmit', f, values.length]),
      onFormSubmitted: (f, data) => calls.push(['onFormSubmitted', f, data]),
    });
    expect(page.sent[0].url).toBe(`${companion.url}/forms/${p.guid}`);
    expect(form).toBeInstanceOf(page.window.HTMLFormElement);
    page.type(page.field('Email'), 'ev@example.com');
    page.type(page.field('First Name'), 'Ev');
    await page.submit(form!);

    expect(calls.map((c) => c[0])).toEqual([
      'onBeforeFormInit',
      'onFormReady',
      'onBeforeFormSubmit',
      'onFormSubmit',
      'onFormSubmitted',
    ]);
    expect(calls[0][1]).toEqual({
      portalId: String(p.portalId),
      formId: p.guid,
      formInstanceId: '1',
      target: page.$('#f'),
    });
    for (const c of calls.slice(1)) expect(c[1]).toBe(form);
    expect(calls[2][2]).toContainEqual({ name: 'email', value: 'ev@example.com' });
    expect(calls[4][2]).toMatchObject({
      redirectUrl: undefined,
      submissionValues: expect.arrayContaining([{ name: 'message', value: 'changed by the page' }]),
    });
    expect(page.submissions()[0].values.message).toBe('changed by the page');
    expect((await p.contact('ev@example.com')).properties.message.value).toBe('changed by the page');
  });

  it('fires each callback as a DOM CustomEvent and a postMessage', async () => {
    open();
    const dom: { type: string; detail: { id: string; instanceId: string; form?: HTMLFormElement; data: unknown } }[] =
      [];
    for (const name of ['onBeforeFormInit', 'onFormReady', 'onBeforeFormSubmit', 'onFormSubmit', 'onFormSubmitted'])
      page.document.addEventListener('svc-forms:' + name, (e) =>
        dom.push({ type: e.type, detail: (e as CustomEvent).detail }),
      );
    const form = (await page.create({ portalId: p.portalId, formId: p.guid, target: '#f', formInstanceId: 'footer' }))!;
    page.type(page.field('Email'), 'pm@example.com');
    page.type(page.field('First Name'), 'Pm');
    await page.submit(form);
    await page.settle();

    expect(dom.map((e) => e.type)).toEqual([
      'svc-forms:onBeforeFormInit',
      'svc-forms:onFormReady',
      'svc-forms:onBeforeFormSubmit',
      'svc-forms:onFormSubmit',
      'svc-forms:onFormSubmitted',
    ]);
    expect(dom[1].detail).toMatchObject({ id: p.guid, instanceId: 'footer', form });
    expect(page.messages.map((m) => [m.type, m.eventName, m.id, m.instanceId])).toEqual(
      ['onBeforeFormInit', 'onFormReady', 'onBeforeFormSubmit', 'onFormSubmit', 'onFormSubmitted'].map((n) => [
        'svcFormCallback',
        n,
        p.guid,
        'footer',
      ]),
    );
    const submitted = page.messages.at(-1)!.data as {
      formGuid: string;
      submissionValues: { name: string; value: string }[];
    };
    expect(submitted.formGuid).toBe(p.guid);
    expect(submitted.submissionValues).toContainEqual({ name: 'email', value: 'pm@example.com' });
  });

  it('a throwing callback is reported and the form still works', async () => {
    open();
    const form = (await page.create({
      portalId: p.portalId,
      formId: p.guid,
      target: '#f',
      onFormReady: () => {
        throw new Error('page bug');
      },
      onFormSubmit: () => {
        throw new Error('another page bug');
      },
    }))!;
    page.type(page.field('Email'), 'bug@example.com');
    page.type(page.field('First Name'), 'Bug');
    expect(await page.submit(form)).toBe('onFormSubmitted');
    expect(page.errors.join('\n')).toMatch(/page bug/);
  });

  it('an unknown form: the companion answers 404, the target says so and onFormDefinitionFetchError runs', async () => {
    open();
    let error: Error | undefined;
    const form = await page.create({
      portalId: p.portalId,
      formId: 'no-such-form',
      target: '#f',
      onFormDefinitionFetchError: (e) => (error = e),
    });
    expect(form).toBeUndefined();
    expect(error!.message).toBe('form definition: HTTP 404');
    expect(page.$('#f [role=alert]').textContent).toBe('The form could not be loaded.');
  });

  it('refuses options without portalId, formId or formsUrl, and a target that is not there', async () => {
    page = openPage({ body: '<div id="f"></div>' });
    expect(() => page.create({ portalId: 1, formId: 'x' })).toThrow(/formsUrl is required/);
    expect(() => page.create({ portalId: 1, formId: '', formsUrl: 'https://f' })).toThrow(
      /portalId and formId are required/,
    );
    expect(() => page.create({ portalId: 1, formId: 'x', formsUrl: 'https://f', target: '#nope' })).toThrow(
      /no element matches #nope/,
    );
  });
});
