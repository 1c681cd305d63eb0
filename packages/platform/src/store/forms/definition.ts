/** What a form's definition holds (one JSON document per form, its fields contact properties)
 * and how it is read: fields checked against the contact properties, groups, the live definition
 * visitors see, and the record the API answers with. Pure: nothing here touches the database. */
import { schemas } from '@svc/api';
import { FREE_MAIL_DOMAINS } from '@svc/protocol';
import type { z } from 'zod';
import { badRequest } from '../../domain/errors';
import type { Property } from '../properties';

export type FormWrite = z.output<typeof schemas.formWrite>;
export type FieldWrite = z.output<typeof schemas.fieldWrite>;
type DependentWrite = Omit<FieldWrite, 'dependentFieldFilters'>;
export type FormRecord = z.input<typeof schemas.form>;
export type FieldRecord = z.input<typeof schemas.formField>;
export type SubmissionContext = z.output<typeof schemas.submissionContext>;
export type ConsentOptions = z.output<typeof schemas.legalConsentOptionsWrite>;

/** The consent recorded with a submission: what was agreed to, with the texts the form shows. */
export interface RecordedConsent {
  consentToProcess: boolean;
  text: string;
  communications: { subscriptionTypeId: number; value: boolean; text: string }[];
}

/** What the `definition` column holds; `name` is read by the contact store for submission titles. */
export interface Definition {
  name: string;
  action: string;
  method: string;
  cssClass: string;
  redirect: string;
  inlineMessage: string;
  submitText: string;
  notifyRecipients: string;
  /** Every field in order, each dependent field inside its parent's `dependentFieldFilters`. */
  fields: FieldRecord[];
  /** The groups as written, each holding the next `size` of `fields`. Absent when the form was
   * written with `fields` (or before groups were kept): then each field is its own group. */
  groups?: GroupSettings[];
  /** Progressive profiling: asked in place of answered smart fields (the companion says which, for a known visitor). */
  queuedFields?: FieldRecord[];
  queueLimit?: number;
  legalConsentOptions?: ConsentOptions;
  steps?: { title?: string; groups: number }[];
  minFillTimeMs?: number;
}

export interface GroupSettings {
  size: number;
  default: boolean;
  isSmartGroup: boolean;
  richText: { content: string; type: string };
}

export interface FormRow {
  guid: string;
  portal_id: number;
  definition: string;
  created_at: number;
  updated_at: number;
}

export const DEFAULTS: Omit<Definition, 'name' | 'fields'> = {
  action: '',
  method: 'POST',
  cssClass: 'hs-form stacked',
  redirect: '',
  inlineMessage: '',
  submitText: 'Submit',
  notifyRecipients: '',
};

/** Field records from writes: each (dependent fields too) names a writable contact property,
 * whose definition (in `defs`) fills the gaps; no property is on the form twice. */
export function fieldsOf(
  defs: Map<string, Property>,
  writes: FieldWrite[],
  key = 'fields',
  seen = new Set<string>(),
): FieldRecord[] {
  const one = (w: DependentWrite, at: string, displayOrder: number): FieldRecord => {
    const p = defs.get(w.name);
    if (!p || p.deleted) throw badRequest(`${at}.name: '${w.name}' is not a contact property`);
    // A submission could never write it.
    if (p.readOnlyValue) throw badRequest(`${at}.name: '${w.name}' is a read-only contact property`);
    if (seen.has(w.name)) throw badRequest(`${at}.name: '${w.name}' is on the form twice`);
    seen.add(w.name);
    return {
      label: p.label,
      type: p.type,
      fieldType: p.fieldType,
      description: p.description ?? '',
      groupName: p.groupName,
      displayOrder,
      required: false,
      selectedOptions: [],
      options: p.options,
      enabled: true,
      hidden: false,
      defaultValue: '',
      placeholder: '',
      unselectedLabel: '',
      labelHidden: false,
      isSmartField: false,
      ...w,
      // Given rules fill in the defaults rather than replace them.
      validation: {
        name: '',
        message: '',
        data: '',
        useDefaultBlockList: false,
        blockedEmailAddresses: [],
        ...w.validation,
      },
    };
  };
  return writes.map(({ dependentFieldFilters: rules = [], ...w }, i) => ({
    ...one(w, `${key}.${i}`, i),
    dependentFieldFilters: rules.map((r, j) => ({
      filters: r.filters,
      dependentFormField: one(r.dependentFormField, `${key}.${i}.dependentFieldFilters.${j}.dependentFormField`, j),
      formFieldAction: r.formFieldAction ?? 'DISPLAY',
    })),
  }));
}

/** The fields and groups a write gives, if any: `fields` wins over `formFieldGroups` (and
 * means one group per field); groups keep their settings and rich text. */
