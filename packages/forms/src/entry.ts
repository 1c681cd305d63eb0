/** A rendered field: its definition, its wrapper, its controls and its current error. */
import type { FormField } from './types';

export type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

export interface Entry {
  field: FormField;
  /** Prefix of the element ids of this field. */
  id: string;
  box: HTMLElement;
  controls: Control[];
  /** `choice`: radios or checkboxes; `bool`: one checkbox sending true/false; `value`: anything else. */
  kind: 'choice' | 'bool' | 'value';
  /** Id of the help text, when there is one. */
  help?: string;
  error?: HTMLElement;
}

/** The values a field currently holds (checked choices; one value otherwise). */
export function valuesOf(e: Entry): string[] {
  const [c] = e.controls;
  if (e.kind == 'bool') return [String((c as HTMLInputElement).checked)];
  if (e.kind == 'choice') return e.controls.filter((x) => (x as HTMLInputElement).checked).map((x) => x.value);
  return [c.value.trim()];
}

/** Hidden dependents are disabled: neither validated nor submitted. */
export const active = (e: Entry) => !e.controls[0].disabled;
