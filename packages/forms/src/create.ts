/** `svc.forms.create(options)`: loads the definition (and, for a known visitor, what the companion
 * changes in it for them), renders the form into the target, validates on the client (a step at
 * a time in a multi-step form) and submits once to the platform, with the consent given, the
 * honeypot and what it saw of a person (evidence.ts). A failed submission keeps every answer in
 * place and the visitor can send again; success shows the thank-you message or redirects. */
import { HONEYPOT, LEGAL_CONSENT, OPT_OUT_COOKIE, OPTED_OUT, type LegalConsent } from '@svc/protocol';
import { readUtk } from '@svc/tracker';
import { h } from './dom';
import { active, type Entry } from './entry';
import { emitter, type Fire } from './events';
import { autofilled, watch } from './evidence';
import { messagesFor } from './messages';
import { CONSENT, renderForm, type Rendered } from './render';
import { safeUrl, sanitize } from './sanitize';
import { withDefaults } from './script';
import { addStyle, CSS } from './style';
import { send, type Outcome } from './submit';
import type { CreateOptions, FormDefinition, KnownVisitor, Messages } from './types';
import { problem, showError, type ErrorStyle } from './validate';
import { formValues } from './values';

let instances = 0;

export function create(options: CreateOptions): Promise<HTMLFormElement | undefined> {
  const o = withDefaults(options, 'create');
  const target =
    typeof o.target == 'string'
      ? document.querySelector<HTMLElement>(o.target)
      : o.target || document.body.appendChild(h('div'));
  if (!target) throw new TypeError(`svc.forms.create: no element matches ${o.target as string}`);
  const instanceId = o.formInstanceId || String(++instances);
  const fire = emitter(o, o.formId, instanceId, () => target);
  const m = messagesFor(o.locale ?? document.documentElement.lang, o.translations);
  const portalId = String(o.portalId);
  fire('onBeforeFormInit', [{ portalId, formId: o.formId, formInstanceId: instanceId, target }], {
    portalId,
    formId: o.formId,
  });
  return (
    load(o)
      .then(async (def) => {
        const r = renderForm(def, o, instanceId, m, await visitor(o, def));
        addStyle(o.css ?? CSS, o.nonce);
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
      })
  );
}

/** The definition: given, or fetched from `definitionUrl` or `{companion}/forms/{formId}`. */
async function load(o: CreateOptions): Promise<FormDefinition> {
  if (o.definition) return o.definition;
  const url = o.definitionUrl || `${(o.companion || '').replace(/\/+$/, '')}/forms/${encodeURIComponent(o.formId)}`;
  const res = await fetch(url, { credentials: 'omit' });
  if (!res.ok) throw new Error(`form definition: HTTP ${res.status}`);
  const def = (await res.json()) as FormDefinition;
  if (!def || typeof def != 'object') throw new Error('form definition: not an object');
  return def;
}

/** Pre-fill values and queued questions for a visitor with a utk, when the form has either: from
 * the companion (which answers nothing for visitors it does not know or who opted out). Any
 * failure, or no answer within 3 s, is an unknown visitor: the form is never held up for long. */
async function visitor(o: CreateOptions, def: FormDefinition): Promise<KnownVisitor> {
  const wanted =
    def.queuedFields?.length ||
    (def.formFieldGroups || [{ fields: def.fields || [] }]).some((g) => g.fields?.some((f) => f.prefill));
  // Opted out (the tracker's consent cookie) or cookieless: not even asked.
  if (!wanted || !readUtk() || document.cookie.includes(`${OPT_OUT_COOKIE}=${OPTED_OUT}`) || !o.companion) return {};
  return fetch(`${o.companion.replace(/\/+$/, '')}/forms/${encodeURIComponent(o.formId)}/visitor`, {
    signal: AbortSignal.timeout?.(3e3),
  })
    .then((res) => (res.ok ? res.json() : {}))
    .catch(() => ({}));
}

