/** The content-object engine shared by every collection of §4.8: create, list (paging, filters,
 * order), get, update, soft delete and restore, the auto-save buffer, version history, clone, and
 * the publishing state machine of §3 for posts and pages (with the scheduler that publishes at
 * `publish_date`). Collection specifics live in collections.ts. */
import type Database from 'better-sqlite3';
import { type Db, transaction } from '../../db/open';
import { badRequest, conflict, notFound } from '../../domain/errors';
import { COLLECTIONS, type CollectionName, type ContentRecord, type Record_ } from './collections';
import { listSql } from './filters';

interface Row {
  id: number;
  portal_id: number;
  collection: CollectionName;
  data: string;
  buffer: string | null;
  deleted_at: number;
  publish_at: number | null;
}

const COLS = 'id, portal_id, collection, data, buffer, deleted_at, publish_at';
/** Keys held in columns or computed on read, never in the stored JSON. */
const OUTSIDE_JSON = ['id', 'portal_id', 'deleted_at', 'url', 'published_url', 'friendly_url', 'alt_url', 's3_url', 'root_url', 'blog_author', 'comment_count'];

/** The record's JSON without the keys held elsewhere. */
function stored(record: Record_) {
  const copy = { ...record };
  for (const k of OUTSIDE_JSON) delete copy[k];
  return JSON.stringify(copy);
}

/** The fields of a write body a caller may set: server-owned ones dropped. */
function writable(collection: CollectionName, body: Record_) {
  const out: Record_ = {};
  const server = COLLECTIONS[collection].serverFields;
  for (const [k, v] of Object.entries(body)) if (v !== undefined && !server.includes(k)) out[k] = v;
  return out;
}

const isTrue = (v: unknown) => v === true || v === 'true';
/** Equal as JSON values (records come from JSON). */
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const label = (collection: CollectionName) => collection.replace(/s$/, '').replace('-', ' ');

export type PublishAction = 'schedule-publish' | 'cancel-publish' | 'push-buffer-live';

