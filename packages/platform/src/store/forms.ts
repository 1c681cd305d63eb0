/** Forms: definitions (one JSON document per form) whose fields are contact properties, and
 * submissions, which create or update the contact by email and record the conversion. */
import { randomUUID } from 'node:crypto';
import { uuidV7 } from '../util/uuid-v7';
import type { schemas } from '@svc/api';
import type { z } from 'zod';
import { type Db, transaction } from '../db/open';
import { badRequest, notFound } from '../http/errors';
import type { ContactStore, Source, Write } from './contacts';
import { isEmail, type PropertyStore } from './properties';

export type FormWrite = z.output<typeof schemas.formWrite>;
export type FieldWrite = z.output<typeof schemas.fieldWrite>;
export type FormRecord = z.input<typeof schemas.form>;
export type FieldRecord = z.input<typeof schemas.formField>;
export type SubmissionContext = z.output<typeof schemas.submissionContext>;

/** What the `definition` column holds; `name` is read by the contact store for submission titles. */
interface Definition {
  name: string;
  action: string;
  method: string;
  cssClass: string;
  redirect: string;
  inlineMessage: string;
  submitText: string;
  notifyRecipients: string;
  fields: FieldRecord[];
}

interface FormRow {
  guid: string;
  portal_id: number;
  definition: string;
  created_at: number;
  updated_at: number;
}

const DEFAULTS: Omit<Definition, 'name' | 'fields'> = {
  action: '',
  method: 'POST',
  cssClass: 'hs-form stacked',
  redirect: '',
  inlineMessage: '',
  submitText: 'Submit',
  notifyRecipients: '',
};

/** Problems in a submission, in the anchor's v3 `errors` style, each naming its field. */
interface SubmissionError {
  message: string;
  errorType: 'REQUIRED_FIELD' | 'FIELD_NOT_IN_FORM_DEFINITION' | 'INVALID_EMAIL';
  in: string;
}

