/** `svc.forms.create(options)`: loads the definition, renders the form into the target, validates
 * on the client and submits to the platform. A failed submission keeps every answer in place and
 * the visitor can send again; success shows the thank-you message or redirects. */
import { h } from './dom';
import { active, type Entry } from './entry';
import { emitter, type Fire } from './events';
import { messagesFor } from './messages';
import { renderForm, type Rendered } from './render';
import { safeUrl, sanitize } from './sanitize';
import { withDefaults } from './script';
import { addStyle, CSS } from './style';
import { send, type Outcome } from './submit';
import type { CreateOptions, FormDefinition, Messages } from './types';
import { problem, showError, type ErrorStyle } from './validate';
import { formValues } from './values';

let instances = 0;

export function create(options: CreateOptions): Promise<HTMLFormElement | undefined> {
  const o = withDefaults(options, 'create');
  const target = typeof o.target == 'string' ? document.querySelector<HTMLElement>(o.target) : o.target || document.body.appendChild(h('div'));
  if (!target) throw new TypeError(`svc.forms.create: no element matches ${o.target}`);
  const instanceId = o.formInstanceId || String(++instances);
  const fire = emitter(o, o.formId, instanceId, () => target);
  const m = messagesFor(o.locale ?? document.documentElement.lang, o.translations);
  const portalId = String(o.portalId);
  fire('onBeforeFormInit', [{ portalId, formId: o.formId, formInstanceId: instanceId, target }], { portalId, formId: o.formId });
  return load(o)
    .then((def) => {
      addStyle(o.css ?? CSS, o.nonce);
      const r = renderForm(def, o, instanceId, m);
      target.replaceChildren(r.form);
      wire(r, def, o, m, fire);
      fire('onFormReady', [r.form]);
      return r.form;
    })
    // Unreachable, refused or malformed: the target says so; nothing throws into the page.
    .catch((error: Error) => {
      target.replaceChildren(h('div', { class: 'svc-form-status', role: 'alert' }, m.loadFailed));
      fire('onFormDefinitionFetchError', [error], { message: error.message });
      return undefined;
    });
}

/** The definition: given, or fetched from `definitionUrl` or `{companion}/forms/{formId}`. */
async function load(o: CreateOptions): Promise<FormDefinition> {
  if (o.definition) return o.definition;
  const url = o.definitionUrl || `${(o.companion || '').replace(/\/+$/, '')}/forms/${encodeURIComponent(o.formId)}`;
  const res = await fetch(url, { credentials: 'omit' });
  if (!res.ok) throw new Error(`form definition: HTTP ${res.status}`);
  const def: FormDefinition = await res.json();
  if (!def || typeof def != 'object') throw new Error('form definition: not an object');
  return def;
}

function wire({ form, entries, status, button }: Rendered, def: FormDefinition, o: CreateOptions & { formsUrl: string }, m: Messages, fire: Fire) {
  const style: ErrorStyle = { errorClass: o.errorClass ?? 'invalid error', errorMessageClass: o.errorMessageClass ?? 'svc-error-msg' };
  const check = (e: Entry) => {
    const message = problem(e, m, o.manuallyBlockedEmailDomain);
    showError(e, message, style);
    return message;
  };
  // A field in error is checked again as the visitor corrects it.
  const recheck = (event: Event) => {
    const e = entries.find((x) => (x.controls as EventTarget[]).includes(event.target!));
    if (e?.error) check(e);
  };
  form.addEventListener('input', recheck);
  form.addEventListener('change', recheck);

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (button.disabled) return;
    status.textContent = '';
    const invalid = entries.filter((e) => check(e));
    if (invalid.length) return invalid[0].controls[0].focus();
    const values = formValues(form);
    fire('onBeforeFormSubmit', [form, values], values);
    fire('onFormSubmit', [form, values], values);
    button.disabled = true;
    form.setAttribute('aria-busy', 'true');
    const outcome = await send(o, values);
    button.disabled = false;
    form.removeAttribute('aria-busy');
    if (!outcome.ok) return failed(outcome);

    const http = /^https?:$/;
    const redirectUrl = o.inlineMessage ? undefined : safeUrl(outcome.location, http) || safeUrl(o.redirectUrl, http) || safeUrl(def.redirect, http);
    fire('onFormSubmitted', [form, { redirectUrl, submissionValues: values }], { formGuid: o.formId, redirectUrl, submissionValues: values });
    if (redirectUrl) return location.assign(redirectUrl);
    const thanks = h('div', { class: 'svc-submitted-message', role: 'status', tabindex: '-1' }, sanitize(o.inlineMessage || def.inlineMessage || m.thanks));
    form.replaceWith(thanks);
    thanks.focus();
  });

  /** Nothing is cleared: the visitor corrects or simply sends again. */
  function failed({ status: code, errors = [] }: Outcome) {
    const message = code == 404 ? m.notFound : code == 400 ? m.invalid : m.failed;
    const unplaced: string[] = [];
    for (const err of errors) {
      const e = entries.find((x) => active(x) && `body.${x.field.name}` == err.in && x.controls[0].type != 'hidden');
      if (e) showError(e, err.message, style);
      else unplaced.push(err.message);
    }
    status.textContent = [message, ...unplaced].join(' ');
    const first = entries.find((e) => e.error);
    (first ? first.controls[0] : button).focus();
    fire('onFormSubmitError', [form, { status: code, message }], { status: code, message });
  }
}
