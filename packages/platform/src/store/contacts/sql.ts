/** Every statement of contacts, each written once: those both engines run as they are (with the
 * Dialect's fragments), and, as pairs side by side, the steps each engine does its own way. The
 * store, the batch writer and the records take them from contactSql(), made once per store. */
import {
  type Dialect,
  type Engine,
  type Param,
  perRow,
  type Query,
  type Queryable,
  sql,
  updateRows,
} from '../../db/engine';
import { eachOrAll, type Pair, pick } from '../../db/statements';
import type { ContactRow, Source } from './plan';

const CONTACT_COLUMNS = ['vid', 'portal_id', 'email', 'properties', 'created_at', 'updated_at', 'history_head'];

/** A ContactRow's columns for a SELECT, each prefixed with `alias.` when the query joins. */
export const contactColumns = (alias?: string) => CONTACT_COLUMNS.map((c) => (alias ? `${alias}.${c}` : c)).join(', ');
const COLUMNS = contactColumns();

/** The one INSERT of contacts: `columns` from `rows` (a VALUES list or a SELECT). A row whose email
 * a live contact has is left out, without an error (its insert answers no row, no rowid); when
 * another transaction is making that contact, the unique index waits for it first. */
const insertContacts = (columns: string, rows: string, returning = '') =>
  `INSERT INTO contacts (${columns}) ${rows}
   ON CONFLICT (portal_id, email) WHERE deleted = 0 AND email IS NOT NULL DO NOTHING${returning}`;

const NUMBERED = 'vid, portal_id, email, properties, created_at, updated_at, history_head';

/** The one INSERT of a history entry, its seq answered (Queryable.insert). */
const insertHistory = (d: Dialect) =>
  sql<[number, number | null, number, string, string | null, string]>(
    `INSERT INTO contact_history (vid, prev, timestamp, source_type, source_id, changes)
     VALUES (?, ?, ?, ?, ?, ?)${d.returningKey('seq')}`,
  );

export type Utk = { utk: string; linked_at: number };
export type Submission = {
  conversion_id: string;
  form_guid: string;
  timestamp: number;
  page_url: string | null;
  page_title: string | null;
  title: string | null;
  consent: string | null;
};

