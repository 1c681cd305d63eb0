/** The lists' SQL: lists with their size, members, and what a dynamic list's evaluation reads.
 * Built once per engine for its dialect. */
import { type Dialect, sql } from '../../db/engine';
import { contactColumns, type ContactRow } from '../contacts';

export interface ListRow {
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

export type MemberRow = ContactRow & { added_at: number };

/** A list's last size change is the later of the last removal (`size_changed_at`) and its newest
 * member's arrival: an addition writes nothing on the list's row. On PostgreSQL every form
 * submission that adds a new contact to a list would otherwise update that one row, and each
 * transaction would wait for the one before it to commit (about 250 a second at most). */
const SELECT_LIST = `SELECT l.*, (SELECT count(*) FROM list_members m WHERE m.list_id = l.list_id) AS size,
  (SELECT max(added_at) FROM list_members m WHERE m.list_id = l.list_id) AS last_added FROM lists l`;
const SELECT_MEMBER = `SELECT ${contactColumns('c')}, m.added_at
  FROM list_members m JOIN contacts c ON c.vid = m.vid WHERE m.list_id = ? AND c.deleted = 0`;
export function listSql({ jsonIds, inJsonArray, returningKey }: Dialect) {
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
  return q;
}

export type ListSql = ReturnType<typeof listSql>;
