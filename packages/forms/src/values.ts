/** The values a form submits, read from its controls: one entry per name, several checked boxes
 * joined with `;`, a true/false checkbox as `true`/`false`, dates as midnight UTC in
 * milliseconds (the platform's date format). Disabled controls, buttons, files and passwords are
 * never sent. Used for rendered forms and captured ones alike. */
import type { SubmissionValue } from './types';

const SKIP = /^(submit|button|reset|image|file|password)$/;

export function formValues(form: HTMLFormElement): SubmissionValue[] {
  const values = new Map<string, string[]>();
  for (const el of Array.from(form.elements) as HTMLInputElement[]) {
    const { name, type } = el;
    if (!name || el.disabled || SKIP.test(type) || !('value' in el)) continue;
    const list = values.get(name) || [];
    values.set(name, list);
    if (el.hasAttribute('data-svc-bool')) list.push(String(el.checked));
    else if ((type == 'checkbox' || type == 'radio') && !el.checked) continue;
    else if (type == 'date' && el.value) list.push(String(Date.parse(el.value)));
    else if (type == 'select-multiple')
      for (const o of Array.from((el as unknown as HTMLSelectElement).selectedOptions)) list.push(o.value);
    else list.push(type == 'hidden' ? el.value : el.value.trim());
  }
  return Array.from(values, ([name, list]) => ({ name, value: list.join(';') }));
}