export function contentEngine(db: Db, now: () => number) {
  const q = {
    insert: db.prepare<[number, string, string]>('INSERT INTO content_objects (portal_id, collection, data) VALUES (?, ?, ?)'),
    byId: db.prepare<[number, string, number], Row>(`SELECT ${COLS} FROM content_objects WHERE portal_id = ? AND collection = ? AND id = ?`),
    save: db.prepare<[string, string | null, number, number | null, number]>(
      'UPDATE content_objects SET data = ?, buffer = ?, deleted_at = ?, publish_at = ? WHERE id = ?',
    ),
    version: db.prepare<[number, string, number]>('INSERT INTO content_versions (object_id, data, updated) VALUES (?, ?, ?)'),
    versions: db.prepare<[number], { id: number; data: string; updated: number }>(
      'SELECT id, data, updated FROM content_versions WHERE object_id = ? ORDER BY id DESC',
    ),
    versionById: db.prepare<[number, number], { id: number; data: string; updated: number }>(
      'SELECT id, data, updated FROM content_versions WHERE object_id = ? AND id = ?',
    ),
    history: db.prepare<[number, string, number]>('INSERT INTO content_history (object_id, event, timestamp) VALUES (?, ?, ?)'),
    historyOf: db.prepare<[number], { event: string; timestamp: number }>(
      'SELECT event, timestamp FROM content_history WHERE object_id = ? ORDER BY seq',
    ),
    due: db.prepare<[number], Row>(`SELECT ${COLS} FROM content_objects WHERE publish_at IS NOT NULL AND publish_at <= ? ORDER BY publish_at, id`),
    folderByPath: db.prepare<[number, string], Row>(
      `SELECT ${COLS} FROM content_objects WHERE portal_id = ? AND collection = 'folders' AND deleted_at = 0 AND json_extract(data, '$.full_path') = ?`,
    ),
    purge: db.prepare<[number]>('DELETE FROM content_objects WHERE id = ?'),
    purgeVersions: db.prepare<[number]>('DELETE FROM content_versions WHERE object_id = ?'),
    purgeHistory: db.prepare<[number]>('DELETE FROM content_history WHERE object_id = ?'),
    /** Another post or page holding a URL (published or scheduled) at this slug. */
    urlHolder: db.prepare<[number, string, number], Pick<Row, 'id' | 'collection'> & { state: string }>(
      `SELECT id, collection, state FROM content_objects WHERE portal_id = ? AND slug = ? AND state IN ('PUBLISHED', 'SCHEDULED') AND deleted_at = 0
       AND collection IN ('blog-posts', 'pages') AND id != ? ORDER BY id LIMIT 1`,
    ),
    /** Objects of a collection whose live record holds `value` at a JSON path (an id, or an id in a
     * list), and those with a buffer (which may hold it too). */
    referring: db.prepare<[number, string, string, number], Row>(
      `SELECT ${COLS} FROM content_objects WHERE portal_id = ? AND collection = ?
       AND (buffer IS NOT NULL OR EXISTS (SELECT 1 FROM json_each(data, ?) WHERE value = ?))`,
    ),
    // A post's live comments, for many posts at once (a list page asks once, not once per post).
    commentCounts: db.prepare<[number, string], { post: number; n: number }>(
      `SELECT json_extract(data, '$.content_id') AS post, count(*) AS n FROM content_objects
       WHERE portal_id = ? AND collection = 'comments' AND deleted_at = 0
       AND json_extract(data, '$.content_id') IN (SELECT value FROM json_each(?)) GROUP BY post`,
    ),
    allLive: db.prepare<[number, string], Row>(`SELECT ${COLS} FROM content_objects WHERE portal_id = ? AND collection = ? AND deleted_at = 0 ORDER BY id`),
    liveBySlug: db.prepare<[number, string], Row>(
      `SELECT ${COLS} FROM content_objects WHERE portal_id = ? AND slug = ? AND state = 'PUBLISHED' AND deleted_at = 0
       AND collection IN ('blog-posts', 'pages') ORDER BY id DESC LIMIT 1`,
    ),
  };
  /** Where the site server answers: the platform's public URL, or the address it listens on (set
   * by app.ts). Every URL in a record (a post's, a file's, a blog's root) starts with it. */
  const site = { base: 'http://127.0.0.1:3200' };

  /** Live comments per post id. */
  function commentCounts(portalId: number, postIds: number[]) {
    return new Map(q.commentCounts.all(portalId, JSON.stringify(postIds)).map((r) => [r.post, r.n]));
  }

  /** What a post shows of other objects, read fresh so it never goes stale: its author (the
   * record, or null) and how many live comments it has. `counts` comes from a list's one query. */
  function relate(record: ContentRecord, counts = commentCounts(Number(record.portal_id), [record.id])) {
    const authorId = record.blog_author_id;
    const author = authorId == null ? undefined : lookup.get(Number(record.portal_id), 'blog-authors', Number(authorId));
    record.blog_author = author ?? null;
    record.comment_count = counts.get(record.id) ?? 0;
  }

  function toRecord(row: Row, counts?: Map<number, number>): ContentRecord {
    const record: ContentRecord = { ...(JSON.parse(row.data) as Record_), id: row.id, portal_id: row.portal_id, deleted_at: row.deleted_at };
    if (row.collection == 'blog-posts') relate(record, counts);
    if (COLLECTIONS[row.collection].publishable) {
      // §2.1: the URL is known from the start; it answers 404 until the post is published.
      record.url = `${site.base}/sites/${row.portal_id}/${String(record.slug)}`;
      record.published_url = record.state == 'PUBLISHED' ? record.url : '';
    }
    COLLECTIONS[row.collection].decorate?.(record, { id: row.id, portalId: row.portal_id, base: site.base });
    return record;
  }

  function find(portalId: number, collection: CollectionName, id: number) {
    const row = q.byId.get(portalId, collection, id);
    if (!row) throw notFound(`no ${label(collection)} with id ${id}`);
    return row;
  }

  /** A row that may be changed: deleted objects only come back through restore-deleted. */
  function findLive(portalId: number, collection: CollectionName, id: number) {
    const row = find(portalId, collection, id);
    if (row.deleted_at) throw badRequest(`${collection} ${id} is deleted; restore it first (POST .../restore-deleted)`);
    return row;
  }

  const lookup = {
    get: (portalId: number, collection: CollectionName, id: number) => {
      const row = Number.isInteger(id) ? q.byId.get(portalId, collection, id) : undefined;
      return row && !row.deleted_at ? toRecord(row) : undefined;
    },
    folderByPath: (portalId: number, fullPath: string) => {
      const row = q.folderByPath.get(portalId, fullPath);
      return row && toRecord(row);
    },
  };

  /** The URL a post or page holds: its slug while it is published or scheduled (not deleted). */
  function urlOf(collection: CollectionName, record: Record_, deletedAt: number) {
    const holds = COLLECTIONS[collection].publishable && !deletedAt && (record.state == 'PUBLISHED' || record.state == 'SCHEDULED');
    return holds ? String(record.slug) : undefined;
  }

  /** Two live objects never share a URL: an object that comes to hold one (published, scheduled,
   * restored, or its slug changed while live) must find it free. Drafts may share slugs. */
  function checkUrlFree(row: Row, record: Record_, deletedAt: number) {
    const slug = urlOf(row.collection, record, deletedAt);
    if (slug === undefined || slug === urlOf(row.collection, JSON.parse(row.data) as Record_, row.deleted_at)) return;
    const other = q.urlHolder.get(row.portal_id, slug, row.id);
    if (other)
      throw conflict(
        `slug ${slug} is the URL of ${other.state.toLowerCase()} ${label(other.collection)} ${other.id}: change the slug, or unpublish that one first`,
        { slug, conflictingId: other.id },
      );
  }

  /** When a scheduled object goes live: its publish_date as it is now (the schedule follows every
   * change of it). Not scheduled or deleted: never. */
  function publishAt(row: Row, record: Record_, deletedAt: number) {
    if (record.state != 'SCHEDULED' || deletedAt) return null;
    const at = Number(record.publish_date);
    if (record.publish_date == null || !Number.isFinite(at))
      throw badRequest(`body.publish_date: ${label(row.collection)} ${row.id} is scheduled and needs a publish_date (cancel-publish first to clear it)`);
    return at;
  }

  /** Writes the live record (and the buffer, deletion) and keeps a version of it; the schedule
   * follows the record's state and publish_date. */
  function save(row: Row, record: Record_, changes: Partial<Pick<Row, 'buffer' | 'deleted_at'>> = {}) {
    const next = { ...row, ...changes, data: stored(record) };
    checkUrlFree(row, record, next.deleted_at);
    next.publish_at = publishAt(row, record, next.deleted_at);
    q.save.run(next.data, next.buffer, next.deleted_at, next.publish_at, row.id);
    q.version.run(row.id, JSON.stringify(toRecord(next)), Number(record.updated));
    return next;
  }

  function insert(portalId: number, collection: CollectionName, record: Record_) {
    const { lastInsertRowid } = q.insert.run(portalId, collection, stored(record));
    const row = q.byId.get(portalId, collection, Number(lastInsertRowid))!;
    q.version.run(row.id, JSON.stringify(toRecord(row)), Number(record.updated));
    return row;
  }

  function create(portalId: number, collection: CollectionName, body: Record_) {
    return transaction(db, () => {
      const c = COLLECTIONS[collection];
      const record = { ...c.defaults(body, now(), portalId), ...writable(collection, body) };
      c.complete?.(record, lookup, portalId);
      return toRecord(insert(portalId, collection, record));
    })();
  }

  /** The live record with `body` applied (not saved), checked against the live record it changes. */
  function applied(row: Row, base: Record_, body: Record_) {
    const record = { ...base, ...writable(row.collection, body), updated: now() };
    COLLECTIONS[row.collection].complete?.(record, lookup, row.portal_id, row.id, JSON.parse(row.data) as Record_);
    return record;
  }

  function update(portalId: number, collection: CollectionName, id: number, body: Record_) {
    return transaction(db, () => {
      const row = findLive(portalId, collection, id);
      // §3: updating never publishes, whatever publish_date says; a scheduled object moves with it.
      return toRecord(save(row, applied(row, JSON.parse(row.data) as Record_, body)));
    })();
  }

  /** List queries differ only in their filters: each shape is prepared once (a few hundred at most). */
  const statements = new Map<string, Database.Statement<unknown[]>>();
  function prepared(sql: string) {
    let stmt = statements.get(sql);
    if (!stmt) {
      if (statements.size > 500) statements.clear();
      statements.set(sql, (stmt = db.prepare<unknown[]>(sql)));
    }
    return stmt;
  }

  function list(portalId: number, collection: CollectionName, query: Record_, fields: ReadonlySet<string>) {
    const { where, args, order } = listSql(query, fields);
    const limit = Number(query.limit ?? 20);
    const offset = Number(query.offset ?? 0);
    const sql = `FROM content_objects WHERE portal_id = ? AND collection = ? AND ${where.join(' AND ')}`;
    const total = prepared(`SELECT count(*) ${sql}`).pluck().get(portalId, collection, ...args) as number;
    const rows = prepared(`SELECT ${COLS} ${sql} ORDER BY ${order} LIMIT ? OFFSET ?`).all(portalId, collection, ...args, limit, offset) as Row[];
    const counts = collection == 'blog-posts' ? commentCounts(portalId, rows.map((r) => r.id)) : undefined;
    return { limit, offset, total, total_count: total, objects: rows.map((row) => toRecord(row, counts)) };
  }

  function remove(portalId: number, collection: CollectionName, id: number) {
    transaction(db, () => {
      const row = findLive(portalId, collection, id);
      // A deleted scheduled post is not published by the scheduler (save drops its schedule).
      save(row, { ...(JSON.parse(row.data) as Record_), updated: now() }, { deleted_at: now() });
      dropReferencesTo(row);
    })();
  }

  /** What refers to a deleted object lets go of it (a post's topic or author), so that those objects
   * stay editable and publishable; restoring the object does not bring the references back. */
  function dropReferencesTo(row: Row) {
    for (const ref of COLLECTIONS[row.collection].referencedBy ?? []) {
      const drop = (value: unknown) =>
        ref.list ? (Array.isArray(value) ? value.filter((v) => Number(v) !== row.id) : value) : Number(value) === row.id ? null : value;
      const without = (record: Record_) => (ref.field in record ? { ...record, [ref.field]: drop(record[ref.field]) } : record);
      for (const other of q.referring.all(row.portal_id, ref.collection, `$.${ref.field}`, row.id)) {
        const live = JSON.parse(other.data) as Record_;
        const edits = readBuffer(other);
        const buffer = edits ? writeBuffer({ edits: without(edits.edits), base: without(edits.base) }) : null;
        if (!same(without(live), live)) save(other, { ...without(live), updated: now() }, { buffer });
        else if (buffer !== other.buffer) q.save.run(other.data, buffer, other.deleted_at, other.publish_at, other.id);
      }
    }
  }

  function restoreDeleted(portalId: number, collection: CollectionName, id: number) {
    return transaction(db, () => {
      const row = find(portalId, collection, id);
      if (!row.deleted_at) throw badRequest(`${collection} ${id} is not deleted`);
      const record = JSON.parse(row.data) as Record_;
      // A post that was scheduled when deleted comes back as a draft: nothing publishes behind one's back.
      if (record.state == 'SCHEDULED') Object.assign(record, { state: 'DRAFT', is_draft: true, current_state: 'DRAFT' });
      // Checked as a save is: a folder's path (its parent may have moved) must be free, a live
      // post's URL too (save).
      return toRecord(save(row, applied(row, record, {}), { deleted_at: 0 }));
    })();
  }

  // ---- the auto-save buffer (§3, §4.8) ----

  /** A buffer keeps the fields its writes set (`edits`) and, for each, the live value it was edited
   * against (`base`): pushing it live changes only those fields, so a live edit made meanwhile to
   * another field stays, and one made to the same field is noticed instead of overwritten. */
  interface Edits {
    edits: Record_;
    base: Record_;
  }
  const EDITS = '$edits';
  const BASE = '$base';

  function readBuffer(row: Row): Edits | undefined {
    if (!row.buffer) return undefined;
    const buffer = JSON.parse(row.buffer) as Record_;
    if (EDITS in buffer) return { edits: buffer[EDITS] as Record_, base: buffer[BASE] as Record_ };
    // A buffer saved before edits were kept apart is a whole record: its edits are where it differs.
    const live = JSON.parse(row.data) as Record_;
    const server = COLLECTIONS[row.collection].serverFields;
    const edits = Object.fromEntries(Object.entries(buffer).filter(([k, v]) => !server.includes(k) && !same(v, live[k])));
    return { edits, base: Object.fromEntries(Object.keys(edits).map((k) => [k, live[k]])) };
  }
  const writeBuffer = ({ edits, base }: Edits) => JSON.stringify({ [EDITS]: edits, [BASE]: base });

  /** The object as its editor sees it: the live record with the buffer's edits over it. */
  const bufferView = (row: Row): Record_ => ({ ...(JSON.parse(row.data) as Record_), ...readBuffer(row)?.edits });

  function getBuffer(portalId: number, collection: CollectionName, id: number) {
    const row = find(portalId, collection, id);
    return toRecord({ ...row, data: JSON.stringify(bufferView(row)) });
  }

  function updateBuffer(portalId: number, collection: CollectionName, id: number, body: Record_) {
    return transaction(db, () => {
      const row = findLive(portalId, collection, id);
      const live = JSON.parse(row.data) as Record_;
      const { edits, base } = readBuffer(row) ?? { edits: {}, base: {} };
      // An auto-save holds whatever the editor has: checked by validate-buffer and on push, not here.
      const changes = writable(collection, body);
      const next = writeBuffer({ edits: { ...edits, ...changes }, base: { ...base, ...Object.fromEntries(Object.keys(changes).map((k) => [k, live[k]])) } });
      // The live object is not affected (§3): only the buffer column changes, no version.
      q.save.run(row.data, next, row.deleted_at, row.publish_at, row.id);
      return toRecord({ ...row, data: JSON.stringify(bufferView({ ...row, buffer: next })) });
    })();
  }

  function hasBufferedChanges(portalId: number, collection: CollectionName, id: number) {
    const row = find(portalId, collection, id);
    const live = JSON.parse(row.data) as Record_;
    return { has_buffered_changes: Object.entries(readBuffer(row)?.edits ?? {}).some(([k, v]) => !same(v, live[k])) };
  }

  /** Copies the buffer's edits into the live object (then applies `body`, for the PUT variant).
   * A field edited both in the buffer and on the live object since (and not set by `body`) is a
   * 409 naming it: the editor edits it in the buffer again (which takes the live value as seen) or
   * discards the buffer. */
  function pushBufferLive(portalId: number, collection: CollectionName, id: number, body: Record_ = {}) {
    return transaction(db, () => {
      const row = findLive(portalId, collection, id);
      const live = JSON.parse(row.data) as Record_;
      const { edits, base } = readBuffer(row) ?? { edits: {}, base: {} };
      const given = writable(collection, body);
      const clashes = Object.keys(edits).filter((k) => !(k in given) && !same(live[k], base[k]) && !same(live[k], edits[k]));
      if (clashes.length)
        throw conflict(
          `${clashes.join(', ')} changed on the live ${label(collection)} after the buffer's edit: edit ${clashes.length > 1 ? 'them' : 'it'} in the buffer again (PUT .../buffer) or discard the buffer`,
          { fields: clashes },
        );
      // The state machine's fields are not in the edits: pushing the buffer is a save, not a publish.
      return toRecord(save(row, applied(row, { ...live, ...edits }, body), { buffer: null }));
    })();
  }

  /** Drops the buffer; answers with the live (previously published) object. */
  function discardBuffer(portalId: number, collection: CollectionName, id: number) {
    return transaction(db, () => {
      const row = find(portalId, collection, id);
      q.save.run(row.data, null, row.deleted_at, row.publish_at, row.id);
      return toRecord({ ...row, buffer: null });
    })();
  }

  /** The buffer would make a valid live object (the checks a save runs). */
  function validateBuffer(portalId: number, collection: CollectionName, id: number) {
    const row = find(portalId, collection, id);
    const buffer = bufferView(row);
    if (!buffer.name) throw badRequest('buffer.name: is required');
    COLLECTIONS[collection].complete?.(buffer, lookup, portalId, row.id, JSON.parse(row.data) as Record_);
    return { succeeded: true as const };
  }

  function clone(portalId: number, collection: CollectionName, id: number, name: string) {
    return transaction(db, () => {
      const source = JSON.parse(findLive(portalId, collection, id).data) as Record_;
      const c = COLLECTIONS[collection];
      const record = {
        ...source,
        ...c.defaults({ name }, now(), portalId),
        ...writable(collection, source),
        name,
        html_title: name,
        slug: '',
        cloned_from: id,
      };
      c.complete?.(record, lookup, portalId);
      return toRecord(insert(portalId, collection, record));
    })();
  }

  // ---- publishing (§3) ----

  const PUBLISHED = { state: 'PUBLISHED', is_draft: false, current_state: 'PUBLISHED', processing_status: 'published' };
  const DRAFT = { state: 'DRAFT', is_draft: true, current_state: 'DRAFT', processing_status: 'draft' };

  /** Told of every object that goes live, in the same transaction (services send its tweets). */
  const liveListeners: ((collection: CollectionName, record: ContentRecord) => void)[] = [];

  /** Goes live now and runs the job that sends the enabled emails and tweets (§3). */
  function goLive(row: Row, record: Record_) {
    const at = now();
    q.history.run(row.id, 'send enabled emails and tweets', at);
    const next = save(row, { ...record, ...PUBLISHED, publish_date: record.publish_date ?? at, unpublished_at: null, updated: at });
    const live = toRecord(next);
    for (const fn of liveListeners) fn(row.collection, live);
    return next;
  }

  function publishAction(portalId: number, collection: CollectionName, id: number, action: PublishAction) {
    transaction(db, () => {
      const row = findLive(portalId, collection, id);
      const record = JSON.parse(row.data) as Record_;
      if (action == 'push-buffer-live') return void pushBufferLive(portalId, collection, id);
      if (action == 'cancel-publish') {
        if (record.state == 'DRAFT') throw badRequest(`${collection} ${id} is neither scheduled nor published`);
        const unpublished = record.state == 'PUBLISHED' ? { unpublished_at: now() } : {};
        return void save(row, { ...record, ...DRAFT, ...unpublished, updated: now() });
      }
      if (record.state == 'PUBLISHED') throw badRequest(`${collection} ${id} is already published`);
      // §3: null or true publishes at once and ignores publish_date; false waits for publish_date.
      if (record.publish_immediately == null || isTrue(record.publish_immediately))
        return void goLive(row, { ...record, publish_date: now() });
      const at = Number(record.publish_date);
      if (record.publish_date == null || !Number.isFinite(at))
        throw badRequest(`${collection} ${id} has publish_immediately false and no publish_date to publish at`);
      if (at <= now()) return void goLive(row, record);
      // Scheduled for publish_date as it will be then: save keeps the schedule on it.
      save(row, { ...record, state: 'SCHEDULED', is_draft: true, current_state: 'SCHEDULED', processing_status: 'scheduled', updated: now() });
    })();
  }

  /** Publishes every scheduled object whose publish_date has come; returns how many. */
  function publishDue() {
    let n = 0;
    for (const row of q.due.all(now())) {
      goLive(row, JSON.parse(row.data) as Record_);
      n++;
    }
    return n;
  }

  // ---- versions ----

  const version = (v: { id: number; data: string; updated: number }) => ({ id: v.id, object: JSON.parse(v.data) as Record_, updated: v.updated, user: null });

  function listVersions(portalId: number, collection: CollectionName, id: number) {
    return q.versions.all(find(portalId, collection, id).id).map(version);
  }

  function getVersion(portalId: number, collection: CollectionName, id: number, versionId: number) {
    const v = q.versionById.get(find(portalId, collection, id).id, versionId);
    if (!v) throw notFound(`no version ${versionId} of ${collection} ${id}`);
    return version(v);
  }

  /** Brings back a version's content; the object's state (published, draft) stays as it is now. */
  function restoreVersion(portalId: number, collection: CollectionName, id: number, versionId: number) {
    return transaction(db, () => {
      const row = findLive(portalId, collection, id);
      const v = q.versionById.get(row.id, versionId);
      if (!v) throw notFound(`no version ${versionId} of ${collection} ${id}`);
      const live = JSON.parse(row.data) as Record_;
      const old = JSON.parse(v.data) as Record_;
      for (const k of COLLECTIONS[collection].serverFields) if (k in live) old[k] = live[k];
      // Derived fields (a folder's path) follow the restored content.
      return toRecord(save(row, applied(row, old, {})));
    })();
  }

  return {
    site,
    lookup,
    create,
    list,
    get: (portalId: number, collection: CollectionName, id: number) => toRecord(find(portalId, collection, id)),
    update,
    remove,
    restoreDeleted,
    getBuffer,
    updateBuffer,
    hasBufferedChanges,
    pushBufferLive,
    discardBuffer,
    validateBuffer,
    clone,
    publishAction,
    publishDue,
    listVersions,
    getVersion,
    restoreVersion,
    /** Calls `fn` with every post or page as it goes live (published now, or by the scheduler). */
    onLive: (fn: (collection: CollectionName, record: ContentRecord) => void) => void liveListeners.push(fn),
    /** Jobs run for an object (publishing's "send enabled emails and tweets"), oldest first. */
    history: (id: number) => q.historyOf.all(id),
    /** Every object of a collection that is not deleted (a portal's URL mappings, for the site server). */
    allLive: (portalId: number, collection: CollectionName) => q.allLive.all(portalId, collection).map((row) => toRecord(row)),
    /** The published post or page at `slug`, for the site server. */
    liveBySlug: (portalId: number, slug: string) => {
      const row = q.liveBySlug.get(portalId, slug);
      return row && toRecord(row);
    },
    /** Removes an object for good, with its versions and history (a file's full delete). */
    purge(portalId: number, collection: CollectionName, id: number) {
      const row = find(portalId, collection, id);
      q.purge.run(row.id);
      q.purgeVersions.run(row.id);
      q.purgeHistory.run(row.id);
    },
    /** Inserts an object as it is (seeding read-only collections, uploaded files). */
    insertRaw: (portalId: number, collection: CollectionName, record: Record_) => toRecord(insert(portalId, collection, record)),
  };
}

export type ContentEngine = ReturnType<typeof contentEngine>;
