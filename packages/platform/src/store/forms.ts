/** Forms: definitions (one JSON document per form) whose fields are contact properties, and
 * submissions, which create or update the contact by email and record the conversion. Every
 * method takes where it runs (`db`: the engine, or a request's transaction) first. */
import { randomUUID } from 'node:crypto';
import { uuidV7 } from '../util/uuid-v7';
import { schemas } from '@svc/api';
import { FREE_MAIL_DOMAINS, type LegalConsent } from '@svc/protocol';
import type { z } from 'zod';
import { type Engine, type Queryable, sql, type Transaction, within } from '../db/engine';
import { pair, pick } from '../db/statements';
import { timeOf } from '../db/tx-clock';
import { sharedCache } from '../db/shared-cache';
import { badRequest, notFound } from '../domain/errors';
import type { ContactStore, Source, Write } from './contacts';
import { ANALYTICS } from './default-properties';
import { METRICS, type RollupStore } from './rollups';
import { isEmail, type Property, type PropertyStore } from './properties';
import { fieldValue, spamReason, spamSubmissions } from './spam-submissions';

export type FormWrite = z.output<typeof schemas.formWrite>;
export type FieldWrite = z.output<typeof schemas.fieldWrite>;
type DependentWrite = Omit<FieldWrite, 'dependentFieldFilters'>;
export type FormRecord = z.input<typeof schemas.form>;
export type FieldRecord = z.input<typeof schemas.formField>;
export type SubmissionContext = z.output<typeof schemas.submissionContext>;
type ConsentOptions = z.output<typeof schemas.legalConsentOptionsWrite>;

/** The consent recorded with a submission: what was agreed to, with the texts the form shows. */
export interface RecordedConsent {
  consentToProcess: boolean;
  text: string;
  communications: { subscriptionTypeId: number; value: boolean; text: string }[];
}

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

interface GroupSettings {
  size: number;
  default: boolean;
  isSmartGroup: boolean;
  richText: { content: string; type: string };
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
  errorType:
    | 'REQUIRED_FIELD'
    | 'FIELD_NOT_IN_FORM_DEFINITION'
    | 'INVALID_EMAIL'
    | 'BLOCKED_EMAIL'
    | 'REQUIRED_CONSENT'
    | 'INVALID_CONSENT';
  in: string;
}

