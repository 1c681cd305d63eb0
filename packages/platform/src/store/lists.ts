/** Contact lists. Static lists hold the contacts added to them; dynamic lists hold the portal's
 * contacts matching their filters, re-evaluated when the list changes, on refresh, and for the
 * changed contacts on every contact write. A membership row keeps the time the contact joined
 * (`addedAt`) for as long as the contact stays. */
import type { schemas } from '@svc/api';
import type { z } from 'zod';
import { type Db, transaction } from '../db/open';
import { badRequest, notFound } from '../domain/errors';
import { contactColumns, type ChangedContact, type ContactRow, type ContactStore } from './contacts';
import { matches, normaliseFilters, type ListFilters, type Subject } from './list-filters';

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
  size_changed_at: number;
  size: number;
}

export interface ListWrite {
  name?: string;
  dynamic?: boolean;
  filters?: ListFilters;
}

export type ListRecord = z.input<typeof schemas.contactList>;
export type MembershipChange = z.output<typeof schemas.membershipChange>;
export type MemberRow = ContactRow & { added_at: number };

const SELECT_LIST = 'SELECT l.*, (SELECT count(*) FROM list_members m WHERE m.list_id = l.list_id) AS size FROM lists l';
const SELECT_MEMBER = `SELECT ${contactColumns('c')}, m.added_at
  FROM list_members m JOIN contacts c ON c.vid = m.vid WHERE m.list_id = ? AND c.deleted = 0`;
/** Contacts read per step of a full evaluation (bounds memory on large portals). */
const CHUNK = 1000;

