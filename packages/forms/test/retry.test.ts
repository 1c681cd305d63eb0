/** Failures on the way to the platform: the answers stay in the form and the visitor sends again.
 * A local server in front of the real platform drops the connection, answers 5xx, or holds the
 * request, then passes the retry through. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { faultServer, json, openPage, platformWithForm, type Page } from './harness';

type Plan = 'drop' | number | Promise<void>;
let p: Awaited<ReturnType<typeof platformWithForm>>;
let front: Awaited<ReturnType<typeof faultServer>>;
let page: Page;
const plans: Plan[] = [];

beforeAll(async () => {
  p = await platformWithForm();
  front = await faultServer(async (req, res) => {
    const plan = plans.shift();
    if (plan == 'drop') throw new Error('connection dropped'); // faultServer destroys the socket
    if (typeof plan == 'number') return json(res, plan, { status: 'error', message: 'unavailable' });
    await plan;
    const r = await fetch(p.t.formsUrl + req.url, {
      method: req.method,
      headers: { 'content-type': String(req.headers['content-type']) },
      body: req.body,
      redirect: 'manual',
    });
    res.writeHead(r.status, { 'access-control-allow-origin': '*' }).end(await r.text());
  });
});
afterAll(async () => {
  await front.close();
  await p.close();
});
afterEach(() => page?.close());

async function filledForm(email: string) {
  page = openPage({ attrs: { 'forms-url': front.url }, body: '<div id="f"></div>' });
  const form = (await page.create({ portalId: p.portalId, formId: p.guid, target: '#f', definition: p.definition }))!;
  page.type(page.field('Email'), email);
  page.type(page.field('First Name'), 'Ada');
  page.type(page.field<HTMLTextAreaElement>('Message'), 'Call me');
  page.field('events').click();
  return form;
}

const answers = () => [
  page.field('Email').value,
  page.field('First Name').value,
  page.field<HTMLTextAreaElement>('Message').value,
  page.field('events').checked,
];
const submissionsFor = async (email: string) => (await p.contact(email))['form-submissions']?.length ?? 0;

describe('retries after a failure', () => {
  it('a dropped connection keeps every answer; sending again reaches the platform once', async () => {
    const email = 'drop@example.com';
    const form = await filledForm(email);
    plans.push('drop');
    expect(await page.submit(form)).toBe('onFormSubmitError');
    expect(page.$('.svc-form-status').textContent).toBe(
      'The form could not be sent. Your answers are kept: please try again.',
    );
    expect(answers()).toEqual([email, 'Ada', 'Call me', true]);
    const button = form.querySelector('button')!;
    expect(button.disabled).toBe(false);
    expect(form.hasAttribute('aria-busy')).toBe(false);
    expect(await submissionsFor(email)).toBe(0);

    expect(await page.submit(form)).toBe('onFormSubmitted');
    expect(await submissionsFor(email)).toBe(1);
    expect(page.$('.svc-submitted-message')).toBeTruthy();
  });

  it('5xx: the same, and the error message goes away on the next attempt', async () => {
    const email = 'down@example.com';
    const form = await filledForm(email);
    plans.push(503, 500);
    const errors: unknown[] = [];
    page.document.addEventListener('svc-forms:onFormSubmitError', (e) => errors.push((e as CustomEvent).detail.data));
    await page.submit(form);
    await page.submit(form);
    expect(errors).toEqual([
      { status: 503, message: expect.any(String) },
      { status: 500, message: expect.any(String) },
    ]);
    expect(answers()).toEqual([email, 'Ada', 'Call me', true]);
    const status = page.$('.svc-form-status');
    form.requestSubmit();
    expect(status.textContent).toBe('');
    await new Promise((resolve) => page.document.addEventListener('svc-forms:onFormSubmitted', resolve));
    expect(await submissionsFor(email)).toBe(1);
  });

  it('while a slow request is in flight the form is busy and a second submit sends nothing', async () => {
    const email = 'slow@example.com';
    const form = await filledForm(email);
    let release!: () => void;
    plans.push(new Promise((resolve) => (release = resolve)));
    const done = page.submit(form);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(form.getAttribute('aria-busy')).toBe('true');
    expect(form.querySelector('button')!.disabled).toBe(true);
    form.requestSubmit();
    expect(page.submissions()).toHaveLength(1);
    release();
    expect(await done).toBe('onFormSubmitted');
    expect(await submissionsFor(email)).toBe(1);
  });
});
