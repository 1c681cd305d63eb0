/** Client-side checks (required, email format and blocked domains, numbers, dates) and how an
 * error is shown: `aria-invalid`, the error classes, and a message linked by `aria-describedby`. */
import { FREE_MAIL_DOMAINS } from '@svc/protocol';
import { classes, h } from './dom';
import { active, valuesOf, type Entry } from './entry';
import type { Messages } from './types';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const isDate = (v: string) => /^\d{4}-\d\d-\d\d$/.test(v) && new Date(v).toISOString().startsWith(v);

/** The message for the field's current value, or undefined when it is fine. */
export function problem(e: Entry, m: Messages, blocked: string[] = []): string | undefined {
  const c = e.controls[0] as HTMLInputElement;
  if (!active(e) || c.type == 'hidden') return;
  const [v] = valuesOf(e);
  // A browser keeps `value` empty when a number or date input holds something it cannot parse.
  if (c.validity?.badInput) return c.type == 'date' ? m.invalidDate : m.invalidNumber;
  if (!v || (e.kind == 'bool' && v == 'false')) return e.field.required ? m.required : undefined;
  if (c.type == 'email') {
    if (!EMAIL.test(v)) return m.invalidEmail;
    const domain = v.split('@')[1].toLowerCase();
    const rules = e.field.validation || {};
    const refuses = (list: string[]) => list.some((d) => d.toLowerCase() == domain);
    // The field's own rules (`useDefaultBlockList`: the free-mail list the platform checks too)
    // speak with the form's own message when its definition has one; the site's option with ours.
    if (refuses([...(rules.blockedEmailAddresses || []), ...(rules.useDefaultBlockList ? FREE_MAIL_DOMAINS : [])]))
      return rules.message || m.blockedEmail.replace('{domain}', domain);
    if (refuses(blocked)) return m.blockedEmail.replace('{domain}', domain);
  }
  // By the field's type: a browser without a date picker shows a text box.
  const { fieldType } = e.field;
  if (fieldType == 'number' && !/^-?\d+(\.\d+)?$/.test(v)) return m.invalidNumber;
  if (fieldType == 'date' && !isDate(v)) return m.invalidDate;
}

export interface ErrorStyle {
  errorClass: string;
  errorMessageClass: string;
}

/** Shows `message` under the field (or clears the field's error when it is undefined). */
export function showError(e: Entry, message: string | undefined, style: ErrorStyle) {
  e.error?.remove();
  e.error = message ? h('div', { class: style.errorMessageClass, id: `${e.id}-error` }, message) : undefined;
  if (e.error) e.box.append(e.error);
  const describedBy = [e.help, e.error?.id].filter(Boolean).join(' ');
  for (const c of e.controls) {
    c.classList.toggle('svc-invalid', !!message);
    for (const k of classes(style.errorClass)) c.classList.toggle(k, !!message);
    if (message) c.setAttribute('aria-invalid', 'true');
    else c.removeAttribute('aria-invalid');
    if (describedBy) c.setAttribute('aria-describedby', describedBy);
    else c.removeAttribute('aria-describedby');
  }
}