/** The statements both engines run as they are. */
function statements(d: Dialect) {
  const submissions = (where: string) =>
    `SELECT s.vid, s.conversion_id, s.form_guid, s.timestamp, s.page_url, s.page_title,
            ${d.jsonText('f.definition', '$.name')} AS title, c.consent
     FROM form_submissions s LEFT JOIN forms f ON f.guid = s.form_guid
     LEFT JOIN form_consents c ON c.conversion_id = s.conversion_id
     WHERE ${where} ORDER BY s.timestamp DESC`;
  return {
    byVid: sql<[number, number], ContactRow>(
      `SELECT ${COLUMNS} FROM contacts WHERE portal_id = ? AND vid = ? AND deleted = 0`,
    ),
    byEmail: sql<[number, string], ContactRow>(
      `SELECT ${COLUMNS} FROM contacts WHERE portal_id = ? AND email = ? AND deleted = 0`,
    ),
    // A row about to be written from what was read (another writer of it waits on PostgreSQL).
    byVidToWrite: sql<[number, number], ContactRow>(
      `SELECT ${COLUMNS} FROM contacts WHERE portal_id = ? AND vid = ? AND deleted = 0${d.forUpdate}`,
    ),
    byEmailToWrite: sql<[number, string], ContactRow>(
      `SELECT ${COLUMNS} FROM contacts WHERE portal_id = ? AND email = ? AND deleted = 0${d.forUpdate}`,
    ),
    byUtk: sql<[number, string], ContactRow>(
      `SELECT ${contactColumns('c')} FROM utks u JOIN contacts c ON c.vid = u.vid
       WHERE u.portal_id = ? AND u.utk = ? AND c.deleted = 0`,
    ),
    // Two updates: setting email (even to its old value) rewrites the contact's entry in the
    // email index, one more page written per update of a random contact.
    update: sql<[string, number, number | null, number]>(
      'UPDATE contacts SET properties = ?, updated_at = ?, history_head = ? WHERE vid = ?',
    ),
    updateEmail: sql<[string | null, string, number, number | null, number]>(
      'UPDATE contacts SET email = ?, properties = ?, updated_at = ?, history_head = ? WHERE vid = ?',
    ),
    history: insertHistory(d),
    // A contact numbered beforehand (nextVids), written with its history's head.
    numbered: sql<[number, number, string | null, string, number, number, number | null]>(
      insertContacts(NUMBERED, 'VALUES (?, ?, ?, ?, ?, ?, ?)'),
    ),
    // The next vids, taken for new contacts written with them (after their history entries).
    nextVids: sql<[number], { id: number }>(d.nextIds('contacts', 'vid', '?')),
    remove: sql<[number, number, number]>(
      'UPDATE contacts SET deleted = 1, updated_at = ? WHERE portal_id = ? AND vid = ?',
    ),
    removeUtks: sql<[number]>('DELETE FROM utks WHERE vid = ?'),
    removeMemberships: sql<[number]>('DELETE FROM list_members WHERE vid = ?'),
    // The lists it leaves changed size now (an addition is dated by the member's row; see lists/sql.ts).
    listsLeft: sql<[number, number]>(
      'UPDATE lists SET size_changed_at = ? WHERE list_id IN (SELECT list_id FROM list_members WHERE vid = ?)',
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
      `SELECT ${COLUMNS} FROM contacts
       WHERE portal_id = ? AND deleted = 0 AND vid < ? AND created_at <= ? ORDER BY vid DESC LIMIT ?`,
    ),
    // A deleted property's values go from every contact; updated_at stays (no one wrote them).
    forget: sql<[string, number, string]>(
      `UPDATE contacts SET properties = ${d.jsonRemoveKey('properties', '?')}
       WHERE portal_id = ? AND ${d.jsonHasKey('properties', '?')}`,
    ),
    stats: sql<[number], { n: number; last: number | null }>(
      'SELECT count(*) AS n, max(created_at) AS last FROM contacts WHERE portal_id = ? AND deleted = 0',
    ),
    linkUtk: sql<[number, string, number, number]>(
      `INSERT INTO utks (portal_id, utk, vid, linked_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (portal_id, utk) DO UPDATE SET vid = excluded.vid, linked_at = excluded.linked_at`,
    ),
    utksOf: sql<[number], Utk>('SELECT utk, linked_at FROM utks WHERE vid = ? ORDER BY linked_at'),
    // The chain from the contact's newest write back to its first.
    historyOf: sql<[number], { changes: string; source_type: string; source_id: string | null; timestamp: number }>(
      `WITH RECURSIVE chain AS (
         SELECT * FROM contact_history WHERE seq = ?
         UNION ALL SELECT h.* FROM contact_history h JOIN chain c ON h.seq = c.prev
       ) SELECT changes, source_type, source_id, timestamp FROM chain ORDER BY seq DESC`,
    ),
    submissionsOf: sql<[number], Submission & { vid: number }>(submissions('s.vid = ?')),
    membershipsOf: sql<[number], { list_id: number; internal_list_id: number; added_at: number }>(
      `SELECT m.list_id, l.internal_list_id, m.added_at FROM list_members m JOIN lists l ON l.list_id = m.list_id
       WHERE m.vid = ? ORDER BY m.list_id`,
    ),
    /** Identities and submissions of a page of contacts, by its size (a page of 100 would
     * otherwise take 200 queries). */
    inPage: inPageStatements((marks) => submissions(`s.vid IN (${marks})`)),
    /** A search's count and rows (a page: LIMIT, OFFSET): contacts of the portal with a LIKE
     * pattern (a parameter per field, `fields` of them) in one of the fields people search by;
     * by vid unless `sort` names a property (`name`: letters, digits and _, properties.create, so
     * the JSON path needs no quoting), compared as a number when `numeric`, else as text ignoring
     * case, contacts without a value last. */
    search(sort?: { name: string; numeric: boolean; dir: 'ASC' | 'DESC' }) {
      const field = (name: string) => d.jsonText('properties', `$.${name}`);
      const matches = [
        'email',
        `lower(${field('firstname')})`,
        `lower(${field('lastname')})`,
        `lower(coalesce(${field('firstname')}, '') || ' ' || coalesce(${field('lastname')}, ''))`,
        `lower(${field('company')})`,
        field('phone'),
      ];
      const where = `portal_id = ? AND deleted = 0 AND (${matches.map((m) => `${m} LIKE ? ESCAPE '\\'`).join(' OR ')})`;
      const key = sort && (sort.numeric ? d.textNumber(field(sort.name)) : `lower(${field(sort.name)})`);
      const order = sort ? `${key} ${sort.dir} NULLS LAST, vid ${sort.dir}` : 'vid';
      return {
        fields: matches.length,
        count: sql<Param[], { n: number }>(`SELECT count(*) AS n FROM contacts WHERE ${where}`),
        rows: sql<Param[], ContactRow>(
          `SELECT ${COLUMNS} FROM contacts WHERE ${where} ORDER BY ${order} LIMIT ? OFFSET ?`,
        ),
      };
    },
  };
}

