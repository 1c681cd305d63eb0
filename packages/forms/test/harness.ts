/** A browser page for the form embed: a fresh jsdom window running the built `dist/forms.js` from
 * a `<script data-forms-url>` tag, with the page's `fetch` going to real servers through Node's
 * fetch (jsdom has none), recorded. Plus the real platform with a form to submit to. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CookieJar, JSDOM, VirtualConsole } from 'jsdom';
import { startPlatform, type TestPlatform } from '../../platform/test/harness';
import type { CreateOptions, SvcForms } from '../src/types';

export { faultServer, json } from '../../client/test/harness';
export { startPlatform, type TestPlatform };

const bundle = readFileSync(fileURLToPath(new URL('../dist/forms.js', import.meta.url)), 'utf8');

export const UTK = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
export const PAGE_URL = 'https://www.example.com/contact?ref=ad';

export interface Sent {
  url: string;
  method: string;
  body: string;
  keepalive?: boolean;
}

export interface PageOptions {
  /** `data-*` attributes of the script tag, without `data-`. */
  attrs?: Record<string, string>;
  /** Markup of `<body>` before the script runs. */
  body?: string;
  /** Cookies of the page, e.g. `svcutk=…`. */
  cookies?: string[];
  lang?: string;
  /** A `nonce` attribute on the script tag. */
  nonce?: string;
  /** The page's address (default PAGE_URL). */
  url?: string;
  /** `sessionStorage` of the tab before the script runs (an earlier page of the session). */
  session?: Record<string, string>;
}

export function openPage(options: PageOptions = {}) {
  const jar = new CookieJar();
  const url = options.url ?? PAGE_URL;
  for (const c of options.cookies ?? []) jar.setCookieSync(c, url);
  const errors: string[] = [];
  const virtualConsole = new VirtualConsole();
  virtualConsole.on('jsdomError', (e) => errors.push(e.message));
  virtualConsole.on('error', (...args) => errors.push(args.map(String).join(' ')));
  const dom = new JSDOM(
    `<!doctype html><html lang="${options.lang ?? 'en'}"><head><title>Contact us</title></head><body>${options.body ?? ''}</body></html>`,
    {
      url,
      cookieJar: jar,
      runScripts: 'dangerously',
      virtualConsole,
    },
  );
  const window = dom.window as unknown as Window & typeof globalThis;
  for (const [k, v] of Object.entries(options.session ?? {})) window.sessionStorage.setItem(k, v);
  const sent: Sent[] = [];
  window.fetch = ((input: string, init: RequestInit = {}) => {
    sent.push({
      url: String(input),
      method: init.method ?? 'GET',
      body: String((init.body ?? '') as string),
      keepalive: init.keepalive,
    });
    // Unless credentials are omitted, the page's cookies go along, as to a first-party companion
    // (Node's fetch knows nothing of the page's cookie jar).
    const cookie = init.credentials == 'omit' ? '' : window.document.cookie;
    return fetch(input, cookie ? { ...init, headers: { ...(init.headers as Record<string, string>), cookie } } : init);
  }) as typeof fetch;
  const messages: { type: string; eventName: string; id: string; instanceId: string; data: unknown }[] = [];
  window.addEventListener('message', (e) => messages.push(e.data));

  const script = window.document.createElement('script');
  for (const [k, v] of Object.entries(options.attrs ?? {})) script.setAttribute('data-' + k, v);
  if (options.nonce) script.setAttribute('nonce', options.nonce);
  script.textContent = bundle;
  window.document.body.appendChild(script);
  const forms = (window as unknown as { svc: { forms: SvcForms } }).svc.forms;
  const document = window.document;

  return {
    window,
    document,
    forms,
    sent,
    errors,
    messages,
    /** Submissions that went out, as the platform reads them. */
    submissions: () =>
      sent
        .filter((s) => s.method == 'POST')
        .map((s) => {
          const params = new URLSearchParams(s.body);
          // The evidence of a person, honeypot and consent apart: tests of values and context see the fields.
          const { fillTimeMs, interactions, prefilled, autofilled, ...context } = JSON.parse(
            params.get('svc_context') ?? '{}',
          );
          const honeypot = params.get('svc-hp');
          const consent = params.has('legalConsentOptions')
            ? JSON.parse(params.get('legalConsentOptions')!)
            : undefined;
          for (const name of ['svc_context', 'svc-hp', 'legalConsentOptions']) params.delete(name);
          const evidence = { fillTimeMs, interactions, prefilled, autofilled };
          return {
            url: s.url,
            values: Object.fromEntries(params),
            context,
            keepalive: s.keepalive,
            fillTimeMs,
            evidence,
            honeypot,
            consent,
          };
        }),
    create: (o: CreateOptions) => forms.create(o),
    $: <E extends Element = HTMLElement>(selector: string) => document.querySelector<E>(selector)!,
    $$: (selector: string) => Array.from(document.querySelectorAll<HTMLElement>(selector)),
    /** The control labelled `text` (through `<label for>`). */
    field<E extends HTMLElement = HTMLInputElement>(text: string): E {
      const label = Array.from(document.querySelectorAll('label')).find(
        (l) => l.textContent.replace('*', '').trim() == text,
      );
      if (!label) throw new Error(`no label "${text}"`);
      return document.getElementById(label.htmlFor) as E;
    },
    /** Types a value as a visitor would: the value, then `input` and `change`. */
    type(el: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement, value: string) {
      el.value = value;
      el.dispatchEvent(new window.Event('input', { bubbles: true }));
      el.dispatchEvent(new window.Event('change', { bubbles: true }));
    },
    /** Submits like the button would and waits for the outcome event (submitted or error). */
    async submit(form: HTMLFormElement) {
      const outcome = new Promise<string>((resolve) => {
        for (const name of ['onFormSubmitted', 'onFormSubmitError'])
          form.parentElement!.addEventListener('svc-forms:' + name, () => resolve(name), { once: true });
      });
      form.requestSubmit();
      return outcome;
    },
    /** Lets pending message events and promise callbacks run. */
    settle: () => new Promise((resolve) => setTimeout(resolve, 20)),
    close: () => window.close(),
  };
}

