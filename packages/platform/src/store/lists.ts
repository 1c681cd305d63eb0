/** Contact lists. Static lists hold the contacts added to them; dynamic lists hold the portal's
 * contacts matching their filters, re-evaluated when the list changes, on refresh, and for the
 * changed contacts on every contact write. A membership row keeps the time the contact joined
 * (`addedAt`) for as long as the contact stays.
 *
 * Several processes may write at once (PostgreSQL). What keeps memberships right is one lock per
 * portal's lists (`Transaction.lock`), taken before anything is read: a transaction that changes
 * memberships by the lists as they are (a contact write's re-check, a static list's add or
 * remove) holds it shared; one that changes a list or evaluates it in full (create, update,
 * remove, refresh, a deleted property) holds it alone. So a refresh never decides from contacts
 * that a re-check is deciding about meanwhile (it would put back a contact that just left), a new
 * list sees the contacts being written as it is made, two refreshes of one list run one after the
 * other, and no member is added to a list being deleted. Evaluation is in memory (the rules are
 * list-filters.ts, the same on both engines); only the membership changes go back. */
import type { schemas } from '@svc/api';
import type { z } from 'zod';
import { type Engine, isTransaction, type Queryable, readsAhead, type Transaction, sql } from '../db/engine';
import { pair, pick } from '../db/statements';
import { badRequest, notFound } from '../domain/errors';
import {
  contactColumns,
  type ChangedContact,
  type ContactRow,
  type ContactsChanged,
  type ContactStore,
} from './contacts';
import { formsNamed, matches, normaliseFilters, propertiesRead, type ListFilters, type Subject } from './list-filters';

interface ListRow {
  list_id: number;
  portal_id: number;
  internal_list_id: number;
  name: string;
  dynamic: number;
  filters: string;
  created_at: number;
  updated_at: number;
  processed_at: number;
  /** When a member last left (additions: `last_added`). */
  size_changed_at: number;
  size: number;
  last_added: number | null;
}

export interface ListWrite {
  name?: string;
  dynamic?: boolean;
  filters?: ListFilters;
}

export type ListRecord = z.input<typeof schemas.contactList>;
export type MembershipChange = z.output<typeof schemas.membershipChange>;
export type MemberRow = ContactRow & { added_at: number };

/** A list's last size change is the later of the last removal (`size_changed_at`) and its newest
 * member's arrival: an addition writes nothing on the list's row. On PostgreSQL every form
 * submission that adds a new contact to a list would otherwise update that one row, and each
 * transaction would wait for the one before it to commit (about 250 a second at most). */
const SELECT_LIST = `SELECT l.*, (SELECT count(*) FROM list_members m WHERE m.list_id = l.list_id) AS size,
  (SELECT max(added_at) FROM list_members m WHERE m.list_id = l.list_id) AS last_added FROM lists l`;
const SELECT_MEMBER = `SELECT ${contactColumns('c')}, m.added_at
  FROM list_members m JOIN contacts c ON c.vid = m.vid WHERE m.list_id = ? AND c.deleted = 0`;
/** Contacts read per step of a full evaluation, and members changed per statement (bounds memory
 * and statement size on large portals). */
const CHUNK = 1000;