function wire(
  { form, entries, status, button, steps, back, submitText, prefilled }: Rendered,
  def: FormDefinition,
  o: CreateOptions & { formsUrl: string },
  m: Messages,
  fire: Fire,
) {
  const shown = Date.now();
  const seen = watch(form);
  const style: ErrorStyle = {
    errorClass: o.errorClass ?? 'invalid error',
    errorMessageClass: o.errorMessageClass ?? 'svc-error-msg',
  };
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

  // Multi-step: one step shown; values stay in the hidden ones (they are sent at the end).
  let at = 0;
  const last = () => at >= steps.length - 1;
  const show = (i: number) => {
    at = i;
    steps.forEach((s, j) => (s.hidden = j != i));
    back.hidden = !i;
    button.textContent = last() ? submitText : m.next;
  };
  /** Focus on `control`, in its step. */
  const reveal = (control: HTMLElement) => {
    const i = steps.findIndex((s) => s.contains(control));
    if (i >= 0) show(i);
    control.focus();
  };
  const first = () => steps[at].querySelector<HTMLElement>('input,select,textarea');
  if (steps.length) show(0);
  back.addEventListener('click', () => (show(at - 1), first()?.focus()));

  // An async listener: the browser ignores what it returns; a `void` wrapper would cost the bundle bytes.
  // eslint-disable-next-line @typescript-eslint/no-misused-promises
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (button.disabled) return;
    status.textContent = '';
    // A step checks its own fields; the last one everything.
    const invalid = entries.filter((e) => (last() || steps[at].contains(e.box)) && check(e));
    if (invalid.length) return reveal(invalid[0].controls[0]);
    if (!last()) return (show(at + 1), first()?.focus());
    const all = formValues(form);
    const get = (name: string) => all.find((v) => v.name == name)?.value;
    // The consent boxes and the honeypot are not fields of the form: sent apart.
    const values = all.filter((v) => !v.name.startsWith('svc-'));
    const c = def.legalConsentOptions;
    const consent: LegalConsent | undefined = c && {
      consent: {
        // Without a checkbox, the text shown is consent by submitting.
        consentToProcess: c.consentToProcessCheckboxLabel ? get(CONSENT) == 'true' : !!c.consentToProcessText,
        communications: (c.communicationsCheckboxes || []).map(({ subscriptionTypeId: id }) => ({
          value: get(CONSENT + '-' + id) == 'true',
          subscriptionTypeId: id,
        })),
      },
    };
    fire('onBeforeFormSubmit', [form, values], values);
    fire('onFormSubmit', [form, values], values);
    button.disabled = true;
    form.setAttribute('aria-busy', 'true');
    // A honeypot the browser's autofill filled was filled for a person: sent empty.
    const trap = autofilled(form.elements.namedItem(HONEYPOT) as Element) ? '' : get(HONEYPOT)!;
    const evidence = { fillTimeMs: Date.now() - shown, prefilled, ...seen() };
    const outcome = await send(o, values, false, evidence, [
      [HONEYPOT, trap],
      ...(consent ? [[LEGAL_CONSENT, JSON.stringify(consent)]] : []),
    ]);
    button.disabled = false;
    form.removeAttribute('aria-busy');
    if (!outcome.ok) return failed(outcome);

    const http = /^https?:$/;
    const redirectUrl = o.inlineMessage
      ? undefined
      : safeUrl(outcome.location, http) || safeUrl(o.redirectUrl, http) || safeUrl(def.redirect, http);
    fire('onFormSubmitted', [form, { redirectUrl, submissionValues: values }], {
      formGuid: o.formId,
      redirectUrl,
      submissionValues: values,
    });
    if (redirectUrl) return location.assign(redirectUrl);
    const thanks = h(
      'div',
      { class: 'svc-submitted-message', role: 'status', tabindex: '-1' },
      sanitize(o.inlineMessage || def.inlineMessage || m.thanks),
    );
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
    reveal(entries.find((e) => e.error)?.controls[0] || button);
    fire('onFormSubmitError', [form, { status: code, message }], { status: code, message });
  }
}