export function listStore(
  db: Db,
  contacts: ContactStore,
  now: () => number,
  onContactsChanged: (fn: (portalId: number, changed: ChangedContact[]) => void) => void,
) {
  const q = {
    formOfPortal: db.prepare<[number, string], number>('SELECT 1 FROM forms WHERE portal_id = ? AND guid = ?').pluck(),
    byId: db.prepare<[number, number], ListRow>(`${SELECT_LIST} WHERE l.portal_id = ? AND l.list_id = ?`),
    // `dynamic IN (?, ?)`: (0, 1) for all lists, (0, 0) static only, (1, 1) dynamic only.
    page: db.prepare<[number, number, number, number, number], ListRow>(
      `${SELECT_LIST} WHERE l.portal_id = ? AND l.dynamic IN (?, ?) ORDER BY l.list_id LIMIT ? OFFSET ?`,
    ),
    dynamicOf: db.prepare<[number], Pick<ListRow, 'list_id' | 'filters'>>('SELECT list_id, filters FROM lists WHERE portal_id = ? AND dynamic = 1'),
    nextInternalId: db.prepare<[], number>('SELECT coalesce(max(internal_list_id), 0) + 1 FROM lists').pluck(),
    insert: db.prepare<[number, number, string, number, string, number, number, number]>(
      'INSERT INTO lists (portal_id, internal_list_id, name, dynamic, filters, created_at, updated_at, processed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    update: db.prepare<[string, number, string, number, number, number]>(
      'UPDATE lists SET name = ?, dynamic = ?, filters = ?, internal_list_id = ?, updated_at = ? WHERE list_id = ?',
    ),
    remove: db.prepare<[number]>('DELETE FROM lists WHERE list_id = ?'),
    processed: db.prepare<[number, number]>('UPDATE lists SET processed_at = ? WHERE list_id = ?'),
    sizeChanged: db.prepare<[number, number]>('UPDATE lists SET size_changed_at = ? WHERE list_id = ?'),
    addMember: db.prepare<[number, number, number]>('INSERT OR IGNORE INTO list_members (list_id, vid, added_at) VALUES (?, ?, ?)'),
    removeMember: db.prepare<[number, number]>('DELETE FROM list_members WHERE list_id = ? AND vid = ?'),
    removeAll: db.prepare<[number]>('DELETE FROM list_members WHERE list_id = ?'),
    memberVids: db.prepare<[number], number>('SELECT vid FROM list_members WHERE list_id = ?').pluck(),
    members: db.prepare<[number, number, number], MemberRow>(`${SELECT_MEMBER} AND m.vid > ? ORDER BY m.vid LIMIT ?`),
    recentMembers: db.prepare<[number, number, number, number, number], MemberRow>(
      `${SELECT_MEMBER} AND (m.added_at < ? OR (m.added_at = ? AND m.vid < ?)) ORDER BY m.added_at DESC, m.vid DESC LIMIT ?`,
    ),
    contactsAfter: db.prepare<[number, number, number], Pick<ContactRow, 'vid' | 'properties'>>(
      'SELECT vid, properties FROM contacts WHERE portal_id = ? AND deleted = 0 AND vid > ? ORDER BY vid LIMIT ?',
    ),
    submitted: db.prepare<[number, number, string], number>('SELECT 1 FROM form_submissions WHERE portal_id = ? AND vid = ? AND form_guid = ?').pluck(),
  };

  const tx = <A extends unknown[], R>(fn: (...a: A) => R) => transaction(db, fn);

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
      // Evaluation is synchronous: a list is always processed by the time anyone reads it.
      metaData: {
        processing: 'DONE',
        size: row.size,
        error: '',
        lastProcessingStateChangeAt: row.processed_at,
        lastSizeChangeAt: row.size_changed_at,
        listReferencesCount: null,
      },
    };
  }

  function require(portalId: number, listId: number) {
    const row = q.byId.get(portalId, listId);
    if (!row) throw notFound(`Couldn't find a List with the given id '${listId}'.`);
    return row;
  }

  const subject = (portalId: number, vid: number, properties: Record<string, string>): Subject => ({
    properties,
    hasSubmitted: (guid) => !!q.submitted.get(portalId, vid, guid),
  });

  /** Puts `vid` in or out of the list; a member that stays keeps its addedAt. True if it changed. */
  const setMember = (listId: number, vid: number, member: boolean, t: number) =>
    (member ? q.addMember.run(listId, vid, t) : q.removeMember.run(listId, vid)).changes > 0;

  /** Full evaluation of a dynamic list over all the portal's contacts. */
  function evaluate(list: ListRow) {
    const filters: ListFilters = JSON.parse(list.filters);
    const keep = new Set<number>();
    for (let after = 0; ; ) {
      const chunk = q.contactsAfter.all(list.portal_id, after, CHUNK);
      for (const c of chunk) if (matches(filters, subject(list.portal_id, c.vid, JSON.parse(c.properties)))) keep.add(c.vid);
      if (chunk.length < CHUNK) break;
      after = chunk[CHUNK - 1].vid;
    }
    const t = now();
    let changed = false;
    for (const vid of q.memberVids.all(list.list_id)) if (!keep.has(vid)) changed = setMember(list.list_id, vid, false, t) || changed;
    for (const vid of keep) changed = setMember(list.list_id, vid, true, t) || changed;
    q.processed.run(t, list.list_id);
    if (changed) q.sizeChanged.run(t, list.list_id);
  }

  /** Re-checks only the changed contacts against the portal's dynamic lists, with the properties
   * they were written with (a contact without them is read, and a deleted one leaves). */
  const recheck = tx((portalId: number, contactsChanged: ChangedContact[]) => {
    const lists = q.dynamicOf.all(portalId).map((l) => ({ id: l.list_id, filters: JSON.parse(l.filters) as ListFilters }));
    if (!lists.length) return;
    const t = now();
    const changed = new Set<number>();
    // A contact written twice counts with its last write.
    const last = new Map(contactsChanged.map((c) => [c.vid, c.properties]));
    for (const [vid, written] of last) {
      const properties = written ?? JSON.parse(contacts.get(portalId, vid)?.properties ?? 'null');
      const who = properties && subject(portalId, vid, properties);
      for (const list of lists) if (setMember(list.id, vid, !!who && matches(list.filters, who), t)) changed.add(list.id);
    }
    for (const id of changed) q.sizeChanged.run(t, id);
  });
  onContactsChanged(recheck);

  /** Adds or removes contacts of a static list, by vid or email. */
  const change = tx((portalId: number, listId: number, vids: number[], emails: string[], add: boolean): MembershipChange => {
    if (require(portalId, listId).dynamic) throw badRequest('Can not operate manually on a dynamic list');
    const out: MembershipChange = { updated: [], discarded: [], invalidVids: [], invalidEmails: [] };
    // A contact named twice (or by vid and by email) counts once.
    const found = new Set<number>();
    for (const vid of vids) {
      if (contacts.get(portalId, vid)) found.add(vid);
      else out.invalidVids.push(vid);
    }
    for (const email of emails) {
      const row = contacts.getByEmail(portalId, email);
      if (row) found.add(row.vid);
      else out.invalidEmails.push(email);
    }
    const t = now();
    for (const vid of found) (setMember(listId, vid, add, t) ? out.updated : out.discarded).push(vid);
    if (out.updated.length) q.sizeChanged.run(t, listId);
    return out;
  });

  /** Filters are only kept (normalised) on dynamic lists; static lists answer `[]`. Normalising is
   * idempotent, so unchanged filters serialise the same. */
  const filtersFor = (portalId: number, dynamic: boolean, filters: ListFilters | undefined) => {
    if (!dynamic || !filters) return '[]';
    const normalised = normaliseFilters(filters);
    // A filter names one of the portal's own forms: another portal's is not there to see.
    normalised.forEach((group, g) =>
      group.forEach((f, i) => {
        if (f.form !== undefined && !q.formOfPortal.get(portalId, f.form)) throw notFound(`body.filters.${g}.${i}.form: no form ${f.form} in this portal`);
      }),
    );
    return JSON.stringify(normalised);
  };

  const get = (portalId: number, listId: number) => record(require(portalId, listId));

  return {
    get,
    kindOf(portalId: number, listId: number) {
      const row = q.byId.get(portalId, listId);
      return row && (row.dynamic ? ('DYNAMIC' as const) : ('STATIC' as const));
    },

    /** The lists that exist, in the order asked. */
    getMany: (portalId: number, listIds: number[]) =>
      listIds.flatMap((id) => {
        const row = q.byId.get(portalId, id);
        return row ? [record(row)] : [];
      }),

    /** By list id, `offset` lists in; one more than asked tells `hasMore`. */
    page(portalId: number, count: number, offset = 0, type?: 'STATIC' | 'DYNAMIC') {
      const [lo, hi] = type == 'STATIC' ? [0, 0] : type == 'DYNAMIC' ? [1, 1] : [0, 1];
      const rows = q.page.all(portalId, lo, hi, count + 1, offset);
      return { lists: rows.slice(0, count).map(record), hasMore: rows.length > count };
    },

    create: tx((portalId: number, body: ListWrite & { name: string }) => {
      const dynamic = !!body.dynamic;
      const t = now();
      const listId = Number(q.insert.run(portalId, q.nextInternalId.get()!, body.name, dynamic ? 1 : 0, filtersFor(portalId, dynamic, body.filters), t, t, t).lastInsertRowid);
      if (dynamic) evaluate(require(portalId, listId));
      return get(portalId, listId);
    }),

    /** Changing the filters (or the type) gives the list a new internalListId, as the legacy API does. */
    update: tx((portalId: number, listId: number, body: ListWrite) => {
      const row = require(portalId, listId);
      const dynamic = body.dynamic ?? !!row.dynamic;
      const filters = filtersFor(portalId, dynamic, body.filters ?? JSON.parse(row.filters));
      const internalId = filters == row.filters && dynamic == !!row.dynamic ? row.internal_list_id : q.nextInternalId.get()!;
      q.update.run(body.name ?? row.name, dynamic ? 1 : 0, filters, internalId, now(), listId);
      if (dynamic) evaluate(require(portalId, listId));
      return get(portalId, listId);
    }),

    remove: tx((portalId: number, listId: number) => {
      require(portalId, listId);
      q.removeAll.run(listId);
      q.remove.run(listId);
    }),

    /** Full re-evaluation of a dynamic list; nothing to do for a static one. */
    refresh: tx((portalId: number, listId: number) => {
      const row = require(portalId, listId);
      if (row.dynamic) evaluate(row);
    }),

    /** A deleted property leaves the filters: its conditions go from each AND group (a group left
     * empty goes too, and a list left with no group matches no one), and the lists it was in are
     * re-evaluated. */
    forgetProperty: tx((portalId: number, name: string) => {
      for (const list of q.dynamicOf.all(portalId)) {
        const filters: ListFilters = JSON.parse(list.filters);
        if (!filters.some((group) => group.some((f) => f.property == name))) continue;
        const kept = filters.map((group) => group.filter((f) => f.property != name)).filter((group) => group.length);
        const row = require(portalId, list.list_id);
        q.update.run(row.name, 1, JSON.stringify(kept), q.nextInternalId.get()!, now(), list.list_id);
        evaluate(require(portalId, list.list_id));
      }
    }),

    /** Static lists only (also used by workflow actions). */
    addMembers: (portalId: number, listId: number, vids: number[], emails: string[] = []) => change(portalId, listId, vids, emails, true),
    removeMembers: (portalId: number, listId: number, vids: number[], emails: string[] = []) => change(portalId, listId, vids, emails, false),

    /** Members by vid ascending after `vidOffset`. */
    members(portalId: number, listId: number, count: number, vidOffset = 0) {
      require(portalId, listId);
      const rows = q.members.all(listId, vidOffset, count + 1);
      return { rows: rows.slice(0, count), hasMore: rows.length > count };
    },

    /** Members newest first, before (timeOffset, vidOffset). */
    recentMembers(portalId: number, listId: number, count: number, timeOffset = Number.MAX_SAFE_INTEGER, vidOffset = Number.MAX_SAFE_INTEGER) {
      require(portalId, listId);
      const rows = q.recentMembers.all(listId, timeOffset, timeOffset, vidOffset, count + 1);
      return { rows: rows.slice(0, count), hasMore: rows.length > count };
    },
  };
}

export type ListStore = ReturnType<typeof listStore>;
