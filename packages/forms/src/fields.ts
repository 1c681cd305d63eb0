/** One field of the definition as accessible HTML: a `<label for>` bound to its control (or a
 * `<fieldset>` + `<legend>` for radios and checkboxes), help text linked by `aria-describedby`,
 * and the fields that depend on it right after it. Every text from the definition is set as text. */
import { h } from './dom';
import { valuesOf, type Control, type Entry } from './entry';
import { pageValue } from './page';
import type { DependentFilter, FormField, Messages } from './types';

export interface FieldContext {
  /** Prefix of every element id of this form instance. */
  prefix: string;
  messages: Messages;
  entries: Entry[];
  /** The known visitor's values (pre-fill), by field name. */
  values: Record<string, string>;
  /** How many shown fields were given a value from the page or the known visitor. */
  prefilled: number;
}

const INPUT: Record<string, string> = { email: 'email', number: 'number', date: 'date', phonenumber: 'tel' };

/** A date default as `YYYY-MM-DD`: the platform stores dates as midnight UTC in milliseconds. */
const dateValue = (v = '') => (/^\d+$/.test(v) ? new Date(+v).toISOString().slice(0, 10) : v);

/** The field's box followed by its dependent fields (hidden and disabled until their rule matches). */
export function renderField(field: FormField, ctx: FieldContext): Node[] {
  if (field.enabled === false || field.fieldType == 'file') return [];
  // The page's value first (campaign parameters), then the known visitor's, then the default.
  const v = pageValue(field) || ctx.values[field.name];
  if (typeof v == 'string') {
    field = { ...field, defaultValue: v, selectedOptions: [] };
    // Hidden ones (campaign parameters) say nothing of a person.
    if (v && !field.hidden) ctx.prefilled++;
  }
  const entry = buildField(field, ctx);
  ctx.entries.push(entry);
  const nodes: Node[] = [entry.box];
  for (const rule of field.dependentFieldFilters || []) {
    const wrap = h('div', { class: 'svc-dependent' }, ...renderField(rule.dependentFormField, ctx));
    const update = () => {
      const show = rule.filters.every((f) => matches(f, valuesOf(entry)));
      wrap.hidden = !show;
      wrap.querySelectorAll<Control>('input,select,textarea').forEach((c) => (c.disabled = !show));
    };
    entry.box.addEventListener('input', update);
    entry.box.addEventListener('change', update);
    update();
    nodes.push(wrap);
  }
  return nodes;
}

function matches(f: DependentFilter, values: string[]): boolean {
  const v = values.join(';');
  const want = f.strValue ?? String(f.numberValue ?? f.boolValue ?? '');
  switch (f.operator) {
    case 'EQ':
      return v == want || (f.numberValue != null && v != '' && +v == f.numberValue);
    case 'NEQ':
      return v != want;
    case 'CONTAINS':
      return !!want && v.toLowerCase().includes(want.toLowerCase());
    case 'IS_NOT_EMPTY':
      return v != '' && v != 'false';
    case 'SET_ANY':
      return values.some((x) => f.strValues?.includes(x));
  }
  return false;
}

function buildField(field: FormField, { prefix, messages, entries }: FieldContext): Entry {
  const { name } = field;
  const type = field.hidden ? 'hidden' : field.fieldType || 'text';
  // Unique even when a hostile definition repeats a name.
  const id = `${prefix}-${name.replace(/[^\w-]/g, '_')}-${entries.length}`;
  const selected = field.selectedOptions?.length ? field.selectedOptions : (field.defaultValue || '').split(';');
  const common = { id, name, required: !!field.required };

  if (type == 'hidden') {
    const input = h('input', {
      type: 'hidden',
      name,
      value: field.defaultValue || field.selectedOptions?.join(';') || '',
    });
    return { field, id, box: input, controls: [input], kind: 'value' };
  }

  const labelText = [messages.fieldLabels[name] ?? field.label ?? name];
  const star = field.required ? h('span', { class: 'svc-required', 'aria-hidden': 'true' }, '*') : '';
  const labelClass = field.labelHidden ? 'svc-visually-hidden' : undefined;
  const help = field.description ? h('div', { class: 'svc-help', id: `${id}-help` }, field.description) : '';
  const describedBy = help ? `${id}-help` : undefined;
  const options = (field.options || [])
    .filter((o) => !o.hidden)
    .sort((a, b) => (a.displayOrder ?? 0) - (b.displayOrder ?? 0));
  const boxClass = `svc-field svc-field-${type.replace(/\W/g, '')}`;

  if (type == 'radio' || type == 'checkbox') {
    const box = h('fieldset', { class: boxClass }, h('legend', { class: labelClass }, ...labelText, star), help);
    const controls = options.map((o, i) => {
      const c = h('input', {
        type,
        name,
        value: o.value,
        id: `${id}-${i}`,
        checked: selected.includes(o.value),
        // A required checkbox group needs one choice, not every box: checked by the validator.
        required: type == 'radio' && !!field.required,
        'aria-describedby': describedBy,
      });
      box.append(h('div', { class: 'svc-choice' }, c, h('label', { for: c.id }, o.label)));
      return c;
    });
    return { field, id, box, controls, kind: 'choice', help: describedBy };
  }

  let control: Control;
  const attrs = { ...common, placeholder: field.placeholder || undefined, 'aria-describedby': describedBy };
  if (type == 'select') {
    control = h(
      'select',
      attrs,
      h('option', { value: '' }, field.unselectedLabel || messages.select),
      ...options.map((o) => h('option', { value: o.value, selected: selected.includes(o.value) }, o.label)),
    );
  } else if (type == 'textarea') {
    control = h('textarea', attrs, field.defaultValue || '');
  } else if (type == 'booleancheckbox') {
    control = h('input', {
      ...attrs,
      type: 'checkbox',
      value: 'true',
      'data-svc-bool': true,
      checked: selected.includes('true'),
    });
  } else {
    const inputType = name == 'email' ? 'email' : INPUT[type] || 'text';
    control = h('input', {
      ...attrs,
      type: inputType,
      value: inputType == 'date' ? dateValue(field.defaultValue) : field.defaultValue || undefined,
      autocomplete: inputType == 'email' ? 'email' : undefined,
    });
  }
  const label = h('label', { for: id, class: labelClass }, ...labelText, star);
  const box = h('div', { class: boxClass });
  if (type == 'booleancheckbox') box.append(control, label, help);
  else box.append(label, help, control);
  return { field, id, box, controls: [control], kind: type == 'booleancheckbox' ? 'bool' : 'value', help: describedBy };
}
