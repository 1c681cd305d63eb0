/** The whole `<form>` from a definition: groups in order (a group's rich text first, a group of
 * several fields in a `<fieldset>`), a live status region for submission errors, the submit button. */
import { h } from './dom';
import type { Entry } from './entry';
import { renderField } from './fields';
import { EN } from './messages';
import { sanitize } from './sanitize';
import type { CreateOptions, FormDefinition, Messages } from './types';

export interface Rendered {
  form: HTMLFormElement;
  entries: Entry[];
  status: HTMLElement;
  button: HTMLButtonElement;
}

export function renderForm(def: FormDefinition, o: CreateOptions, instanceId: string, messages: Messages): Rendered {
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
  const ctx = { prefix, messages, entries };
  const groups = def.formFieldGroups?.length ? def.formFieldGroups : (def.fields || []).map((f) => ({ fields: [f], richText: undefined }));
  for (const g of groups) {
    const fields = g.fields || [];
    if (g.richText?.content) form.append(h('div', { class: 'svc-richtext' }, sanitize(g.richText.content)));
    const nodes = fields.flatMap((f) => renderField(f, ctx));
    if (fields.length > 1) form.append(h('fieldset', { class: 'svc-group' }, ...nodes));
    else form.append(...nodes);
  }
  // A translated submit text wins over the form's own.
  const submitText = o.submitText || (messages.submitText != EN.submitText && messages.submitText) || def.submitText || messages.submitText;
  const status = h('div', { class: 'svc-form-status', role: 'alert' });
  const button = h('button', { type: 'submit', class: o.submitButtonClass ?? 'svc-button primary' }, submitText);
  form.append(status, h('div', { class: 'svc-actions' }, button));
  return { form, entries, status, button };
}
