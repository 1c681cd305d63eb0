/** The whole `<form>` from a definition: groups in order (a group's rich text first, a group of
 * several fields in a `<fieldset>`), each step of a multi-step form in a `<fieldset>` of its own,
 * the consent checkboxes, the honeypot, a live status region for submission errors and the
 * buttons. For a known visitor, queued questions take the places the companion says. */
import { HONEYPOT } from '@svc/protocol';
import { h } from './dom';
import type { Entry } from './entry';
import { renderField, type FieldContext } from './fields';
import { EN } from './messages';
import { sanitize } from './sanitize';
import type { CreateOptions, FormDefinition, FormField, KnownVisitor, Messages } from './types';

export interface Rendered {
  form: HTMLFormElement;
  entries: Entry[];
  status: HTMLElement;
  button: HTMLButtonElement;
  /** The steps' boxes (none for a form in one step) and the button back. */
  steps: HTMLElement[];
  back: HTMLButtonElement;
  submitText: string;
  /** How many shown fields the embed filled in (fields.ts). */
  prefilled: number;
}

/** Names of the consent checkboxes: a dash, which no property name has. */
export const CONSENT = 'svc-consent';

const rich = (html?: string) => (html ? h('div', { class: 'svc-richtext' }, sanitize(html)) : '');

export function renderForm(
  def: FormDefinition,
  o: CreateOptions,
  instanceId: string,
  messages: Messages,
  known: KnownVisitor = {},
): Rendered {
  const prefix = `svc-form-${o.formId}-${instanceId}`.replace(/[^\w-]/g, '_');
  const form = h('form', {
    id: prefix,
    class: ['svc-form', def.cssClass, o.cssClass].filter(Boolean).join(' '),
    // Our own messages instead of the browser's bubbles; `required` still tells assistive tech.
    novalidate: true,
    'data-form-id': o.formId,
    'data-instance-id': instanceId,
  });
  const entries: Entry[] = [];
  const ctx: FieldContext = { prefix, messages, entries, values: known.values || {}, prefilled: 0 };
  const replace = known.replace || {};
  const queued = (f: FormField) => (replace[f.name] && def.queuedFields?.find((q) => q.name == replace[f.name])) || f;
  const groups = def.formFieldGroups?.length
    ? def.formFieldGroups
    : (def.fields || []).map((f) => ({ fields: [f], richText: undefined }));
  const steps = (def.steps || []).map((s) => h('fieldset', { class: 'svc-step' }, h('legend', {}, s.title || '')));
  let step = 0;
  let left = def.steps?.[0]?.groups;
  let box: HTMLElement = steps[0] || form;
  for (const g of groups) {
    // The next step once this one has its groups (the last takes the rest).
    if (left! <= 0 && steps[step + 1]) {
      left = def.steps![++step].groups;
      box = steps[step];
    }
    left!--;
    const fields = (g.fields || []).map(queued);
    if (g.richText?.content) box.append(rich(g.richText.content));
    const nodes = fields.flatMap((f) => renderField(f, ctx));
    if (fields.length > 1) box.append(h('fieldset', { class: 'svc-group' }, ...nodes));
    else box.append(...nodes);
  }
  form.append(...steps);
  box = steps.at(-1) || form;

  // Consent, in the last step: a boolean checkbox each, required where the form says.
  const c = def.legalConsentOptions;
  if (c) {
    const consent = (name: string, label: string, required?: boolean) =>
      renderField({ name: CONSENT + name, label, fieldType: 'booleancheckbox', required }, ctx);
    box.append(
      h(
        'div',
        { class: 'svc-consent' },
        rich(c.communicationConsentText),
        ...(c.communicationsCheckboxes || []).flatMap((x) => consent('-' + x.subscriptionTypeId, x.label, x.required)),
        rich(c.consentToProcessText),
        ...(c.consentToProcessCheckboxLabel ? consent('', c.consentToProcessCheckboxLabel, true) : []),
        rich(c.privacyText),
      ),
    );
  }
  // A translated submit text wins over the form's own.
  const submitText =
    o.submitText ||
    (messages.submitText != EN.submitText && messages.submitText) ||
    def.submitText ||
    messages.submitText;
  const status = h('div', { class: 'svc-form-status', role: 'alert' });
  const button = h('button', { type: 'submit', class: o.submitButtonClass ?? 'svc-button primary' }, submitText);
  // Only a multi-step form has one.
  const back = h('button', { type: 'button', class: 'svc-button', hidden: true }, messages.back);
  // People neither see nor reach it; bots fill it in (HONEYPOT).
  const trap = h(
    'div',
    { class: 'svc-visually-hidden', 'aria-hidden': 'true' },
    h('input', { name: HONEYPOT, tabindex: '-1', autocomplete: 'off' }),
  );
  form.append(trap, status, h('div', { class: 'svc-actions' }, ...(steps.length ? [back] : []), button));
  return { form, entries, status, button, steps, back, submitText, prefilled: ctx.prefilled };
}