function inPageStatements(submissions: (marks: string) => string) {
  const byCount = new Map<
    number,
    { utks: Query<number[], Utk & { vid: number }>; submissions: Query<number[], Submission & { vid: number }> }
  >();
  return (count: number) => {
    let s = byCount.get(count);
    if (!s) {
      const marks = Array.from({ length: count }, () => '?').join(',');
      s = {
        utks: sql(`SELECT vid, utk, linked_at FROM utks WHERE vid IN (${marks}) ORDER BY linked_at`),
        submissions: sql(submissions(marks)),
      };
      byCount.set(count, s);
    }
    return s;
  };
}

/** A new contact, with its first history entry when it has `changes`. */
export interface NewContact {
  portalId: number;
  email: string | null;
  properties: string;
  t: number;
  source: Source;
  changes?: string;
}

/** New contacts whose vids were taken beforehand (nextVids), written with their history's head. */
export interface NumberedContact {
  vid: number;
  email: string | null;
  properties: string;
  created_at: number;
  updated_at: number;
  head: number | null;
}

/** A history entry of `vid` after its entry `prev` (the batch's, whose source has no id). */
export interface HistoryEntry {
  vid: number;
  prev: number | null;
  t: number;
  changes: string;
}

/** An update of a row's properties (not its email: `updateEmail`). */
export interface RowUpdate {
  vid: number;
  properties: string;
  updated_at: number;
  history_head: number | null;
}

/** The steps each engine does its own way. */
export interface ContactWays {
  /** Stores a new contact; its vid, or undefined when its email is taken (by a contact another
   * transaction made meanwhile): then nothing was written. */
  insertContact: (db: Queryable, c: NewContact) => Promise<number | undefined>;
  /** Stores contacts numbered beforehand; how many were made (fewer: an email was taken). */
  insertNumbered: (db: Queryable, rows: readonly NumberedContact[], portalId: number) => Promise<number>;
  /** Stores history entries; the seq each was given, by vid. */
  insertHistories: (
    db: Queryable,
    rows: readonly HistoryEntry[],
    source: Source['type'],
  ) => Promise<{ vid: number; seq: number }[]>;
  /** Rows to write, of `vids` (ascending: two writers lock them in one order), each by the
   * primary key; those that exist. */
  rowsToWrite: (db: Queryable, vids: readonly number[], portalId: number) => Promise<ContactRow[]>;
  /** The contacts of `emails` that exist (locked, in vid order, on PostgreSQL when several). */
  rowsByEmails: (db: Queryable, emails: readonly string[], portalId: number) => Promise<ContactRow[]>;
  /** Updates rows, without waiting for the answer (`send`: nothing for it to fail on). */
  updateRows: (db: Queryable, rows: readonly RowUpdate[]) => Promise<void>;
}

