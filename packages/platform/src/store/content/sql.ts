/** The content objects' SQL: rows, versions, history, the scheduler's claim, URL and comment
 * lookups. Built once per engine for its dialect. */
import { type Dialect, sql } from '../../db/engine';
import type { CollectionName } from './collections';

export interface Row {
  id: number;
  portal_id: number;
  collection: CollectionName;
  data: string;
  buffer: string | null;
  deleted_at: number;
  publish_at: number | null;
}

export const COLS = 'id, portal_id, collection, data, buffer, deleted_at, publish_at';

export function contentSql(d: Dialect) {
  const q = {
    insert: sql<[number, string, string]>(
      `INSERT INTO content_objects (portal_id, collection, data) VALUES (?, ?, ?)${d.returningKey('id')}`,
    ),
    byId: sql<[number, string, number], Row>(
      `SELECT ${COLS} FROM content_objects WHERE portal_id = ? AND collection = ? AND id = ?`,
    ),
    // A write's read: on PostgreSQL the row stays locked until the write commits, so two writes of
    // one object take turns, each reading what the one before left (a change is never lost).
    byIdForWrite: sql<[number, string, number], Row>(
      `SELECT ${COLS} FROM content_objects WHERE portal_id = ? AND collection = ? AND id = ?${d.forUpdate}`,
    ),
    save: sql<[string, string | null, number, number | null, number]>(
      'UPDATE content_objects SET data = ?, buffer = ?, deleted_at = ?, publish_at = ? WHERE id = ?',
    ),
    version: sql<[number, string, number]>('INSERT INTO content_versions (object_id, data, updated) VALUES (?, ?, ?)'),
    versions: sql<[number], { id: number; data: string; updated: number }>(
      'SELECT id, data, updated FROM content_versions WHERE object_id = ? ORDER BY id DESC',
    ),
    versionById: sql<[number, number], { id: number; data: string; updated: number }>(
      'SELECT id, data, updated FROM content_versions WHERE object_id = ? AND id = ?',
    ),
    history: sql<[number, string, number]>(
      'INSERT INTO content_history (object_id, event, timestamp) VALUES (?, ?, ?)',
    ),
    historyOf: sql<[number], { event: string; timestamp: number }>(
      'SELECT event, timestamp FROM content_history WHERE object_id = ? ORDER BY seq',
    ),
    due: sql<[number], Row>(
      `SELECT ${COLS} FROM content_objects WHERE publish_at IS NOT NULL AND publish_at <= ? ORDER BY publish_at, id${d.forUpdateSkipLocked}`,
    ),
    /** Takes a due object for the run that read it: the one whose update changes it publishes it. */
    claim: sql<[number, number]>('UPDATE content_objects SET publish_at = NULL WHERE id = ? AND publish_at = ?'),
    folderByPath: sql<[number, string], Row>(
      `SELECT ${COLS} FROM content_objects WHERE portal_id = ? AND collection = 'folders' AND deleted_at = 0 AND ${d.jsonText('data', '$.full_path')} = ?`,
    ),
    purge: sql<[number]>('DELETE FROM content_objects WHERE id = ?'),
    purgeVersions: sql<[number]>('DELETE FROM content_versions WHERE object_id = ?'),
    purgeHistory: sql<[number]>('DELETE FROM content_history WHERE object_id = ?'),
    /** Another post or page holding a URL (published or scheduled) at this slug. */
    urlHolder: sql<[number, string, number], Pick<Row, 'id' | 'collection'> & { state: string }>(
      `SELECT id, collection, state FROM content_objects WHERE portal_id = ? AND slug = ? AND state IN ('PUBLISHED', 'SCHEDULED') AND deleted_at = 0
     AND collection IN ('blog-posts', 'pages') AND id != ? ORDER BY id LIMIT 1`,
    ),
    // A post's live comments, for many posts at once (a list page asks once, not once per post).
    commentCounts: sql<[number, string], { post: number; n: number }>(
      `SELECT ${d.jsonNumber('data', '$.content_id')} AS post, count(*) AS n FROM content_objects
     WHERE portal_id = ? AND collection = 'comments' AND deleted_at = 0
     AND ${d.inJsonArray(d.jsonNumber('data', '$.content_id'), '?', 'real')} GROUP BY post`,
    ),
    allLive: sql<[number, string], Row>(
      `SELECT ${COLS} FROM content_objects WHERE portal_id = ? AND collection = ? AND deleted_at = 0 ORDER BY id`,
    ),
    liveBySlug: sql<[number, string], Row>(
      `SELECT ${COLS} FROM content_objects WHERE portal_id = ? AND slug = ? AND state = 'PUBLISHED' AND deleted_at = 0
     AND collection IN ('blog-posts', 'pages') ORDER BY id DESC LIMIT 1`,
    ),
  };
  /** Objects of a collection whose live record holds an id at a JSON path (the id, or an id in a
   * list), and those with a buffer (which may hold it too). The path is a known field, written
   * into the text (one statement per referring field). */
  const referring = (field: string) =>
    sql<[number, string, number], Row>(
      `SELECT ${COLS} FROM content_objects WHERE portal_id = ? AND collection = ? AND (buffer IS NOT NULL OR ${d.jsonHas('data', `$.${field}`, '?')})`,
    );
  return { q, referring };
}
