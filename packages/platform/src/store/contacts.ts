/** Contacts: properties (current values as JSON on the row, every write in contact_history),
 * identities (email on the row, visitor tokens in utks), and the v1 record shapes. */
import type { schemas } from '@svc/api';
import type { z } from 'zod';
import { type Engine, type Param, type Query, type Queryable, type Transaction, isTransaction, oneStatementFor, perRow, readsAhead, sql, updateRows, within } from '../db/engine';
import { timeOf } from '../db/tx-clock';
import { PlatformError, badRequest, conflict, isTransient, notFound } from '../domain/errors';
import { type BatchItem, contactBatchWriter } from './contact-batch';
import { ANALYTICS } from './default-properties';
import { isEmail, type PropertyStore } from './properties';
import { METRICS, type RollupStore } from './rollups';

export interface ContactRow {
  vid: number;
  portal_id: number;
  email: string | null;
  properties: string;
  created_at: number;
  updated_at: number;
  history_head: number | null;
}

export interface Write {
  property: string;
  value: string;
}

/** A contact a write touched, with its properties after the write; without them it was deleted
 * (dynamic lists re-check it from these, without reading it again). */
export interface ChangedContact {
  vid: number;
  properties?: Record<string, string>;
  /** Made by this write: in no list yet, so nothing to take it out of. */
  isNew?: boolean;
  /** The properties the write changed, when known (only these can move it between lists). */
  names?: string[];
  /** The guids of the forms it has submitted, when the writer knows them all (a form
   * submission's): the lists' re-check does not read them again. */
  submitted?: string[];
}

/** Where a value came from (`source-type` of a property version). */
export interface Source {
  type: 'API' | 'FORM' | 'ANALYTICS' | 'WORKFLOW' | 'CALCULATED';
  id?: string | null;
}

export interface ReadOptions {
  /** Only these properties (list-style reads default to a small standard set). */
  property?: string[];
  propertyMode?: 'value_only' | 'value_and_history';
  formSubmissionMode?: 'all' | 'none' | 'newest' | 'oldest';
  showListMemberships?: boolean;
}

export type ContactRecord = z.input<typeof schemas.contact>;

/** A write worked out in memory (contactStore's plan()), before it is stored. */
export interface Plan {
  props: Record<string, string>;
  email: string | null;
  /** The history entry: the changed properties as JSON. */
  changes?: string;
  t: number;
  changed: boolean;
  /** The properties it changes. */
  names: string[];
}

/** Where a contact made through the API comes from: not a visit (the modelled platform's
 * "Offline Sources", drill-down API). Its first session, if earlier, replaces it as the original
 * source (store/tracking.ts). */
const OFFLINE_SOURCE: Record<string, string> = {
  [ANALYTICS.source]: 'OFFLINE',
  [ANALYTICS.sourceData1]: 'API',
  [ANALYTICS.latestSource]: 'OFFLINE',
  [ANALYTICS.latestSourceData1]: 'API',
};

const OFFLINE_ENTRIES = Object.entries(OFFLINE_SOURCE);

/** Properties whose history is not kept (see write()). */
const CALCULATED = new Set(['createdate', 'lastmodifieddate', ...Object.keys(OFFLINE_SOURCE)]);

/** The properties list-style reads return when `property` is not given. */
const LIST_PROPERTIES = ['firstname', 'lastname', 'company', 'lastmodifieddate'];

/** A ContactRow's columns for a SELECT, each prefixed with `alias.` when the query joins. */
export const contactColumns = (alias?: string) =>
  ['vid', 'portal_id', 'email', 'properties', 'created_at', 'updated_at', 'history_head'].map((c) => (alias ? `${alias}.${c}` : c)).join(', ');
const COLUMNS = contactColumns();

type Utk = { utk: string; linked_at: number };
type Submission = { conversion_id: string; form_guid: string; timestamp: number; page_url: string | null; page_title: string | null; title: string | null; consent: string | null };

/** `onChange` hears every write, in its transaction `db`: dynamic lists re-check from it. */
export type ContactsChanged = (db: Transaction, portalId: number, changed: ChangedContact[]) => Promise<void> | void;

/** A new contact's insert found its email taken by a contact another transaction made meanwhile
 * (PostgreSQL: the two checks ran at once); the caller writes to that contact instead. */
class EmailTaken extends Error {
  constructor(readonly owner: ContactRow) {
    super('email taken');
  }
}