/** The engines' ways, side by side. */
function ways(d: Dialect, q: ReturnType<typeof statements>): { [K in keyof ContactWays]: Pair<ContactWays[K]> } {
  const sqlite = {
    // The contact with the seq its first history entry will have, the largest plus one (SQLite's
    // one writer runs this transaction alone), so that the entry follows with it, at that seq,
    // and the contact is not updated again. No RETURNING: the engine reads the rowid.
    insertHeaded: sql<[number, string | null, string, number, number, string | null]>(
      insertContacts(
        'portal_id, email, properties, created_at, updated_at, history_head',
        `VALUES (?, ?, ?, ?, ?, CASE WHEN ? IS NOT NULL THEN (SELECT coalesce(max(seq), 0) + 1 FROM contact_history) END)`,
      ),
    ),
    firstHistory: sql<[number, string, string | null, string, number]>(
      `INSERT INTO contact_history (seq, vid, prev, timestamp, source_type, source_id, changes)
       SELECT history_head, vid, NULL, ?, ?, ?, ? FROM contacts WHERE vid = ?`,
    ),
  };
  const postgres = {
    // The contact and its first history entry in one statement (one round trip, not three): the
    // entry's seq drawn first, so that the contact is inserted with its head.
    insertWithHistory: sql<
      [string | null, number, string | null, string, number, number, number, string, string | null, string | null],
      { vid: number }
    >(
      `WITH s AS (SELECT CASE WHEN ?::text IS NOT NULL THEN nextval(pg_get_serial_sequence('contact_history', 'seq')) END AS seq),
       c AS (${insertContacts(
         'portal_id, email, properties, created_at, updated_at, history_head',
         'SELECT ?, ?, ?, ?, ?, seq FROM s',
         ' RETURNING vid, history_head',
       )}),
       h AS (INSERT INTO contact_history (seq, vid, prev, timestamp, source_type, source_id, changes)
             SELECT history_head, vid, NULL, ?, ?, ?, ? FROM c WHERE history_head IS NOT NULL)
       SELECT vid FROM c`,
    ),
    // In email order: two batches making some of the same contacts at once wait for each other
    // on the first email they share instead of each holding one the other needs (a deadlock).
    insertNumbered: sql<[number, string], { vid: number }>(
      insertContacts(
        NUMBERED,
        `SELECT vid, ?, email, properties, created_at, updated_at, head
         FROM (${d.jsonRows('?', { vid: 'integer', email: 'text', properties: 'text', created_at: 'integer', updated_at: 'integer', head: 'integer' })}) AS x
         WHERE true ORDER BY email`,
        ' RETURNING vid',
      ),
    ),
    insertHistories: sql<[string, string], { seq: number; vid: number }>(
      `INSERT INTO contact_history (vid, prev, timestamp, source_type, source_id, changes)
       SELECT vid, prev, t, ?, NULL, changes
       FROM (${d.jsonRows('?', { vid: 'integer', prev: 'integer', t: 'integer', changes: 'text' })}) AS x
       WHERE true ORDER BY vid RETURNING seq, vid`,
    ),
    // Each row by the primary key, locked in the array's order (perRow).
    rowsToWrite: sql<[string, number], ContactRow>(
      `SELECT x.* ${perRow(
        d.jsonIds('?'),
        `SELECT ${COLUMNS} FROM contacts WHERE vid = r.id AND portal_id = ? AND deleted = 0 LIMIT 1${d.forUpdate}`,
      )}`,
    ),
    // Each email looked up on its own through the email index, not as `email IN (…)`, which
    // SQLite at least would answer by scanning the portal's contacts (its partial index is not
    // used for a list).
    rowsByEmails: sql<[number, string], ContactRow>(
      `SELECT ${COLUMNS} FROM contacts WHERE vid IN (
         SELECT (SELECT c.vid FROM contacts c WHERE c.portal_id = ? AND c.email = j.email AND c.deleted = 0)
         FROM (${d.jsonRows('?', { email: 'text' })}) AS j
       ) ORDER BY vid${d.forUpdate}`,
    ),
    updateRows: sql<[string]>(
      updateRows(
        'contacts',
        'vid',
        d.jsonRows('?', { vid: 'integer', properties: 'text', updated_at: 'integer', history_head: 'integer' }),
        ['properties', 'updated_at', 'history_head'],
      ),
    ),
  };
  const existing = <T>(rows: (T | undefined)[]) => rows.filter((r): r is T => r !== undefined);
  return {
    insertContact: {
      async sqlite(db, c) {
        const vid = await db.insert(
          sqlite.insertHeaded,
          c.portalId,
          c.email,
          c.properties,
          c.t,
          c.t,
          c.changes ?? null,
        );
        if (vid !== undefined && c.changes !== undefined)
          await db.send(sqlite.firstHistory, c.t, c.source.type, c.source.id ?? null, c.changes, vid);
        return vid;
      },
      postgres: (db, c) =>
        db.insert(
          postgres.insertWithHistory,
          c.changes ?? null,
          c.portalId,
          c.email,
          c.properties,
          c.t,
          c.t,
          c.t,
          c.source.type,
          c.source.id ?? null,
          c.changes ?? null,
        ),
    },
    insertNumbered: eachOrAll<ContactWays['insertNumbered']>(
      async (db, rows, portalId) => {
        let made = 0;
        for (const r of rows)
          made += await db.run(q.numbered, r.vid, portalId, r.email, r.properties, r.created_at, r.updated_at, r.head);
        return made;
      },
      async (db, rows, portalId) => (await db.all(postgres.insertNumbered, portalId, JSON.stringify(rows))).length,
    ),
    insertHistories: eachOrAll<ContactWays['insertHistories']>(
      async (db, rows, source) => {
        const made = [];
        for (const r of rows)
          made.push({ vid: r.vid, seq: (await db.insert(q.history, r.vid, r.prev, r.t, source, null, r.changes))! });
        return made;
      },
      (db, rows, source) => db.all(postgres.insertHistories, source, JSON.stringify(rows)),
    ),
    rowsToWrite: eachOrAll<ContactWays['rowsToWrite']>(
      async (db, vids, portalId) =>
        existing(await Promise.all(vids.map((vid) => db.get(q.byVidToWrite, portalId, vid)))),
      (db, vids, portalId) => db.all(postgres.rowsToWrite, JSON.stringify(vids), portalId),
    ),
    rowsByEmails: eachOrAll<ContactWays['rowsByEmails']>(
      async (db, emails, portalId) =>
        existing(await Promise.all(emails.map((email) => db.get(q.byEmail, portalId, email)))),
      (db, emails, portalId) =>
        db.all(postgres.rowsByEmails, portalId, JSON.stringify(emails.map((email) => ({ email })))),
    ),
    updateRows: eachOrAll<ContactWays['updateRows']>(
      async (db, rows) => {
        for (const r of rows) await db.send(q.update, r.properties, r.updated_at, r.history_head, r.vid);
      },
      (db, rows) => db.send(postgres.updateRows, JSON.stringify(rows)),
    ),
  };
}

/** The statements of contacts for `engine` (`q`), and its ways (`ways`). */
export function contactSql(engine: Pick<Engine, 'kind' | 'dialect'>) {
  const q = statements(engine.dialect);
  return { q, ways: pick(engine, ways(engine.dialect, q)) };
}

export type ContactSql = ReturnType<typeof contactSql>;