/** Every method takes where it runs (`db`: the engine, or a request's transaction) first. */
export function listStore(
  engine: Engine,
  contacts: ContactStore,
  now: () => number,
  onContactsChanged: (fn: ContactsChanged) => void,
) {
  const { jsonIds, inJsonArray, returningKey } = engine.dialect;
  const q = {
    formOfPortal: sql<[number, string], { one: number }>('SELECT 1 AS one FROM forms WHERE portal_id = ? AND guid = ?'),
    byId: sql<[number, number], ListRow>(`${SELECT_LIST} WHERE l.portal_id = ? AND l.list_id = ?`),
    byIds: sql<[number, string], ListRow>(
      `${SELECT_LIST} WHERE l.portal_id = ? AND ${inJsonArray('l.list_id', '?', 'integer')}`,
    ),
    // `dynamic IN (?, ?)`: (0, 1) for all lists, (0, 0) static only, (1, 1) dynamic only.
    page: sql<[number, number, number, number, number], ListRow>(
      `${SELECT_LIST} WHERE l.portal_id = ? AND l.dynamic IN (?, ?) ORDER BY l.list_id LIMIT ? OFFSET ?`,
    ),
    dynamicOf: sql<[number], Pick<ListRow, 'list_id' | 'name' | 'filters'>>(
      'SELECT list_id, name, filters FROM lists WHERE portal_id = ? AND dynamic = 1 ORDER BY list_id',
    ),
    // Numbered by renumber() before the transaction ends.
    insert: sql<[number, string, number, string, number, number, number]>(
      `INSERT INTO lists (portal_id, internal_list_id, name, dynamic, filters, created_at, updated_at, processed_at) VALUES (?, 0, ?, ?, ?, ?, ?, ?)${returningKey('list_id')}`,
    ),
    update: sql<[string, number, string, number, number]>(
      'UPDATE lists SET name = ?, dynamic = ?, filters = ?, updated_at = ? WHERE list_id = ?',
    ),
    renumber: sql<[number]>(
      'UPDATE lists SET internal_list_id = (SELECT coalesce(max(internal_list_id), 0) + 1 FROM lists) WHERE list_id = ?',
    ),
    remove: sql<[number]>('DELETE FROM lists WHERE list_id = ?'),
    processed: sql<[number, number]>('UPDATE lists SET processed_at = ? WHERE list_id = ?'),
    /** A member left (see SELECT_LIST). */
    sizeChanged: sql<[number, number]>('UPDATE lists SET size_changed_at = ? WHERE list_id = ?'),
    // In vid order: two transactions adding the same contacts take their row locks in one order.
    addMembers: sql<[number, number, string], { vid: number }>(
      `INSERT INTO list_members (list_id, vid, added_at) SELECT ?, id, ? FROM (${jsonIds('?')}) ids ORDER BY id ON CONFLICT DO NOTHING RETURNING vid`,
    ),
    removeMembers: sql<[number, string], { vid: number }>(
      `DELETE FROM list_members WHERE list_id = ? AND ${inJsonArray('vid', '?', 'integer')} RETURNING vid`,
    ),
    addMember: sql<[number, number, number]>(
      'INSERT INTO list_members (list_id, vid, added_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
    ),
    removeMember: sql<[number, number]>('DELETE FROM list_members WHERE list_id = ? AND vid = ?'),
    removeAll: sql<[number]>('DELETE FROM list_members WHERE list_id = ?'),
    memberVids: sql<[number], { vid: number }>('SELECT vid FROM list_members WHERE list_id = ?'),
    members: sql<[number, number, number], MemberRow>(`${SELECT_MEMBER} AND m.vid > ? ORDER BY m.vid LIMIT ?`),
    recentMembers: sql<[number, number, number, number, number], MemberRow>(
      `${SELECT_MEMBER} AND (m.added_at < ? OR (m.added_at = ? AND m.vid < ?)) ORDER BY m.added_at DESC, m.vid DESC LIMIT ?`,
    ),
    contactsAfter: sql<[number, number, number], Pick<ContactRow, 'vid' | 'properties'>>(
      'SELECT vid, properties FROM contacts WHERE portal_id = ? AND deleted = 0 AND vid > ? ORDER BY vid LIMIT ?',
    ),
    submitted: sql<[number, string, string], { vid: number; form_guid: string }>(
      `SELECT vid, form_guid FROM form_submissions WHERE portal_id = ? AND ${inJsonArray('vid', '?', 'integer')} AND ${inJsonArray('form_guid', '?', 'text')}`,
    ),
    submittedBy: sql<[number, number], { vid: number; form_guid: string }>(
      'SELECT vid, form_guid FROM form_submissions WHERE portal_id = ? AND vid = ?',
    ),
  };

  /** Dynamic lists' filters by their text, parsed once rather than on every contact write (a form
   * submission's re-check felt it); dropped whole when it grows past what lists there are. */
  const parsed = new Map<string, { filters: ListFilters; forms: string[]; properties: Set<string> }>();
  function filtersOf(text: string) {
    let found = parsed.get(text);
    if (!found) {
      if (parsed.size >= 1000) parsed.clear();
      const filters: ListFilters = JSON.parse(text);
      parsed.set(text, (found = { filters, forms: formsNamed(filters), properties: propertiesRead(filters) }));
    }
    return found;
  }

  /** Dynamic lists read ahead (readAhead), by transaction and portal. */
  const ahead = readsAhead<Promise<DynamicRow[]>>();
  type DynamicRow = Pick<ListRow, 'list_id' | 'name' | 'filters'>;

  /** Takes the portal's list lock (see the top of this file) in the transaction `t`. Taken alone,
   * the lists may change in this transaction: what was read ahead of it is dropped. */
  const lock = (t: Transaction, portalId: number, mode: 'shared' | 'exclusive') => {
    if (mode == 'exclusive') ahead.drop(t.txKey, portalId);
    return t.lock(`lists:${portalId}`, mode);
  };

  /** Takes the portal's list lock (shared) and reads its dynamic lists in the transaction `db`
   * now, without waiting, for the re-check its contact write will end with (recheck): on
   * PostgreSQL they go in the write being sent, and the re-check waits for no round trip of its
   * own; SQLite's reads are function calls, with nothing to send them with. Called right after the
   * reads that lock the contacts to write, so that the list lock comes after theirs, as the
   * re-check takes it. */
  const { readAhead } = pick(engine, {
    readAhead: pair<(db: Queryable, portalId: number) => void>({
      sqlite: () => {},
      postgres(db, portalId) {
        const tx = db.txKey;
        if (!tx || !isTransaction(db) || ahead.get(tx, portalId)) return;
        void lock(db, portalId, 'shared');
        const rows = db.all(q.dynamicOf, portalId);
        rows.catch(() => {}); // the transaction's next statement fails with it
        ahead.set(tx, portalId, rows);
      },
    }),
  });

  /** The portal's dynamic lists, under its list lock (shared): as read ahead, or now. */
  async function dynamicLists(db: Transaction, portalId: number) {
    const read = ahead.get(db.txKey, portalId);
    if (read) return read;
    await lock(db, portalId, 'shared');
    return db.all(q.dynamicOf, portalId);
  }

  function record(row: ListRow): ListRecord {
    return {
      listId: row.list_id,
      internalListId: row.internal_list_id,
      portalId: row.portal_id,
      name: row.name,
      dynamic: !!row.dynamic,
      listType: row.dynamic ? 'DYNAMIC' : 'STATIC',
      archived: false,
      deleteable: true,
      deleted: false,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      filters: JSON.parse(row.filters),
      // Evaluation is part of the write: a list is always processed by the time anyone reads it.
      metaData: {
        processing: 'DONE',
        size: row.size,
        error: '',
        lastProcessingStateChangeAt: row.processed_at,
        lastSizeChangeAt: Math.max(Number(row.size_changed_at), Number(row.last_added ?? 0)),
        listReferencesCount: null,
      },
    };
  }

  async function require(db: Queryable, portalId: number, listId: number) {
    const row = await db.get(q.byId, portalId, listId);
    if (!row) throw notFound(`Couldn't find a List with the given id '${listId}'.`);
    return row;
  }

  /** Which of `vids` submitted which of `forms` (one query for them all, none when no filter names
   * a form). */
  function submitted(db: Queryable, portalId: number, vids: number[], forms: string[]) {
    if (!forms.length || !vids.length) return Promise.resolve([]);
    // One contact (a single write's re-check) by its index alone: several times cheaper on SQLite.
    return vids.length == 1
      ? db.all(q.submittedBy, portalId, vids[0])
      : db.all(q.submitted, portalId, JSON.stringify(vids), JSON.stringify(forms));
  }

  /** The Subject of each contact, given what `submitted` found. */
  function subjects(rows: { vid: number; form_guid: string }[]) {
    const done = new Set(rows.map((r) => `${r.vid} ${r.form_guid}`));
    return (vid: number, properties: Record<string, string>): Subject => ({
      properties,
      hasSubmitted: (guid) => done.has(`${vid} ${guid}`),
    });
  }

  /** Puts the contacts in (or out of) the list; a member that stays keeps its addedAt. Answers the
   * vids that changed. */
  async function setMembers(db: Queryable, listId: number, vids: number[], member: boolean, at: number) {
    // One contact (a single write's re-check, a workflow step) by its key: on SQLite a statement
    // over json_each costs several times more, which a form submission would feel.
    if (vids.length == 1) {
      const changes = member
        ? await db.run(q.addMember, listId, vids[0], at)
        : await db.run(q.removeMember, listId, vids[0]);
      return changes ? vids : [];
    }
    const changed: number[] = [];
    for (let i = 0; i < vids.length; i += CHUNK) {
      const ids = JSON.stringify(vids.slice(i, i + CHUNK));
      const rows = member ? await db.all(q.addMembers, listId, at, ids) : await db.all(q.removeMembers, listId, ids);
      for (const r of rows) changed.push(r.vid);
    }
    return changed;
  }

  /** Full evaluation of a dynamic list over all the portal's contacts, in the transaction `t` that
   * holds the portal's list lock alone. */
  async function evaluate(t: Queryable, list: Pick<ListRow, 'list_id' | 'portal_id' | 'filters'>) {
    const filters: ListFilters = JSON.parse(list.filters);
    const forms = formsNamed(filters);
    const keep = new Set<number>();
    for (let after = 0; ;) {
      const chunk = await t.all(q.contactsAfter, list.portal_id, after, CHUNK);
      const subject = subjects(
        await submitted(
          t,
          list.portal_id,
          chunk.map((c) => c.vid),
          forms,
        ),
      );
      for (const c of chunk) if (matches(filters, subject(c.vid, JSON.parse(c.properties)))) keep.add(c.vid);
      if (chunk.length < CHUNK) break;
      after = chunk[CHUNK - 1].vid;
    }
    const members = new Set((await t.all(q.memberVids, list.list_id)).map((m) => m.vid));
    const at = now();
    const left = await setMembers(
      t,
      list.list_id,
      [...members].filter((vid) => !keep.has(vid)),
      false,
      at,
    );
    await setMembers(
      t,
      list.list_id,
      [...keep].filter((vid) => !members.has(vid)),
      true,
      at,
    );
    await t.run(q.processed, at, list.list_id);
    if (left.length) await t.run(q.sizeChanged, at, list.list_id);
  }

  /** Re-checks only the changed contacts against the portal's dynamic lists, with the properties
   * they were written with (a contact without them was deleted: it leaves). A list that reads
   * none of the properties a write changed (propertiesRead: a form filter reads what a form
   * submission changes) keeps the contact where it was (an analytics counter's update moves it
   * nowhere). Runs in the writing transaction `db`. */
  async function recheck(db: Transaction, portalId: number, changed: ChangedContact[]) {
    const all = (await dynamicLists(db, portalId)).map((l) => ({ id: l.list_id, ...filtersOf(l.filters) }));
    // A contact written twice counts with its last write (as gathered: what either changed).
    const last = new Map(changed.map((c) => [c.vid, c]));
    // A new contact may match by what it lacks (NOT_HAS_PROPERTY): every list checks it.
    const moves = (list: (typeof all)[number], c: ChangedContact) =>
      !c.properties || !c.names || c.isNew || c.names.some((n) => list.properties.has(n));
    const lists = all.filter((list) => [...last.values()].some((c) => moves(list, c)));
    if (!lists.length) return;
    // What the writes know of their contacts' submissions is not read again.
    const known = [...last.values()].every((c) => c.submitted);
    const subject = subjects(
      known
        ? [...last.values()].flatMap((c) => c.submitted!.map((form_guid) => ({ vid: c.vid, form_guid })))
        : await submitted(
            db,
            portalId,
            [...last.keys()],
            lists.flatMap((l) => l.forms),
          ),
    );
    const at = now();
    for (const list of lists) {
      const [inside, outside]: number[][] = [[], []];
      for (const [vid, c] of last) {
        if (!moves(list, c)) continue;
        if (c.properties && matches(list.filters, subject(vid, c.properties))) inside.push(vid);
        // One made by the write is in no list yet.
        else if (!c.isNew) outside.push(vid);
      }
      // Who joined is not needed here: one contact's row is sent without waiting (pipelined on
      // PostgreSQL; it cannot fail: the list is held by the lock, the contact is being written).
      if (inside.length == 1) await db.send(q.addMember, list.id, inside[0], at);
      else if (inside.length) await setMembers(db, list.id, inside, true, at);
      if (outside.length && (await setMembers(db, list.id, outside, false, at)).length)
        await db.run(q.sizeChanged, at, list.id);
    }
  }
  onContactsChanged(recheck);
  contacts.aboutToChange(readAhead);

  /** Adds or removes contacts of a static list, by vid or email. */
  function change(db: Queryable, portalId: number, listId: number, vids: number[], emails: string[], add: boolean) {
    return db.tx(async (t): Promise<MembershipChange> => {
      await lock(t, portalId, 'shared');
      if ((await require(t, portalId, listId)).dynamic) throw badRequest('Can not operate manually on a dynamic list');
      const out: MembershipChange = { updated: [], discarded: [], invalidVids: [], invalidEmails: [] };
      // A contact named twice (or by vid and by email) counts once.
      const found = new Set<number>();
      for (const vid of vids) {
        if (await contacts.get(t, portalId, vid)) found.add(vid);
        else out.invalidVids.push(vid);
      }
      for (const email of emails) {
        const row = await contacts.getByEmail(t, portalId, email);
        if (row) found.add(row.vid);
        else out.invalidEmails.push(email);
      }
      const at = now();
      const changed = new Set(await setMembers(t, listId, [...found], add, at));
      for (const vid of found) (changed.has(vid) ? out.updated : out.discarded).push(vid);
      if (out.updated.length && !add) await t.run(q.sizeChanged, at, listId);
      return out;
    });
  }

  /** Filters are only kept (normalised) on dynamic lists; static lists answer `[]`. Normalising is
   * idempotent, so unchanged filters serialise the same. */
  async function filtersFor(db: Queryable, portalId: number, dynamic: boolean, filters: ListFilters | undefined) {
    if (!dynamic || !filters) return '[]';
    const normalised = normaliseFilters(filters);
    // A filter names one of the portal's own forms: another portal's is not there to see.
    for (const [g, group] of normalised.entries())
      for (const [i, f] of group.entries())
        if (f.form !== undefined && !(await db.get(q.formOfPortal, portalId, f.form)))
          throw notFound(`body.filters.${g}.${i}.form: no form ${f.form} in this portal`);
    return JSON.stringify(normalised);
  }

  /** Gives the list a new internalListId, the largest plus one: chosen last in the transaction,
   * under a lock, so that two processes choosing at once (neither would see the other's
   * uncommitted row) choose one after the other, and the lock is held only until the commit. */
  async function renumber(t: Transaction, listId: number) {
    await t.lock('list ids');
    await t.run(q.renumber, listId);
  }
  const get = async (db: Queryable, portalId: number, listId: number) => record(await require(db, portalId, listId));

  return {
    get,
    async kindOf(db: Queryable, portalId: number, listId: number) {
      const row = await db.get(q.byId, portalId, listId);
      return row && (row.dynamic ? ('DYNAMIC' as const) : ('STATIC' as const));
    },

    /** The lists that exist, in the order asked. */
    async getMany(db: Queryable, portalId: number, listIds: number[]) {
      const found = new Map(
        (await db.all(q.byIds, portalId, JSON.stringify(listIds))).map((row) => [row.list_id, row]),
      );
      return listIds.flatMap((id) => (found.has(id) ? [record(found.get(id)!)] : []));
    },

    /** By list id, `offset` lists in; one more than asked tells `hasMore`. */
    async page(db: Queryable, portalId: number, count: number, offset = 0, type?: 'STATIC' | 'DYNAMIC') {
      const [lo, hi] = type == 'STATIC' ? [0, 0] : type == 'DYNAMIC' ? [1, 1] : [0, 1];
      const rows = await db.all(q.page, portalId, lo, hi, count + 1, offset);
      return { lists: rows.slice(0, count).map(record), hasMore: rows.length > count };
    },

    create(db: Queryable, portalId: number, body: ListWrite & { name: string }) {
      return db.tx(async (t) => {
        await lock(t, portalId, 'exclusive');
        const dynamic = !!body.dynamic;
        const filters = await filtersFor(t, portalId, dynamic, body.filters);
        const at = now();
        const list_id = (await t.insert(q.insert, portalId, body.name, dynamic ? 1 : 0, filters, at, at, at))!;
        if (dynamic) await evaluate(t, { list_id, portal_id: portalId, filters });
        await renumber(t, list_id);
        return get(t, portalId, list_id);
      });
    },

    /** Changing the filters (or the type) gives the list a new internalListId, as the legacy API does. */
    update(db: Queryable, portalId: number, listId: number, body: ListWrite) {
      return db.tx(async (t) => {
        await lock(t, portalId, 'exclusive');
        const row = await require(t, portalId, listId);
        const dynamic = body.dynamic ?? !!row.dynamic;
        const filters = await filtersFor(t, portalId, dynamic, body.filters ?? JSON.parse(row.filters));
        await t.run(q.update, body.name ?? row.name, dynamic ? 1 : 0, filters, now(), listId);
        if (dynamic) await evaluate(t, { list_id: listId, portal_id: portalId, filters });
        if (filters != row.filters || dynamic != !!row.dynamic) await renumber(t, listId);
        return get(t, portalId, listId);
      });
    },

    remove(db: Queryable, portalId: number, listId: number) {
      return db.tx(async (t) => {
        await lock(t, portalId, 'exclusive');
        await require(t, portalId, listId);
        await t.run(q.removeAll, listId);
        await t.run(q.remove, listId);
      });
    },

    /** Full re-evaluation of a dynamic list; nothing to do for a static one. */
    refresh(db: Queryable, portalId: number, listId: number) {
      return db.tx(async (t) => {
        await lock(t, portalId, 'exclusive');
        const row = await require(t, portalId, listId);
        if (row.dynamic) await evaluate(t, row);
      });
    },

    /** A deleted property leaves the filters: its conditions go from each AND group (a group left
     * empty goes too, and a list left with no group matches no one), and the lists it was in are
     * re-evaluated. */
    forgetProperty(db: Queryable, portalId: number, name: string) {
      return db.tx(async (t) => {
        await lock(t, portalId, 'exclusive');
        const changed: number[] = [];
        for (const list of await t.all(q.dynamicOf, portalId)) {
          const filters: ListFilters = JSON.parse(list.filters);
          if (!filters.some((group) => group.some((f) => f.property == name))) continue;
          const kept = JSON.stringify(
            filters.map((group) => group.filter((f) => f.property != name)).filter((group) => group.length),
          );
          await t.run(q.update, list.name, 1, kept, now(), list.list_id);
          await evaluate(t, { list_id: list.list_id, portal_id: portalId, filters: kept });
          changed.push(list.list_id);
        }
        for (const listId of changed) await renumber(t, listId);
      });
    },

    /** Static lists only (also used by workflow actions). */
    addMembers: (db: Queryable, portalId: number, listId: number, vids: number[], emails: string[] = []) =>
      change(db, portalId, listId, vids, emails, true),
    removeMembers: (db: Queryable, portalId: number, listId: number, vids: number[], emails: string[] = []) =>
      change(db, portalId, listId, vids, emails, false),

    /** Members by vid ascending after `vidOffset`. */
    async members(db: Queryable, portalId: number, listId: number, count: number, vidOffset = 0) {
      await require(db, portalId, listId);
      const rows = await db.all(q.members, listId, vidOffset, count + 1);
      return { rows: rows.slice(0, count), hasMore: rows.length > count };
    },

    /** Members newest first, before (timeOffset, vidOffset). */
    async recentMembers(
      db: Queryable,
      portalId: number,
      listId: number,
      count: number,
      timeOffset = Number.MAX_SAFE_INTEGER,
      vidOffset = Number.MAX_SAFE_INTEGER,
    ) {
      await require(db, portalId, listId);
      const rows = await db.all(q.recentMembers, listId, timeOffset, timeOffset, vidOffset, count + 1);
      return { rows: rows.slice(0, count), hasMore: rows.length > count };
    },
  };
}

export type ListStore = ReturnType<typeof listStore>;