/** `rollups`: where the contacts made per source are counted (the dashboard), if anywhere. */
export function contactStore(engine: Engine, properties: PropertyStore, now: () => number, onChange: ContactsChanged, rollups?: RollupStore) {
  const { jsonText, jsonRemoveKey, jsonHasKey, forUpdate, textNumber, returningKey } = engine.dialect;
  const q = {
    byVid: sql<[number, number], ContactRow>(`SELECT ${COLUMNS} FROM contacts WHERE portal_id = ? AND vid = ? AND deleted = 0`),
    byEmail: sql<[number, string], ContactRow>(`SELECT ${COLUMNS} FROM contacts WHERE portal_id = ? AND email = ? AND deleted = 0`),
    // A row about to be written from what was read (another writer of it waits on PostgreSQL).
    byVidToWrite: sql<[number, number], ContactRow>(`SELECT ${COLUMNS} FROM contacts WHERE portal_id = ? AND vid = ? AND deleted = 0${forUpdate}`),
    byEmailToWrite: sql<[number, string], ContactRow>(`SELECT ${COLUMNS} FROM contacts WHERE portal_id = ? AND email = ? AND deleted = 0${forUpdate}`),
    // PostgreSQL: many rows about to be written in one statement, each by the primary key and
    // locked in the array's order (perRow).
    byVidsToWrite: sql<[string, number], ContactRow>(
      `SELECT x.* ${perRow(engine.dialect.jsonIds('?'), `SELECT ${COLUMNS} FROM contacts WHERE vid = r.id AND portal_id = ? AND deleted = 0 LIMIT 1${forUpdate}`)}`,
    ),
    byUtk: sql<[number, string], ContactRow>(
      `SELECT ${contactColumns('c')} FROM utks u JOIN contacts c ON c.vid = u.vid
       WHERE u.portal_id = ? AND u.utk = ? AND c.deleted = 0`,
    ),
    // Nothing when another transaction took the email meanwhile (the unique index waits for it).
    insert: sql<[number, string | null, string, number, number]>(
      `INSERT INTO contacts (portal_id, email, properties, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (portal_id, email) WHERE deleted = 0 AND email IS NOT NULL DO NOTHING${returningKey('vid')}`,
    ),
    // Two updates: setting email (even to its old value) rewrites the contact's entry in the email
    // index, one more page written per update of a random contact.
    update: sql<[string, number, number | null, number]>('UPDATE contacts SET properties = ?, updated_at = ?, history_head = ? WHERE vid = ?'),
    // PostgreSQL: many rows' updates in one statement.
    updateAll: sql<[string]>(
      updateRows('contacts', 'vid', engine.dialect.jsonRows('?', { vid: 'integer', properties: 'text', updated_at: 'integer', history_head: 'integer' }), ['properties', 'updated_at', 'history_head']),
    ),

    updateEmail: sql<[string | null, string, number, number | null, number]>(
      'UPDATE contacts SET email = ?, properties = ?, updated_at = ?, history_head = ? WHERE vid = ?',
    ),
    // PostgreSQL: a new contact and its first history row in one statement (one round trip, not
    // three): the row's seq drawn first, so that the contact is inserted with its head. Nothing
    // when the email is taken (as `insert`).
    insertWithHistory: sql<[number, string | null, string, number, number, number, string, string | null, string], { vid: number }>(
      `WITH s AS (SELECT nextval(pg_get_serial_sequence('contact_history', 'seq')) AS seq),
       c AS (INSERT INTO contacts (portal_id, email, properties, created_at, updated_at, history_head) SELECT ?, ?, ?, ?, ?, seq FROM s
             ON CONFLICT (portal_id, email) WHERE deleted = 0 AND email IS NOT NULL DO NOTHING RETURNING vid, history_head),
       h AS (INSERT INTO contact_history (seq, vid, prev, timestamp, source_type, source_id, changes) SELECT history_head, vid, NULL, ?, ?, ?, ? FROM c)
       SELECT vid FROM c`,
    ),
    // SQLite: a new contact with the seq its first history row will have (the largest plus one;
    // its one writer runs this transaction alone), so that the history row follows with it, at
    // that seq, and the contact is not updated again. Nothing when the email is taken.
    insertHeaded: sql<[number, string | null, string, number, number]>(
      `INSERT INTO contacts (portal_id, email, properties, created_at, updated_at, history_head)
       VALUES (?, ?, ?, ?, ?, (SELECT coalesce(max(seq), 0) + 1 FROM contact_history))
       ON CONFLICT (portal_id, email) WHERE deleted = 0 AND email IS NOT NULL DO NOTHING${returningKey('vid')}`,
    ),
    firstHistory: sql<[number, string, string | null, string, number]>(
      `INSERT INTO contact_history (seq, vid, prev, timestamp, source_type, source_id, changes)
       SELECT history_head, vid, NULL, ?, ?, ?, ? FROM contacts WHERE vid = ?`,
    ),
    remove: sql<[number, number, number]>('UPDATE contacts SET deleted = 1, updated_at = ? WHERE portal_id = ? AND vid = ?'),
    removeUtks: sql<[number]>('DELETE FROM utks WHERE vid = ?'),
    removeMemberships: sql<[number]>('DELETE FROM list_members WHERE vid = ?'),
    // The lists it leaves changed size now (an addition is dated by the member's row; see lists.ts).
    listsLeft: sql<[number, number]>('UPDATE lists SET size_changed_at = ? WHERE list_id IN (SELECT list_id FROM list_members WHERE vid = ?)'),
    history: sql<[number, number | null, number, string, string | null, string]>(
      `INSERT INTO contact_history (vid, prev, timestamp, source_type, source_id, changes) VALUES (?, ?, ?, ?, ?, ?)${returningKey('seq')}`,
    ),
    page: sql<[number, number, number], ContactRow>(
      `SELECT ${COLUMNS} FROM contacts WHERE portal_id = ? AND deleted = 0 AND vid > ? ORDER BY vid LIMIT ?`,
    ),
    recent: sql<[number, number, number, number, number], ContactRow>(
      `SELECT ${COLUMNS} FROM contacts WHERE portal_id = ? AND deleted = 0
       AND (updated_at < ? OR (updated_at = ? AND vid < ?)) ORDER BY updated_at DESC, vid DESC LIMIT ?`,
    ),
    // Vids grow with creation, so the vid index walked backwards is creation order, newest first.
    created: sql<[number, number, number, number], ContactRow>(
      `SELECT ${COLUMNS} FROM contacts WHERE portal_id = ? AND deleted = 0 AND vid < ? AND created_at <= ? ORDER BY vid DESC LIMIT ?`,
    ),
    // A deleted property's values go from every contact; updated_at stays (no one wrote them).
    forget: sql<[string, number, string]>(
      `UPDATE contacts SET properties = ${jsonRemoveKey('properties', '?')} WHERE portal_id = ? AND ${jsonHasKey('properties', '?')}`,
    ),
    stats: sql<[number], { n: number; last: number | null }>(
      'SELECT count(*) AS n, max(created_at) AS last FROM contacts WHERE portal_id = ? AND deleted = 0',
    ),
    linkUtk: sql<[number, string, number, number]>(
      'INSERT INTO utks (portal_id, utk, vid, linked_at) VALUES (?, ?, ?, ?) ON CONFLICT (portal_id, utk) DO UPDATE SET vid = excluded.vid, linked_at = excluded.linked_at',
    ),
    utksOf: sql<[number], Utk>('SELECT utk, linked_at FROM utks WHERE vid = ? ORDER BY linked_at'),
    // The chain from the contact's newest write back to its first.
    historyOf: sql<[number], { changes: string; source_type: string; source_id: string | null; timestamp: number }>(
      `WITH RECURSIVE chain AS (
         SELECT * FROM contact_history WHERE seq = ?
         UNION ALL SELECT h.* FROM contact_history h JOIN chain c ON h.seq = c.prev
       ) SELECT changes, source_type, source_id, timestamp FROM chain ORDER BY seq DESC`,
    ),
    submissionsOf: sql<[number], Submission>(
      `SELECT s.conversion_id, s.form_guid, s.timestamp, s.page_url, s.page_title, ${jsonText('f.definition', '$.name')} AS title, c.consent
       FROM form_submissions s LEFT JOIN forms f ON f.guid = s.form_guid LEFT JOIN form_consents c ON c.conversion_id = s.conversion_id
       WHERE s.vid = ? ORDER BY s.timestamp DESC`,
    ),
    membershipsOf: sql<[number], { list_id: number; internal_list_id: number; added_at: number }>(
      'SELECT m.list_id, l.internal_list_id, m.added_at FROM list_members m JOIN lists l ON l.list_id = m.list_id WHERE m.vid = ? ORDER BY m.list_id',
    ),
  };

  /** Identities and submissions of a page of contacts, by its size (pages of 100 would otherwise
   * take 200 queries). */
  const inQueries = new Map<number, { utks: Query<number[], Utk & { vid: number }>; submissions: Query<number[], Submission & { vid: number }> }>();
  function prefetchQueries(count: number) {
    let s = inQueries.get(count);
    if (!s) {
      const marks = Array.from({ length: count }, () => '?').join(',');
      s = {
        utks: sql(`SELECT vid, utk, linked_at FROM utks WHERE vid IN (${marks}) ORDER BY linked_at`),
        submissions: sql(
          `SELECT s.vid, s.conversion_id, s.form_guid, s.timestamp, s.page_url, s.page_title, ${jsonText('f.definition', '$.name')} AS title, c.consent
           FROM form_submissions s LEFT JOIN forms f ON f.guid = s.form_guid LEFT JOIN form_consents c ON c.conversion_id = s.conversion_id
           WHERE s.vid IN (${marks}) ORDER BY s.timestamp DESC`,
        ),
      };
      inQueries.set(count, s);
    }
    return s;
  }

  /** Validates, then applies the writes to `row` (or a new contact) in memory. `system` writes
   * are the platform's own (counters, dates): they may set read-only properties. `changes` is the
   * history entry (none when only calculated values change); nothing changes an existing row when
   * `changed` is false. */
  async function plan(db: Queryable, portalId: number, row: ContactRow | undefined, given: Write[], source: Source, system: Write[] = []): Promise<Plan> {
    const invalid = [...(await properties.validate(db, portalId, given)), ...(system.length ? await properties.validate(db, portalId, system, { allowReadOnly: true }) : [])];
    if (invalid.length) throw badRequest('Property values were not valid', { validationResults: invalid });
    const writes = system.length ? [...given, ...system] : given;
    const t = timeOf(db, now);
    // A new contact's properties are set one by one on an empty object: spreading the made ones
    // into it and then adding the written ones cost 4 µs a contact, this 1 (V8 gives a spread
    // object no room to grow in place).
    const props: Record<string, string> = row ? JSON.parse(row.properties) : {};
    const changed: Write[] = [];
    const set = (property: string, value: string) => {
      if (value === '') delete props[property];
      else props[property] = value;
      changed.push({ property, value });
    };
    if (!row) {
      set('createdate', String(t));
      if (source.type == 'API') for (const [property, value] of OFFLINE_ENTRIES) set(property, value);
    }
    for (const w of writes) {
      const value = w.property == 'email' ? w.value.toLowerCase() : w.value;
      if ((Object.hasOwn(props, w.property) ? props[w.property] : '') != value) set(w.property, value);
    }
    if (row && !changed.length) return { props, email: row.email, t, changed: false, names: [] };
    props.lastmodifieddate = String(t);
    // History for what people and systems set; the calculated dates and the analytics counters
    // change on every write and page view, and their versions are synthesised on read.
    const kept: Record<string, string> = {};
    let anyKept = false;
    if (source.type != 'ANALYTICS')
      for (const c of changed) {
        if (CALCULATED.has(c.property)) continue;
        kept[c.property] = c.value;
        anyKept = true;
      }
    const names = changed.map((c) => c.property);
    names.push('lastmodifieddate');
    return { props, email: props.email ?? null, changes: anyKept ? JSON.stringify(kept) : undefined, t, changed: true, names };
  }

  /** plan(), then stores it. Returns the contact as written. */
  /** A row's update (`q.update`'s parameters), left to the caller to store with others. */
  type Update = [properties: string, updatedAt: number, head: number | null, vid: number];

  async function write(
    db: Queryable, portalId: number, row: ContactRow | undefined, given: Write[], source: Source, system: Write[] = [], defer?: (update: Update) => void,
  ): Promise<ChangedContact & Required<Pick<ChangedContact, 'properties'>>> {
    const { props, email, changes, t, changed, names } = await plan(db, portalId, row, given, source, system);
    if (!changed) return { vid: row!.vid, properties: props, names };
    // An email changed to another contact's: 409. A new contact's email taken since the caller
    // looked (another transaction) is found by its insert, which then writes nothing: EmailTaken.
    if (row && email && email != row.email) {
      const owner = await db.get(q.byEmail, portalId, email);
      if (owner && owner.vid != row.vid) throw await existsError(db, owner);
    }
    if (!row) {
      let vid: number | undefined;
      if (changes === undefined) vid = await db.insert(q.insert, portalId, email, JSON.stringify(props), t, t);
      else if (engine.kind == 'postgres')
        vid = await db.value(q.insertWithHistory, portalId, email, JSON.stringify(props), t, t, t, source.type, source.id ?? null, changes);
      else {
        vid = await db.insert(q.insertHeaded, portalId, email, JSON.stringify(props), t, t);
        if (vid !== undefined) await db.send(q.firstHistory, t, source.type, source.id ?? null, changes, vid);
      }
      if (vid === undefined) throw new EmailTaken((await db.get(q.byEmail, portalId, email!))!);
      await countMade(db, portalId, props, t);
      return { vid, properties: props, isNew: true };
    }
    // Its original source set or changed: it counts under the new one (read only when written).
    const movesSource = (w: Write) => w.property == ANALYTICS.source || w.property == ANALYTICS.sourceData1;
    if (rollups && (given.some(movesSource) || system.some(movesSource))) {
      const before: Record<string, string> = JSON.parse(row.properties);
      const origin = (p: Record<string, string>) => `${p[ANALYTICS.source] ?? ''}\u0000${p[ANALYTICS.sourceData1] ?? ''}`;
      if (origin(before) != origin(props)) {
        await countMade(db, portalId, before, row.created_at, -1);
        await countMade(db, portalId, props, row.created_at);
      }
    }
    const head = changes ? (await db.insert(q.history, row.vid, row.history_head, t, source.type, source.id ?? null, changes))! : row.history_head;
    if (email != row.email) await db.run(q.updateEmail, email, JSON.stringify(props), t, head, row.vid);
    else if (defer) defer([JSON.stringify(props), t, head, row.vid]);
    else await db.run(q.update, JSON.stringify(props), t, head, row.vid);
    return { vid: row.vid, properties: props, names };
  }

  /** Writes by email: to its contact, or a new one (or, when another transaction made that one
   * meanwhile, to it: the failed insert wrote nothing). */
  async function writeByEmail(db: Queryable, portalId: number, email: string, writes: Write[], source: Source, system: Write[] = [], known?: ContactRow | null) {
    const row = known === undefined ? await db.get(q.byEmailToWrite, portalId, email.toLowerCase()) : (known ?? undefined);
    try {
      return { written: await write(db, portalId, row, writes, source, system), isNew: !row };
    } catch (err) {
      if (!(err instanceof EmailTaken)) throw err;
      return { written: await write(db, portalId, err.owner, writes, source, system), isNew: false };
    }
  }

  /** The ORDER BY of a search: `sort` must name one of the portal's properties (the 400 names it).
   * Property names are letters, digits and _ (properties.create), so the JSON path needs no quoting. */
  async function searchOrder(db: Queryable, portalId: number, sort?: { property: string; order?: 'ASC' | 'DESC' }) {
    if (!sort) return 'vid';
    const p = (await properties.definitions(db, portalId)).get(sort.property);
    if (!p || p.deleted) throw badRequest(`query.sort: '${sort.property}' is not a contact property`);
    const path = `$.${sort.property}`;
    // Values are kept as text; those of number and date properties were checked to be numbers
    // when they were written, but a property's type can change since (the others sort as none).
    const value = ['number', 'datetime', 'date'].includes(p.type) ? textNumber(jsonText('properties', path)) : `lower(${jsonText('properties', path)})`;
    const dir = sort.order ?? 'DESC';
    return `${value} ${dir} NULLS LAST, vid ${dir}`;
  }

  /** 409 CONTACT_EXISTS with the owner's identity profile (camelCase, as the legacy API). */
  async function existsError(db: Queryable, owner: ContactRow) {
    const utks = await db.all(q.utksOf, owner.vid);
    return conflict('Contact already exists', {
      error: 'CONTACT_EXISTS',
      identityProfile: {
        vid: owner.vid,
        identity: [
          { value: owner.email, type: 'EMAIL', timestamp: owner.created_at, isPrimary: true },
          ...utks.map((u) => ({ value: u.utk, type: 'LEAD_GUID', timestamp: u.linked_at })),
        ],
        linkedVid: [],
        isContact: true,
        savedAtTimestamp: owner.updated_at,
      },
    });
  }

  /** Identities and submissions of many contacts in two queries. */
  async function prefetch(db: Queryable, vids: number[]) {
    const s = prefetchQueries(vids.length);
    const group = <T extends { vid: number }>(rows: T[]) => {
      const m = new Map<number, T[]>();
      for (const r of rows) (m.get(r.vid) ?? m.set(r.vid, []).get(r.vid)!).push(r);
      return m;
    };
    const [utks, submissions] = await Promise.all([db.all(s.utks, ...vids), db.all(s.submissions, ...vids)]);
    return { utks: group(utks), submissions: group(submissions) };
  }
  type Prefetched = Awaited<ReturnType<typeof prefetch>>;

  /** The contact record; `profile` reads show every property (with history by default). */
  async function record(
    db: Queryable,
    row: ContactRow,
    opts: ReadOptions & { profile?: boolean; addedAt?: number } = {},
    pre?: Prefetched,
  ): Promise<ContactRecord> {
    const props: Record<string, string> = JSON.parse(row.properties);
    const names = opts.property?.length ? opts.property : opts.profile ? Object.keys(props) : LIST_PROPERTIES;
    const withHistory = (opts.propertyMode ?? (opts.profile ? 'value_and_history' : 'value_only')) == 'value_and_history';
    const mode = opts.formSubmissionMode ?? 'newest';
    const withMemberships = opts.showListMemberships || (opts.profile && opts.showListMemberships !== false);
    // Read at once: on PostgreSQL, within `reading`, one round trip for them all.
    const [historyRows, definitions, utks, submissions, memberships] = await Promise.all([
      withHistory && row.history_head ? db.all(q.historyOf, row.history_head) : [],
      withHistory ? properties.definitions(db, row.portal_id) : undefined,
      pre ? (pre.utks.get(row.vid) ?? []) : db.all(q.utksOf, row.vid),
      mode == 'none' ? [] : pre ? (pre.submissions.get(row.vid) ?? []) : db.all(q.submissionsOf, row.vid),
      withMemberships ? db.all(q.membershipsOf, row.vid) : undefined,
    ]);
    // Newest write first: a property's versions are the writes that changed it.
    const history = historyRows.map((h) => ({ ...h, changes: JSON.parse(h.changes) as Record<string, string> }));
    const out: ContactRecord['properties'] = {};
    for (const name of names) {
      // Own values only: a requested `toString` or a property named `constructor` is not inherited.
      if (!Object.hasOwn(props, name)) continue;
      out[name] = { value: props[name] };
      if (withHistory) {
        // Writes from before the property was (re-)created belong to a deleted namesake.
        const since = definitions!.get(name)?.createdAt ?? 0;
        const versions = history.filter((h) => Object.hasOwn(h.changes, name) && h.timestamp >= since);
        out[name].versions = versions.length
          ? versions.map((h, i) => ({
              value: h.changes[name],
              'source-type': h.source_type,
              'source-id': h.source_id,
              'source-label': null,
              timestamp: h.timestamp,
              selected: i == 0,
            }))
          : [{ value: props[name], 'source-type': 'CALCULATED', 'source-id': null, 'source-label': null, timestamp: row.updated_at, selected: true }];
      }
    }
    const picked = mode == 'all' ? submissions : mode == 'oldest' ? submissions.slice(-1) : submissions.slice(0, 1);
    // Built without object spreads, which cost a page of 100 contacts a good part of its time;
    // the keys in the order the API shows them.
    const identities: ContactRecord['identity-profiles'][number]['identities'] = row.email
      ? [{ type: 'EMAIL', value: row.email, timestamp: row.created_at, 'is-primary': true }]
      : [];
    for (const u of utks) identities.push({ type: 'LEAD_GUID', value: u.utk, timestamp: u.linked_at });
    // A list's page shows when each contact was added, first.
    const record = (opts.addedAt === undefined ? {} : { addedAt: opts.addedAt }) as ContactRecord;
    record.vid = row.vid;
    record['canonical-vid'] = row.vid;
    record['merged-vids'] = [];
    record['portal-id'] = row.portal_id;
    record['is-contact'] = true;
    record.properties = out;
    record['form-submissions'] = picked.map((s) => {
      const submission: ContactRecord['form-submissions'][number] = {
        'conversion-id': s.conversion_id,
        timestamp: s.timestamp,
        'form-id': s.form_guid,
        'portal-id': row.portal_id,
        'page-url': s.page_url ?? '',
        'page-title': s.page_title ?? '',
        title: s.title ?? '',
        'meta-data': [],
      };
      // What the visitor agreed to, with the texts shown (forms with legalConsentOptions).
      if (s.consent) submission['legal-consent'] = JSON.parse(s.consent);
      return submission;
    });
    record['identity-profiles'] = [{ vid: row.vid, 'saved-at-timestamp': row.updated_at, 'deleted-changed-timestamp': 0, identities }];
    record['merge-audits'] = [];
    if (memberships)
      record['list-memberships'] = memberships.map((m) => ({
        'static-list-id': m.list_id,
        'internal-list-id': m.internal_list_id,
        timestamp: m.added_at,
        vid: row.vid,
        'is-member': true,
      }));
    return record;
  }

  /** The contacts made per day and original source: a contact counts on the day it was made
   * under its original source, and moves when that is set later (its first visit, claimed). */
  const countMade = async (db: Queryable, portalId: number, props: Record<string, string>, createdAt: number, sign: 1 | -1 = 1) =>
    rollups?.add(db, portalId, METRICS.contacts, createdAt, props[ANALYTICS.source] ?? '', props[ANALYTICS.sourceData1] ?? '', sign);
  const batchWriter = contactBatchWriter(engine, COLUMNS, plan, countMade);

  /** A batch one item at a time: the path for what the batch writer leaves (an error naming its
   * item, an email changed, a contact made meanwhile by another transaction). */
  async function oneByOne(t: Transaction, portalId: number, items: BatchItem[]) {
    const written: ChangedContact[] = [];
    for (const [index, item] of items.entries()) {
      try {
        if (item.vid) {
          const row = await getToWrite(t, portalId, item.vid);
          if (!row) throw notFound(`contact ${item.vid} does not exist`);
          written.push(await write(t, portalId, row, item.properties, { type: 'API' }));
        } else if (item.email) {
          if (!isEmail(item.email)) throw badRequest(`Email address ${item.email} is invalid`);
          const writes = item.properties.some((w) => w.property == 'email') ? item.properties : [{ property: 'email', value: item.email }, ...item.properties];
          written.push((await writeByEmail(t, portalId, item.email, writes, { type: 'API' })).written);
        } else throw badRequest('each item needs a vid or an email');
      } catch (err) {
        if (!(err instanceof PlatformError) || isTransient(err)) throw err;
        throw badRequest(`item ${index}: ${err.message}`, {
          failureMessages: [{ index, error: { status: 'error', message: err.message } }],
          ...(err.extra.validationResults ? { validationResults: err.extra.validationResults } : {}),
        });
      }
    }
    return written;
  }

  const get = (db: Queryable, portalId: number, vid: number) => db.get(q.byVid, portalId, vid);
  const getToWrite = (db: Queryable, portalId: number, vid: number) => db.get(q.byVidToWrite, portalId, vid);
  /** Told when a write has sent the reads that lock the last contacts it changes (nothing locks
   * another contact after them), before it writes anything else: the lists take their lock and
   * read what the re-check at the write's end needs ahead (lists.ts readAhead). */
  const aboutToChangeListeners: ((db: Queryable, portalId: number) => void)[] = [];
  const aboutToChange = (db: Queryable, portalId: number) => aboutToChangeListeners.forEach((fn) => fn(db, portalId));
  /** Rows about to be written, each by the primary key, in vid order so that two writers lock
   * them in one order: on PostgreSQL in one statement that looks each up (a plain join over a JSON
   * array of vids was planned as a scan of the portal's contacts, which made the collector 40 %
   * slower), on SQLite a statement each. */
  async function getToWriteAll(db: Queryable, portalId: number, vids: number[]) {
    const sorted = [...new Set(vids)].sort((a, b) => a - b);
    if (oneStatementFor(engine, sorted.length)) return db.all(q.byVidsToWrite, JSON.stringify(sorted), portalId);
    const rows = await Promise.all(sorted.map((vid) => getToWrite(db, portalId, vid)));
    return rows.filter((r): r is ContactRow => r !== undefined);
  }

  /** Rows read ahead to be written (readToWriteAhead), by transaction and portal. */
  const rowsAhead = readsAhead<{ vids: Set<number>; rows: Promise<ContactRow[]> }>();

  /** The rows of `vids` about to be written: as read ahead in this transaction if all of them were
   * (once), or now. */
  function rowsToWrite(t: Transaction, portalId: number, vids: number[]) {
    const read = rowsAhead.get(t.txKey, portalId);
    rowsAhead.drop(t.txKey, portalId);
    if (read && vids.every((vid) => read.vids.has(vid))) return read.rows;
    return getToWriteAll(t, portalId, vids);
  }

  /** A page of rows plus one more, which tells `has-more`. */
  const paged = (rows: ContactRow[], count: number) => ({ rows: rows.slice(0, count), hasMore: rows.length > count });

  return {
    record,
    /** Records of a page of rows; `addedAt` gives each its sort timestamp. */
    async records(db: Queryable, rows: ContactRow[], opts: ReadOptions, addedAt?: (row: ContactRow) => number) {
      const pre = rows.length ? await prefetch(db, rows.map((r) => r.vid)) : undefined;
      return Promise.all(rows.map((r) => record(db, r, { ...opts, addedAt: addedAt?.(r) }, pre)));
    },
    get,
    /** The row, locked on PostgreSQL until the transaction `db` ends: for a write computed from it
     * (analytics counters), which another writer must not overwrite meanwhile. */
    getToWrite,
    getByEmail: (db: Queryable, portalId: number, email: string) => db.get(q.byEmail, portalId, email.toLowerCase()),
    /** The contact of `email`, read to be written in this transaction (another writer of it waits
     * on PostgreSQL). */
    getByEmailToWrite(db: Queryable, portalId: number, email: string) {
      const row = db.get(q.byEmailToWrite, portalId, email.toLowerCase());
      // Its callers (a form submission) write this contact and lock no other.
      aboutToChange(db, portalId);
      return row;
    },
    /** `fn` hears when a write has sent the reads that lock the last contacts it will change. */
    aboutToChange: (fn: (db: Queryable, portalId: number) => void) => void aboutToChangeListeners.push(fn),
    getByUtk: (db: Queryable, portalId: number, utk: string) => db.get(q.byUtk, portalId, utk),
    async require(db: Queryable, portalId: number, vid: number) {
      const row = await get(db, portalId, vid);
      if (!row) throw notFound('contact does not exist');
      return row;
    },

    create: (db: Queryable, portalId: number, writes: Write[], source: Source = { type: 'API' }) =>
      db.tx(async (t) => {
        const email = writes.find((w) => w.property == 'email')?.value;
        if (email && isEmail(email)) {
          const owner = await t.get(q.byEmail, portalId, email.toLowerCase());
          if (owner) throw await existsError(t, owner);
        }
        try {
          const written = await write(t, portalId, undefined, writes, source);
          await onChange(t, portalId, [written]);
          return written.vid;
        } catch (err) {
          throw err instanceof EmailTaken ? await existsError(t, err.owner) : err;
        }
      }),

    /** `allowReadOnly` makes every write a system one; `system` adds system writes to checked ones. */
    update: (db: Queryable, portalId: number, vid: number, writes: Write[], source?: Source, allowReadOnly?: boolean, system: Write[] = []) =>
      db.tx(async (t) => {
        const row = await getToWrite(t, portalId, vid);
        if (!row) throw notFound('resource not found');
        const src = source ?? { type: 'API' };
        const written = allowReadOnly ? await write(t, portalId, row, [], src, [...writes, ...system]) : await write(t, portalId, row, writes, src, system);
        await onChange(t, portalId, [written]);
      }),

    /** PostgreSQL: reads and locks the rows of `vids` for updateFromAll later in the transaction
     * `db`, and the dynamic lists after them (aboutToChange), now and without waiting: they go in
     * the write being sent (a collector bulk's, with its events), not in a round trip of their own.
     * Only for a write that changes nothing else of these contacts before then. */
    readToWriteAhead(db: Queryable, portalId: number, vids: number[]) {
      const tx = db.txKey;
      if (engine.kind != 'postgres' || !tx || !isTransaction(db) || !vids.length) return;
      const rows = getToWriteAll(db, portalId, vids);
      rows.catch(() => {}); // the transaction's next statement fails with it
      aboutToChange(db, portalId);
      rowsAhead.set(tx, portalId, { vids: new Set(vids), rows });
    },

    /** The platform's own writes (counters: every write is a system one) computed by each item's
     * `compute` from its contact's values as they are in this transaction: each read once,
     * written once, several contacts of the portal in one write (a collector bulk's) without a
     * round trip each on PostgreSQL. Nothing for a contact that is gone or that `compute` writes
     * nothing for. In the caller's transaction without a savepoint (`within`). */
    updateFromAll: (db: Queryable, portalId: number, items: { vid: number; compute: (properties: Record<string, string>) => Write[]; source: Source }[]) =>
      within(db, async (t) => {
        const read = rowsToWrite(t, portalId, items.map((i) => i.vid));
        // Its callers (the end of a collector bulk, a visitor's link) lock no other contact after it.
        aboutToChange(t, portalId);
        const rows = new Map((await read).map((r) => [r.vid, r]));
        const written = [];
        // The rows' updates sent at the end without waiting for them (pipelined on PostgreSQL).
        const updates: Update[] = [];
        const defer = (u: Update) => void updates.push(u);
        for (const { vid, compute, source } of items) {
          const row = rows.get(vid);
          const writes = row ? compute(JSON.parse(row.properties)) : [];
          if (writes.length) written.push(await write(t, portalId, row, [], source, writes, defer));
        }
        if (oneStatementFor(engine, updates.length))
          await t.send(q.updateAll, JSON.stringify(updates.map(([properties, updated_at, history_head, vid]) => ({ vid, properties, updated_at, history_head }))));
        else for (const u of updates) await t.send(q.update, ...u);
        if (written.length) await onChange(t, portalId, written);
      }),

    /** By email: the email in the path wins unless the body changes it. `known`: the contact of
     * `email` as the caller read it for writing in this transaction (getByEmailToWrite; null:
     * none), not read again; `submitted`: every form that contact has submitted, with this
     * transaction's (the change announced carries them unless another transaction made the
     * contact meanwhile). In the caller's transaction without a savepoint (`within`): its
     * callers (a request, a form submission, a collector bulk) fail as a whole when it fails. */
    upsertByEmail: (
      db: Queryable, portalId: number, email: string, writes: Write[], source: Source = { type: 'API' }, system: Write[] = [],
      { known, submitted }: { known?: ContactRow | null; submitted?: string[] } = {},
    ) =>
      within(db, async (t) => {
        if (!isEmail(email))
          throw badRequest('Property values were not valid', {
            validationResults: [{ isValid: false, message: `Email address ${email} is invalid`, error: 'INVALID_EMAIL', name: 'email' }],
          });
        const all = writes.some((w) => w.property == 'email') ? writes : [{ property: 'email', value: email }, ...writes];
        const { written, isNew } = await writeByEmail(t, portalId, email, all, source, system, known);
        await onChange(t, portalId, [submitted && (isNew || known) ? { ...written, submitted } : written]);
        return { vid: written.vid, isNew };
      }),

    /** All or nothing: any invalid item rejects the batch, naming it by index. At once when it
     * can (contact-batch.ts), else one item at a time. */
    batch: (db: Queryable, portalId: number, items: BatchItem[]) =>
      db.tx(async (t) => {
        const written = (await batchWriter.atOnce(t, portalId, items)) ?? (await oneByOne(t, portalId, items));
        await onChange(t, portalId, written);
      }),

    remove: (db: Queryable, portalId: number, vid: number) =>
      db.tx(async (t) => {
        if (!(await getToWrite(t, portalId, vid))) throw notFound('contact does not exist');
        // The lists' lock (shared) before the lists' rows below, as every writer of those rows takes
        // it: a list being changed meanwhile holds it alone and then writes its row (PostgreSQL;
        // the other way round each would wait for the other).
        aboutToChange(t, portalId);
        await t.run(q.remove, now(), portalId, vid);
        await t.run(q.removeUtks, vid);
        await t.run(q.listsLeft, now(), vid);
        await t.run(q.removeMemberships, vid);
        await onChange(t, portalId, [{ vid }]);
      }),

    /** Stores the link only: services/visitor-links.ts also counts the visitor's earlier events. */
    async linkUtk(db: Queryable, portalId: number, utk: string, vid: number) {
      // An upsert: nothing for it to fail on, so sent without waiting.
      await db.send(q.linkUtk, portalId, utk, vid, now());
    },

    /** Contacts by vid ascending after `vidOffset`. */
    page: async (db: Queryable, portalId: number, count: number, vidOffset = 0) => paged(await db.all(q.page, portalId, vidOffset, count + 1), count),

    /** Newest update first, before (timeOffset, vidOffset). */
    recent: async (db: Queryable, portalId: number, count: number, timeOffset = Number.MAX_SAFE_INTEGER, vidOffset = Number.MAX_SAFE_INTEGER) =>
      paged(await db.all(q.recent, portalId, timeOffset, timeOffset, vidOffset, count + 1), count),

    /** Newest creation first, before `vidOffset` (or created at `timeOffset` or earlier when only it is given). */
    async created(db: Queryable, portalId: number, count: number, timeOffset?: number, vidOffset?: number) {
      const time = vidOffset === undefined ? (timeOffset ?? Number.MAX_SAFE_INTEGER) : Number.MAX_SAFE_INTEGER;
      return paged(await db.all(q.created, portalId, vidOffset ?? Number.MAX_SAFE_INTEGER, time, count + 1), count);
    },

    /** Removes a (deleted) property's values from every contact of the portal. */
    forgetProperty: (db: Queryable, portalId: number, name: string) => db.run(q.forget, name, portalId, name),

    /** Substring matches; by vid unless `sort` names a property (`order` DESC by default, as the
     * legacy API; numbers and dates compare as numbers; contacts without a value come last). */
    async search(db: Queryable, portalId: number, text: string, count: number, offset: number, sort?: { property: string; order?: 'ASC' | 'DESC' }) {
      const like = `%${text.toLowerCase().replace(/[%_\\]/g, '\\$&')}%`;
      const field = (name: string) => jsonText('properties', `$.${name}`);
      const matches = [
        'email',
        `lower(${field('firstname')})`,
        `lower(${field('lastname')})`,
        `lower(coalesce(${field('firstname')}, '') || ' ' || coalesce(${field('lastname')}, ''))`,
        `lower(${field('company')})`,
        field('phone'),
      ];
      const where = `portal_id = ? AND deleted = 0 AND (${matches.map((m) => `${m} LIKE ? ESCAPE '\\'`).join(' OR ')})`;
      const params = [portalId, ...matches.map(() => like)];
      const order = await searchOrder(db, portalId, sort);
      const [total, rows] = await Promise.all([
        db.value(sql<Param[], { n: number }>(`SELECT count(*) AS n FROM contacts WHERE ${where}`), ...params),
        db.all(sql<Param[], ContactRow>(`SELECT ${COLUMNS} FROM contacts WHERE ${where} ORDER BY ${order} LIMIT ? OFFSET ?`), ...params, count, offset),
      ]);
      return { rows, total: Number(total) };
    },

    async statistics(db: Queryable, portalId: number) {
      const s = (await db.get(q.stats, portalId))!;
      return { contacts: s.n, lastNewContactAt: s.last };
    },
  };
}

export type ContactStore = ReturnType<typeof contactStore>;