export function layoutOf(w: Partial<FormWrite>): { fields: FieldWrite[]; groups?: GroupSettings[] } | undefined {
  if (w.fields) return { fields: w.fields };
  if (!w.formFieldGroups) return undefined;
  const groups = w.formFieldGroups.map((g) => ({
    size: g.fields.length,
    default: g.default ?? true,
    isSmartGroup: g.isSmartGroup ?? false,
    richText: { content: g.richText?.content ?? '', type: g.richText?.type ?? 'TEXT' },
  }));
  const fields = w.formFieldGroups.flatMap((g) => g.fields);
  // The same bound as a `fields` write, however the fields are grouped.
  if (fields.length > 200) throw badRequest('formFieldGroups: at most 200 fields in all');
  return { fields, groups };
}

export function groupsOf(def: Definition) {
  if (!def.groups)
    return def.fields.map((f) => ({ fields: [f], default: true, isSmartGroup: false, richText: { content: '' } }));
  let at = 0;
  return def.groups.map(({ size, ...g }) => ({ fields: def.fields.slice(at, (at += size)), ...g }));
}

/** Queued questions: contact properties, none of them on the form itself. */
export function queueOf(defs: Map<string, Property>, fields: FieldRecord[], writes: FieldWrite[]) {
  return fieldsOf(defs, writes, 'queuedFields', new Set(allFields({ fields } as Definition).map((f) => f.name)));
}

/** The fields a submission may fill: the form's own, their dependent fields and the queued questions. */
export const allFields = (def: Definition) =>
  [...def.fields, ...(def.queuedFields ?? [])].flatMap((f) => [
    f,
    ...(f.dependentFieldFilters ?? []).map((r) => r.dependentFormField),
  ]);

/** The definition as visitors see it: a field whose property was deleted since the form was
 * written is no longer asked for (its group shrinks; a group left empty goes), nor are dependent
 * fields of it; a property of that name created again later is a new one, not on the form. */
export function live(defs: Map<string, Property>, def: Definition, writtenAt: number): Definition {
  const alive = (f: FieldRecord) => {
    const p = defs.get(f.name);
    return !!p && !p.deleted && (p.createdAt ?? 0) <= writtenAt;
  };
  if (shapeOf(def).fields.every(alive)) return def;
  const queuedFields = def.queuedFields?.filter(alive);
  const keep = def.fields.map(alive);
  const fields = def.fields
    .filter((_, i) => keep[i])
    .map((f) => ({
      ...f,
      dependentFieldFilters: (f.dependentFieldFilters ?? []).filter((r) => alive(r.dependentFormField)),
    }));
  let at = 0;
  const groups = def.groups
    ?.map((g) => ({ ...g, size: keep.slice(at, (at += g.size)).filter(Boolean).length }))
    .filter((g) => g.size > 0);
  return { ...def, fields, groups, ...(queuedFields && { queuedFields }) };
}

export function record(defs: Map<string, Property>, row: FormRow): FormRecord {
  const def = liveOf(defs, row);
  const { groups: _g, ...own } = def;
  return {
    portalId: row.portal_id,
    guid: row.guid,
    ...own,
    formFieldGroups: groupsOf(def),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deletable: true,
    embeddedCode: `<script>svc.forms.create({ portalId: ${row.portal_id}, formId: "${row.guid}" });</script>`,
  };
}

/** The domains the form's email field refuses (what the embed refuses before sending). */
function blockedDomains(fields: ReturnType<typeof allFields>) {
  const rules = fields.find((f) => f.name == 'email')?.validation;
  const listed = [...(rules?.blockedEmailAddresses ?? []), ...(rules?.useDefaultBlockList ? FREE_MAIL_DOMAINS : [])];
  return new Set(listed.map((d) => d.toLowerCase()));
}

/** What a submission is checked against, worked out once per definition object: the parsed
 * definitions are shared by the submissions (and `live` returns them as they are while every
 * field's property lives). `names`: every field a submission may fill; `required`: those it must. */
const shapes = new WeakMap<
  Definition,
  { fields: FieldRecord[]; names: Set<string>; required: Set<string>; blocked: Set<string> }
>();
export function shapeOf(def: Definition) {
  let shape = shapes.get(def);
  if (!shape) {
    const fields = allFields(def);
    // A dependent field is required only while shown, which the embed decides: not checked here.
    // A smart field may have given its place to a queued question (the companion decides, for a
    // known visitor): it is required only where the embed shows it.
    const required = def.fields.filter((f) => (f.required && !f.isSmartField) || f.name == 'email').map((f) => f.name);
    shapes.set(
      def,
      (shape = {
        fields,
        names: new Set(fields.map((f) => f.name)),
        required: new Set(required),
        blocked: blockedDomains(fields),
      }),
    );
  }
  return shape;
}

/** The live definition of a stored row. */
export const liveOf = (defs: Map<string, Property>, row: FormRow) =>
  live(defs, JSON.parse(row.definition) as Definition, row.updated_at);

/** `value` and everything in it made read-only (a change throws, in a module's strict mode). */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value == 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
