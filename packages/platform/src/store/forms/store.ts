/** Forms: definitions (one JSON document per form) whose fields are contact properties, and
 * submissions, which create or update the contact by email and record the conversion. Every
 * method takes where it runs (`db`: the engine, or a request's transaction) first. What a
 * definition holds and how it is read is in definition.ts, a submission's checks in
 * submission-checks.ts, the SQL in sql.ts. */
import { randomUUID } from 'node:crypto';
import type { LegalConsent } from '@svc/protocol';
import { type Engine, type Queryable, type Transaction, within } from '../../db/engine';
import { pick } from '../../db/statements';
import { timeOf } from '../../db/tx-clock';
import { sharedCache } from '../../db/shared-cache';
import { badRequest, notFound } from '../../domain/errors';
import { uuidV7 } from '../../util/uuid-v7';
import type { ContactStore, Source, Write } from '../contacts';
import { ANALYTICS } from '../default-properties';
import { METRICS, type RollupStore } from '../rollups';
import type { PropertyStore } from '../properties';
import { spamReason, spamSubmissions } from '../spam-submissions';
import {
  allFields,
  type ConsentOptions,
  DEFAULTS,
  type Definition,
  deepFreeze,
  fieldsOf,
  type FormRow,
  type FormWrite,
  layoutOf,
  live,
  liveOf,
  queueOf,
  type RecordedConsent,
  record,
  shapeOf,
  type SubmissionContext,
} from './definition';
import { q, storeSubmission } from './sql';
import { writesOf } from './submission-checks';

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
        if (queued || layout) def.queuedFields = queueOf(defs, def.fields, queued ?? old.queuedFields ?? []);
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