export type Page = ReturnType<typeof openPage>;

/** The real platform with a portal and a contact-us form (email, name, message, employees, interests). */
export async function platformWithForm() {
  const t = await startPlatform({ rateLimit: { max: 1_000_000, windowMs: 10_000 } });
  await t.call('PUT', '/contacts/v1/properties/interests', {
    body: {
      label: 'Interests',
      groupName: 'contactinformation',
      type: 'enumeration',
      fieldType: 'checkbox',
      options: ['news', 'events', 'offers'].map((v) => ({ label: v, value: v })),
    },
  });
  await t.call('PUT', '/contacts/v1/properties/visit_date', {
    body: { label: 'Visit date', groupName: 'contactinformation', type: 'date', fieldType: 'date' },
  });
  const created = await t.call('POST', '/contacts/v1/forms', {
    body: {
      name: 'Contact us',
      submitText: 'Send',
      fields: [
        { name: 'email', required: true },
        { name: 'firstname', required: true },
        { name: 'message' },
        { name: 'numemployees' },
        { name: 'interests' },
        { name: 'visit_date' },
      ],
      // Tests fill forms faster than people: no minimum fill time (spam.test.ts has one).
      minFillTimeMs: 0,
    },
  });
  if (created.status != 200) throw new Error(`form not created: ${created.text}`);
  const portalId = t.portals[0].portalId;
  const form: { guid: string } = created.json;
  /** The contact with this email as the platform has it. */
  const contact = async (email: string) =>
    (await t.call('GET', `/contacts/v1/contact/email/${encodeURIComponent(email)}/profile`)).json;
  return { t, portalId, guid: form.guid, definition: created.json, contact, close: () => t.close() };
}