const COLUMNS = 'guid, portal_id, definition, created_at, updated_at';
const q = {
  get: sql<[number, string], FormRow>(`SELECT ${COLUMNS} FROM forms WHERE portal_id = ? AND guid = ?`),
  /** The row, locked until the transaction ends (PostgreSQL; SQLite has one writer): an update
   * reads the form it changes this way, so that two at once apply one after the other. */
  lock: sql<[number, string], FormRow>(
    `UPDATE forms SET updated_at = updated_at WHERE portal_id = ? AND guid = ? RETURNING ${COLUMNS}`,
  ),
  // seq: the order they were made in, for forms made in the same millisecond.
  all: sql<[number], FormRow>(`SELECT ${COLUMNS} FROM forms WHERE portal_id = ? ORDER BY created_at, seq`),
  insert: sql<[string, number, string, number, number]>(
    'INSERT INTO forms (guid, portal_id, definition, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
  ),
  update: sql<[string, number, number, string]>(
    'UPDATE forms SET definition = ?, updated_at = ? WHERE portal_id = ? AND guid = ?',
  ),
  remove: sql<[number, string]>('DELETE FROM forms WHERE portal_id = ? AND guid = ?'),
  insertSubmission: sql<[string, number, number | null, string, number, string | null, string | null, string]>(
    `INSERT INTO form_submissions (conversion_id, portal_id, vid, form_guid, timestamp, page_url, page_title, values_json)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ),
  conversions: sql<[number, number], { form_guid: string; n: number }>(
    'SELECT form_guid, count(*) AS n FROM form_submissions WHERE portal_id = ? AND vid = ? GROUP BY form_guid',
  ),
  insertConsent: sql<[string, number, string]>(
    'INSERT INTO form_consents (conversion_id, portal_id, consent) VALUES (?, ?, ?)',
  ),
  /** The submission and its consent in one statement (PostgreSQL; SQLite has no INSERT in WITH). */
  insertWithConsent: sql<
    [string, number, number | null, string, number, string | null, string | null, string, string, number, string]
  >(
    `WITH s AS (INSERT INTO form_submissions (conversion_id, portal_id, vid, form_guid, timestamp, page_url, page_title, values_json)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?))
     INSERT INTO form_consents (conversion_id, portal_id, consent) VALUES (?, ?, ?)`,
  ),
  subscriptionTypes: sql<[number], { id: number }>('SELECT id FROM subscription_types WHERE portal_id = ?'),
};

/** A submission's row: conversion id, portal, contact, form, time, page URL and title, values. */
type SubmissionRow = readonly [string, number, number | null, string, number, string | null, string | null, string];

/** Stores a submission with the consent it gave (JSON), if any, without waiting for either
 * (`send`: rows keyed by a new conversion id, which nothing else has): one statement for both on
 * PostgreSQL, where each is a round trip. */
const storeSubmission = pair<(db: Queryable, submission: SubmissionRow, consent?: string) => Promise<void>>({
  async sqlite(db, submission, consent) {
    await db.send(q.insertSubmission, ...submission);
    if (consent) await db.send(q.insertConsent, submission[0], submission[1], consent);
  },
  postgres: (db, submission, consent) =>
    consent
      ? db.send(q.insertWithConsent, ...submission, submission[0], submission[1], consent)
      : db.send(q.insertSubmission, ...submission),
});

const formNotFound = (guid: string) => notFound(`No form found with guid '${guid}'`, { type: 'NOT_FOUND' });

/** `rollups`: where submissions per form are counted (the dashboard), if anywhere. */
export function formStore(
  engine: Engine,
  contacts: ContactStore,
  properties: PropertyStore,
  now: () => number,
  rollups?: RollupStore,
) {
  const ways = pick(engine, { storeSubmission });
  /** Form rows by portal and guid (`form/62515/<guid>`), read by every submission: kept per process
   * (db/shared-cache.ts), their version checked along with the property definitions' (one
   * statement for both on PostgreSQL). A form that does not exist is not kept. */
  const cacheKey = (portalId: number, guid: string) => `form/${portalId}/${guid}`;
  const rows = sharedCache(
    engine,
    (db, key) => {
      const at = key.indexOf('/', 5);
      return db.get(q.get, Number(key.slice(5, at)), key.slice(at + 1));
    },
    (row) => row !== undefined,
  );

  async function requireRow(db: Queryable, portalId: number, guid: string) {
    const row = await rows.get(db, cacheKey(portalId, guid));
    if (!row) throw formNotFound(guid);
    return row;
  }

  /** Field records from writes: each (dependent fields too) names a writable contact property,
   * whose definition (in `defs`) fills the gaps; no property is on the form twice. */
  function fieldsOf(
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
  function layoutOf(w: Partial<FormWrite>): { fields: FieldWrite[]; groups?: GroupSettings[] } | undefined {
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

  function groupsOf(def: Definition) {
    if (!def.groups)
      return def.fields.map((f) => ({ fields: [f], default: true, isSmartGroup: false, richText: { content: '' } }));
    let at = 0;
    return def.groups.map(({ size, ...g }) => ({ fields: def.fields.slice(at, (at += size)), ...g }));
  }

  /** Queued questions: contact properties, none of them on the form itself. */
  function queueOf(defs: Map<string, Property>, fields: FieldRecord[], writes: FieldWrite[]) {
    return fieldsOf(defs, writes, 'queuedFields', new Set(allFields({ fields } as Definition).map((f) => f.name)));
  }

  /** Subscription types a form offers must exist in the portal. */
  async function checkConsent(db: Queryable, portalId: number, o: ConsentOptions | undefined) {
    if (!o?.communicationsCheckboxes?.length) return;
    const ids = new Set((await db.all(q.subscriptionTypes, portalId)).map((t) => t.id));
    o.communicationsCheckboxes.forEach((c, i) => {
      if (!ids.has(c.subscriptionTypeId))
        throw badRequest(
          `legalConsentOptions.communicationsCheckboxes.${i}.subscriptionTypeId: subscription type ${c.subscriptionTypeId} does not exist in this portal`,
        );
    });
  }

  /** The fields a submission may fill: the form's own, their dependent fields and the queued questions. */
  const allFields = (def: Definition) =>
    [...def.fields, ...(def.queuedFields ?? [])].flatMap((f) => [
      f,
      ...(f.dependentFieldFilters ?? []).map((r) => r.dependentFormField),
    ]);

  /** The definition as visitors see it: a field whose property was deleted since the form was
   * written is no longer asked for (its group shrinks; a group left empty goes), nor are dependent
   * fields of it; a property of that name created again later is a new one, not on the form. */
  function live(defs: Map<string, Property>, def: Definition, writtenAt: number): Definition {
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

  function record(defs: Map<string, Property>, row: FormRow): FormRecord {
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
  function shapeOf(def: Definition) {
    let shape = shapes.get(def);
    if (!shape) {
      const fields = allFields(def);
      // A dependent field is required only while shown, which the embed decides: not checked here.
      // A smart field may have given its place to a queued question (the companion decides, for a
      // known visitor): it is required only where the embed shows it.
      const required = def.fields
        .filter((f) => (f.required && !f.isSmartField) || f.name == 'email')
        .map((f) => f.name);
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

  /** Field values as writes, or the 400 naming every field that is wrong. Empty optional values
   * are left out so that a blank input does not clear what the contact already has. `asked` is
   * the live definition: a value for a field whose property was deleted since the page loaded is
   * still accepted (kept with the submission, not written to the contact). Email is required when
   * the form asks for it. */
  function writesOf(
    def: Definition,
    asked: Definition,
    values: Record<string, string | string[]>,
    consentGiven?: LegalConsent,
  ): { writes: Write[]; consent?: RecordedConsent } {
    const joined = Object.entries(values).map(([name, v]) => ({ property: name, value: fieldValue(v) }));
    const given = new Map(joined.map((w) => [w.property, w.value]));
    const onForm = shapeOf(def).names;
    const { required, blocked } = shapeOf(asked);
    const errors: SubmissionError[] = [];
    for (const name of given.keys())
      if (!onForm.has(name))
        errors.push({
          message: `Field '${name}' is not on the form`,
          errorType: 'FIELD_NOT_IN_FORM_DEFINITION',
          in: `body.${name}`,
        });
    for (const name of required)
      if (!given.get(name))
        errors.push({
          message: `Required field '${name}' is missing`,
          errorType: 'REQUIRED_FIELD',
          in: `body.${name}`,
        });
    const email = given.get('email');
    if (email && !isEmail(email))
      errors.push({ message: `Email address ${email} is invalid`, errorType: 'INVALID_EMAIL', in: 'body.email' });
    else if (email && blocked.has(email.split('@')[1].toLowerCase()))
      errors.push({
        message: `Email address ${email} is blocked by the form`,
        errorType: 'BLOCKED_EMAIL',
        in: 'body.email',
      });
    const consent = consentOf(def.legalConsentOptions, consentGiven?.consent, errors);
    if (errors.length) throw badRequest(errors.map((e) => e.message).join('; '), { errors });
    return { writes: joined.filter((w) => w.value !== ''), consent };
  }

  /** The consent a submission gives, checked against what the form asks for: consent to process
   * when the form has a checkbox for it, every required subscription, and no subscription the form
   * does not offer. The texts recorded are the form's own, the ones the embed showed. */
  function consentOf(
    o: ConsentOptions | undefined,
    given: LegalConsent['consent'] | undefined,
    errors: SubmissionError[],
  ): RecordedConsent | undefined {
    const at = 'body.legalConsentOptions';
    if (!o) return undefined;
    const boxes = o.communicationsCheckboxes ?? [];
    const chosen = new Map((given?.communications ?? []).map((c) => [c.subscriptionTypeId, c.value]));
    if (o.consentToProcessCheckboxLabel && given?.consentToProcess !== true)
      errors.push({
        message: 'Consent to process personal data is required by this form',
        errorType: 'REQUIRED_CONSENT',
        in: `${at}.consentToProcess`,
      });
    for (const b of boxes)
      if (b.required && chosen.get(b.subscriptionTypeId) !== true)
        errors.push({
          message: `Consent to subscription type ${b.subscriptionTypeId} ('${b.label}') is required by this form`,
          errorType: 'REQUIRED_CONSENT',
          in: `${at}.communications`,
        });
    for (const id of chosen.keys())
      if (!boxes.some((b) => b.subscriptionTypeId == id))
        errors.push({
          message: `Subscription type ${id} is not offered by this form`,
          errorType: 'INVALID_CONSENT',
          in: `${at}.communications`,
        });
    const join = (...texts: (string | undefined)[]) => texts.filter(Boolean).join('\n');
    return {
      consentToProcess: given?.consentToProcess === true,
      text: join(o.consentToProcessText, o.consentToProcessCheckboxLabel),
      communications: boxes.map((b) => ({
        subscriptionTypeId: b.subscriptionTypeId,
        value: chosen.get(b.subscriptionTypeId) === true,
        text: join(o.communicationConsentText, b.label),
      })),
    };
  }

  /** The contact a submission writes: by its email, else the visitor's own (by svcutk) if known;
   * a form without an email field from an unknown visitor makes no contact. */
  async function saveSubmission(
    db: Transaction,
    portalId: number,
    row: FormRow,
    values: Write[],
    asked: Definition,
    context: SubmissionContext,
    consent?: RecordedConsent,
    replayOf?: string,
  ) {
    // A released spam submission keeps its conversion id and time (db/tx-clock.ts).
    const t = timeOf(db, now);
    const conversionId = replayOf ?? uuidV7(t);
    const source: Source = { type: 'FORM', id: conversionId };
    const onContact = shapeOf(asked).names;
    const writes = values.filter((w) => onContact.has(w.property));
    const email = writes.find((w) => w.property == 'email')?.value;
    // The count below is of the submissions stored: two of one visitor at once (two processes on
    // PostgreSQL) take turns, so that the second counts the first.
    const visitor = email?.toLowerCase() ?? context.svcutk;
    if (visitor) await db.lock(`form submissions ${portalId} ${visitor}`);
    const existing = email
      ? await contacts.getByEmailToWrite(db, portalId, email)
      : context.svcutk
        ? await contacts.getByUtk(db, portalId, context.svcutk)
        : undefined;
    // The conversion counters go in the same contact write as the submitted values; the forms
    // submitted go with the change, for the lists' re-check (HAS_FILLED_OUT_FORM).
    const earlier = existing ? await db.all(q.conversions, portalId, existing.vid) : [];
    const count = earlier.reduce((n, r) => n + r.n, 1);
    const forms = [...new Set([...earlier.map((r) => r.form_guid), row.guid])];
    const counters = [
      { property: ANALYTICS.conversions, value: String(count) },
      { property: ANALYTICS.recentConversion, value: String(t) },
    ];
    let vid: number | null = existing?.vid ?? null;
    // The contact read above is the one written: not read again.
    if (email)
      vid = (
        await contacts.upsertByEmail(db, portalId, email, writes, source, counters, {
          known: existing ?? null,
          submitted: forms,
        })
      ).vid;
    else if (vid !== null) await contacts.update(db, portalId, vid, writes, source, false, counters);
    const submitted = JSON.stringify(Object.fromEntries(values.map((w) => [w.property, w.value])));
    // Rows keyed by a new conversion id, which nothing else has: sent without waiting for them.
    const submission = [
      conversionId,
      portalId,
      vid,
      row.guid,
      t,
      context.pageUrl ?? null,
      context.pageName ?? null,
      submitted,
    ] as const;
    await ways.storeSubmission(db, submission, consent && JSON.stringify(consent));
    await rollups?.add(db, portalId, METRICS.form, t, row.guid);
    return { conversionId, vid, email };
  }

  const liveOf = (defs: Map<string, Property>, row: FormRow) => live(defs, JSON.parse(row.definition), row.updated_at);

  /** Definitions as submissions read them, by their text: parsed once, not on every submission
   * (a large form's parse was a twentieth of a submission's time), frozen since they are
   * shared; dropped whole when more than there are forms in use. */
  const parsed = new Map<string, Definition>();
  function submitted(text: string): Definition {
    let def = parsed.get(text);
    if (!def) {
      if (parsed.size >= 500) parsed.clear();
      parsed.set(text, (def = deepFreeze(JSON.parse(text) as Definition)));
    }
    return def;
  }
  /** The live definition of the form `guid` (what `live` says). */
  async function liveForm(db: Queryable, portalId: number, guid: string) {
    const row = await requireRow(db, portalId, guid);
    return liveOf(await properties.definitions(db, portalId), row);
  }

  return {
    async list(db: Queryable, portalId: number) {
      const rows = await db.all(q.all, portalId);
      const defs = await properties.definitions(db, portalId);
      return rows.map((row) => record(defs, row));
    },
    async get(db: Queryable, portalId: number, guid: string) {
      const row = await requireRow(db, portalId, guid);
      return record(await properties.definitions(db, portalId), row);
    },
    fields: async (db: Queryable, portalId: number, guid: string) => (await liveForm(db, portalId, guid)).fields,

    async create(db: Queryable, portalId: number, write: FormWrite) {
      const guid = randomUUID();
      if (!write.name?.trim()) throw badRequest(`Form name is required, form guid '${guid}'`, { type: 'MISSING_NAME' });
      const { fields: _f, formFieldGroups: _g, queuedFields: queued, ...rest } = write;
      const layout = layoutOf(write);
      const defs = await properties.definitions(db, portalId);
      const fields = fieldsOf(defs, layout?.fields ?? []);
      await checkConsent(db, portalId, write.legalConsentOptions);
      const def: Definition = {
        ...DEFAULTS,
        ...rest,
        name: write.name,
        fields,
        groups: layout?.groups,
        ...(queued && { queuedFields: queueOf(defs, fields, queued) }),
      };
      const t = now();
      const row: FormRow = { guid, portal_id: portalId, definition: JSON.stringify(def), created_at: t, updated_at: t };
      await db.run(q.insert, guid, portalId, row.definition, t, t);
      // The row as inserted, not read back.
      return record(defs, row);
    },

    /** Partial update: keys given replace, `fields` or `formFieldGroups` given replace all the fields and groups. */
    update(db: Queryable, portalId: number, guid: string, write: Partial<FormWrite>) {
      return db.tx(async (t) => {
        const row = await t.get(q.lock, portalId, guid);
        if (!row) throw formNotFound(guid);
        const defs = await properties.definitions(t, portalId);
        // Fields of deleted properties leave the stored form with its next write.
        const old = liveOf(defs, row);
        if (write.name !== undefined && !write.name.trim())
          throw badRequest(`Form name is required, form guid '${guid}'`, { type: 'MISSING_NAME' });
        const { fields: _f, formFieldGroups: _g, queuedFields: queued, ...rest } = write;
        const layout = layoutOf(write);
        const def: Definition = {
          ...old,
          ...rest,
          name: write.name ?? old.name,
          ...(layout && { fields: fieldsOf(defs, layout.fields), groups: layout.groups }),
        };
        await checkConsent(t, portalId, write.legalConsentOptions);
        // The queue is checked against the fields again when either changes.
        if (queued || layout)
          def.queuedFields = queueOf(defs, def.fields, queued ?? ((old.queuedFields ?? []) as FieldWrite[]));
        const updated = { ...row, definition: JSON.stringify(def), updated_at: now() };
        await t.run(q.update, updated.definition, updated.updated_at, portalId, guid);
        await rows.changed(t, cacheKey(portalId, guid));
        return record(defs, updated);
      });
    },

    remove: (db: Queryable, portalId: number, guid: string) =>
      within(db, async (t) => {
        if (!(await t.run(q.remove, portalId, guid))) throw formNotFound(guid);
        await rows.changed(t, cacheKey(portalId, guid));
      }),

    async field(db: Queryable, portalId: number, guid: string, name: string) {
      const field = allFields(await liveForm(db, portalId, guid)).find((f) => f.name == name);
      if (!field) throw notFound(`The Form with the guid '${guid}' has no FormField with the name '${name}'.`);
      return field;
    },

    /** Validates the values against the form, then writes the contact and the conversion in one
     * transaction. `vid` is the contact, if any (the caller links the visitor's utk to it: services/
     * visitor-links.ts); `redirect` is where the visitor goes next, if anywhere.
     * `replayOf`: the conversion id of a spam submission being released (services/
     * form-submissions.ts), which is not judged again and keeps its id. */
    async submit(
      db: Queryable,
      portalId: number,
      guid: string,
      values: Record<string, string | string[]>,
      context: SubmissionContext,
      extra: { honeypot?: string; consent?: LegalConsent; replayOf?: string } = {},
    ) {
      const row = await requireRow(db, portalId, guid);
      const def = submitted(row.definition);
      const redirect = context.redirectUrl || def.redirect || undefined;
      // Before any check, so that a bot learns nothing from the answer: it looks like a success.
      const reason = extra.replayOf ? undefined : spamReason(def.minFillTimeMs, extra.honeypot, context);
      if (reason) {
        const conversionId = await spamSubmissions.keep(
          db,
          portalId,
          row.guid,
          now(),
          reason,
          values,
          context,
          extra.consent,
        );
        return { conversionId, vid: null, redirect, spam: reason };
      }
      const asked = live(await properties.definitions(db, portalId), def, row.updated_at);
      const { writes, consent } = writesOf(def, asked, values, extra.consent);
      // In the caller's transaction (a request's) without a savepoint: nothing catches its failure.
      const { conversionId, vid, email } = await within(db, (t) =>
        saveSubmission(t, portalId, row, writes, asked, context, consent, extra.replayOf),
      );
      return { conversionId, vid, redirect, consent, email };
    },
  };
}

export type FormStore = ReturnType<typeof formStore>;

/** `value` and everything in it made read-only (a change throws, in a module's strict mode). */
function deepFreeze<T>(value: T): T {
  if (value && typeof value == 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