export function formStore(db: Db, contacts: ContactStore, properties: PropertyStore, now: () => number) {
  const q = {
    get: db.prepare<[number, string], FormRow>('SELECT * FROM forms WHERE portal_id = ? AND guid = ?'),
    all: db.prepare<[number], FormRow>('SELECT * FROM forms WHERE portal_id = ? ORDER BY created_at, rowid'),
    insert: db.prepare<[string, number, string, number, number]>(
      'INSERT INTO forms (guid, portal_id, definition, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
    ),
    update: db.prepare<[string, number, number, string]>('UPDATE forms SET definition = ?, updated_at = ? WHERE portal_id = ? AND guid = ?'),
    remove: db.prepare<[number, string]>('DELETE FROM forms WHERE portal_id = ? AND guid = ?'),
    insertSubmission: db.prepare<[string, number, number, string, number, string | null, string | null, string]>(
      `INSERT INTO form_submissions (conversion_id, portal_id, vid, form_guid, timestamp, page_url, page_title, values_json)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    conversions: db.prepare<[number, number], { n: number }>('SELECT count(*) AS n FROM form_submissions WHERE portal_id = ? AND vid = ?'),
  };

  function requireRow(portalId: number, guid: string) {
    const row = q.get.get(portalId, guid);
    if (!row) throw notFound(`No form found with guid '${guid}'`, { type: 'NOT_FOUND' });
    return row;
  }

  /** Field records from writes: each names a writable contact property, whose definition fills the gaps. */
  function fieldsOf(portalId: number, writes: FieldWrite[]): FieldRecord[] {
    const defs = properties.definitions(portalId);
    const seen = new Set<string>();
    return writes.map((w, i) => {
      const p = defs.get(w.name);
      if (!p || p.deleted) throw badRequest(`fields.${i}.name: '${w.name}' is not a contact property`);
      // A submission could never write it.
      if (p.readOnlyValue) throw badRequest(`fields.${i}.name: '${w.name}' is a read-only contact property`);
      if (seen.has(w.name)) throw badRequest(`fields.${i}.name: '${w.name}' is on the form twice`);
      seen.add(w.name);
      return {
        label: p.label,
        type: p.type,
        fieldType: p.fieldType,
        description: p.description ?? '',
        groupName: p.groupName,
        displayOrder: i,
        required: false,
        selectedOptions: [],
        options: p.options,
        validation: { name: '', message: '', data: '', useDefaultBlockList: false, blockedEmailAddresses: [] },
        enabled: true,
        hidden: false,
        defaultValue: '',
        placeholder: '',
        unselectedLabel: '',
        labelHidden: false,
        isSmartField: false,
        ...w,
      };
    });
  }

  /** `fields` wins over `formFieldGroups`; groups are flattened (the record has one group per field). */
  const fieldWrites = (w: Partial<FormWrite>) => w.fields ?? w.formFieldGroups?.flatMap((g) => g.fields);

  function record(row: FormRow): FormRecord {
    const def: Definition = JSON.parse(row.definition);
    return {
      portalId: row.portal_id,
      guid: row.guid,
      ...def,
      formFieldGroups: def.fields.map((f) => ({ fields: [f], default: true, isSmartGroup: false, richText: { content: '' } })),
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      deletable: true,
      embeddedCode: `<script>svc.forms.create({ portalId: ${row.portal_id}, formId: "${row.guid}" });</script>`,
    };
  }

  /** Field values as property writes, or the 400 naming every field that is wrong. Empty optional
   * values are left out so that a blank input does not clear what the contact already has. */
  function writesOf(def: Definition, values: Record<string, string | string[]>): Write[] {
    const joined = Object.entries(values).map(([name, v]) => ({ property: name, value: Array.isArray(v) ? v.join(';') : v }));
    const given = new Map(joined.map((w) => [w.property, w.value]));
    const onForm = new Set(def.fields.map((f) => f.name));
    const errors: SubmissionError[] = [];
    for (const name of given.keys())
      if (!onForm.has(name)) errors.push({ message: `Field '${name}' is not on the form`, errorType: 'FIELD_NOT_IN_FORM_DEFINITION', in: `body.${name}` });
    const required = new Set(['email', ...def.fields.filter((f) => f.required).map((f) => f.name)]);
    for (const name of required)
      if (!given.get(name)) errors.push({ message: `Required field '${name}' is missing`, errorType: 'REQUIRED_FIELD', in: `body.${name}` });
    const email = given.get('email');
    if (email && !isEmail(email)) errors.push({ message: `Email address ${email} is invalid`, errorType: 'INVALID_EMAIL', in: 'body.email' });
    if (errors.length) throw badRequest(errors.map((e) => e.message).join('; '), { errors });
    return joined.filter((w) => w.value !== '');
  }

  const submitTx = transaction(db, (portalId: number, row: FormRow, writes: Write[], context: SubmissionContext) => {
    const t = now();
    const conversionId = uuidV7(t);
    const source: Source = { type: 'FORM', id: conversionId };
    const email = writes.find((w) => w.property == 'email')!.value;
    // The conversion counters go in the same contact write as the submitted values.
    const existing = contacts.getByEmail(portalId, email);
    const count = (existing ? q.conversions.get(portalId, existing.vid)!.n : 0) + 1;
    const { vid } = contacts.upsertByEmail(portalId, email, writes, source, [
      { property: 'num_conversion_events', value: String(count) },
      { property: 'recent_conversion_date', value: String(t) },
    ]);
    if (context.svcutk) contacts.linkUtk(portalId, context.svcutk, vid);
    const values = Object.fromEntries(writes.map((w) => [w.property, w.value]));
    q.insertSubmission.run(conversionId, portalId, vid, row.guid, t, context.pageUrl ?? null, context.pageName ?? null, JSON.stringify(values));
    return conversionId;
  });

  const get = (portalId: number, guid: string) => record(requireRow(portalId, guid));
  const fields = (portalId: number, guid: string) => (JSON.parse(requireRow(portalId, guid).definition) as Definition).fields;

  return {
    list: (portalId: number) => q.all.all(portalId).map(record),
    get,
    fields,

    create(portalId: number, write: FormWrite) {
      const guid = randomUUID();
      if (!write.name?.trim()) throw badRequest(`Form name is required, form guid '${guid}'`, { type: 'MISSING_NAME' });
      const { fields: _f, formFieldGroups: _g, ...rest } = write;
      const def: Definition = { ...DEFAULTS, ...rest, name: write.name, fields: fieldsOf(portalId, fieldWrites(write) ?? []) };
      const t = now();
      q.insert.run(guid, portalId, JSON.stringify(def), t, t);
      return get(portalId, guid);
    },

    /** Partial update: keys given replace, `fields` given replace all the fields. */
    update(portalId: number, guid: string, write: Partial<FormWrite>) {
      const old: Definition = JSON.parse(requireRow(portalId, guid).definition);
      if (write.name !== undefined && !write.name.trim()) throw badRequest(`Form name is required, form guid '${guid}'`, { type: 'MISSING_NAME' });
      const { fields: _f, formFieldGroups: _g, ...rest } = write;
      const writes = fieldWrites(write);
      const def: Definition = { ...old, ...rest, name: write.name ?? old.name, fields: writes ? fieldsOf(portalId, writes) : old.fields };
      q.update.run(JSON.stringify(def), now(), portalId, guid);
      return get(portalId, guid);
    },

    remove(portalId: number, guid: string) {
      requireRow(portalId, guid);
      q.remove.run(portalId, guid);
    },

    field(portalId: number, guid: string, name: string) {
      const field = fields(portalId, guid).find((f) => f.name == name);
      if (!field) throw notFound(`The Form with the guid '${guid}' has no FormField with the name '${name}'.`);
      return field;
    },

    /** Validates the values against the form, then writes the contact and the conversion in one
     * transaction. `redirect` is where the visitor goes next, if anywhere. */
    submit(portalId: number, guid: string, values: Record<string, string | string[]>, context: SubmissionContext) {
      const row = requireRow(portalId, guid);
      const def: Definition = JSON.parse(row.definition);
      const conversionId = submitTx(portalId, row, writesOf(def, values), context);
      return { conversionId, redirect: context.redirectUrl || def.redirect || undefined };
    },
  };
}

export type FormStore = ReturnType<typeof formStore>;
