/** The content-object engine shared by every collection of §4.8: create, list (paging, filters,
 * order), get, update, soft delete and restore, the auto-save buffer, version history, clone, and
 * the publishing state machine of §3 for posts and pages (with the scheduler that publishes at
 * `publish_date`). Collection specifics live in collections.ts. */
import { type Engine, type Param, type Queryable, sql } from '../../db/engine';
import { badRequest, conflict, notFound } from '../../domain/errors';
import { COLLECTIONS, type CollectionName, type ContentRecord, type Lookup, type Record_ } from './collections';
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
const OUTSIDE_JSON = new Set([
  'id',
  'portal_id',
  'deleted_at',
  'url',
  'published_url',
  'friendly_url',
  'alt_url',
  's3_url',
  'root_url',
  'blog_author',
  'comment_count',
]);

/** The record's JSON without the keys held elsewhere: the others copied to a new object (deleting
 * them from a copy made V8 keep it as a slow dictionary, which JSON.stringify reads slower). */
function stored(record: Record_) {
  const copy: Record_ = {};
  for (const k in record) if (!OUTSIDE_JSON.has(k)) copy[k] = record[k];
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

/** Where the site server answers until app.ts says otherwise (a record's URLs start with it). */
const DEFAULT_BASE = 'http://127.0.0.1:3200';

export type PublishAction = 'schedule-publish' | 'cancel-publish' | 'push-buffer-live';

/** A job run when a post or page goes live, in its transaction: resolves to what it did (a line
 * of the object's history), or undefined when it did nothing. */
export type LiveJob = (db: Queryable, collection: CollectionName, record: ContentRecord) => Promise<string | undefined>;

/** Comment counts of posts that have none. */
const NO_COMMENTS: ReadonlyMap<number, number> = new Map();

/** Every method takes where it runs (`db`: the engine, or a request's transaction) first. */
export function contentEngine(engine: Engine, now: () => number) {
  const d = engine.dialect;
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
  /** Where the site server answers: the platform's public URL, or the address it listens on (set
   * by app.ts). Every URL in a record (a post's, a file's, a blog's root) starts with it. */
  const site = { base: DEFAULT_BASE };

  /** Live comments per post id. */
  async function commentCounts(db: Queryable, portalId: number, postIds: number[]) {
    return new Map((await db.all(q.commentCounts, portalId, JSON.stringify(postIds))).map((r) => [r.post, r.n]));
  }

  /** What a post shows of other objects, read fresh so it never goes stale: its author (the
   * record, or null) and how many live comments it has. `counts` comes from a list's one query. */
  async function relate(db: Queryable, record: ContentRecord, counts?: ReadonlyMap<number, number>) {
    counts ??= await commentCounts(db, Number(record.portal_id), [record.id]);
    const authorId = record.blog_author_id;
    const author =
      authorId == null ? undefined : await lookup.get(db, Number(record.portal_id), 'blog-authors', Number(authorId));
    record.blog_author = author ?? null;
    record.comment_count = counts.get(record.id) ?? 0;
  }

  async function toRecord(db: Queryable, row: Row, counts?: ReadonlyMap<number, number>): Promise<ContentRecord> {
    // The columns assigned to the parsed object itself, not to a spread copy of it: V8 leaves a
    // spread object no room to grow, and adding to it is slow.
    const record: ContentRecord = Object.assign(JSON.parse(row.data) as Record_, {
      id: row.id,
      portal_id: row.portal_id,
      deleted_at: row.deleted_at,
    });
    if (row.collection == 'blog-posts') await relate(db, record, counts);
    if (COLLECTIONS[row.collection].publishable) {
      // §2.1: the URL is known from the start; it answers 404 until the post is published.
      record.url = `${site.base}/sites/${row.portal_id}/${String(record.slug)}`;
      record.published_url = record.state == 'PUBLISHED' ? record.url : '';
    }
    COLLECTIONS[row.collection].decorate?.(record, { id: row.id, portalId: row.portal_id, base: site.base });
    return record;
  }

  /** The object's row; `forWrite`: read to be changed in the transaction `db` runs in. */
  async function find(db: Queryable, portalId: number, collection: CollectionName, id: number, forWrite = false) {
    const row = await db.get(forWrite ? q.byIdForWrite : q.byId, portalId, collection, id);
    if (!row) throw notFound(`no ${label(collection)} with id ${id}`);
    return row;
  }

  /** A row that may be changed: deleted objects only come back through restore-deleted. */
  async function findLive(db: Queryable, portalId: number, collection: CollectionName, id: number) {
    const row = await find(db, portalId, collection, id, true);
    if (row.deleted_at) throw badRequest(`${collection} ${id} is deleted; restore it first (POST .../restore-deleted)`);
    return row;
  }

  const lookup = {
    async get(db: Queryable, portalId: number, collection: CollectionName, id: number) {
      const row = Number.isInteger(id) ? await db.get(q.byId, portalId, collection, id) : undefined;
      return row && !row.deleted_at ? toRecord(db, row) : undefined;
    },
    async folderByPath(db: Queryable, portalId: number, fullPath: string) {
      const row = await db.get(q.folderByPath, portalId, fullPath);
      return row && toRecord(db, row);
    },
  };
  /** What the collections' rules look up, where the write they check runs. */
  const lookupIn = (db: Queryable): Lookup => ({
    get: (portalId, collection, id) => lookup.get(db, portalId, collection, id),
    folderByPath: (portalId, fullPath) => lookup.folderByPath(db, portalId, fullPath),
  });

  /** The URL a post or page holds: its slug while it is published or scheduled (not deleted). */
  function urlOf(collection: CollectionName, record: Record_, deletedAt: number) {
    const holds =
      COLLECTIONS[collection].publishable && !deletedAt && (record.state == 'PUBLISHED' || record.state == 'SCHEDULED');
    return holds ? String(record.slug) : undefined;
  }

  /** Two live objects never share a URL: an object that comes to hold one (published, scheduled,
   * restored, or its slug changed while live) must find it free. Drafts may share slugs. */
  async function checkUrlFree(db: Queryable, row: Row, record: Record_, deletedAt: number) {
    const slug = urlOf(row.collection, record, deletedAt);
    if (slug === undefined || slug === urlOf(row.collection, JSON.parse(row.data) as Record_, row.deleted_at)) return;
    const other = await db.get(q.urlHolder, row.portal_id, slug, row.id);
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
      throw badRequest(
        `body.publish_date: ${label(row.collection)} ${row.id} is scheduled and needs a publish_date (cancel-publish first to clear it)`,
      );
    return at;
  }

  /** Writes the live record (and the buffer, deletion) and keeps a version of it; the schedule
   * follows the record's state and publish_date. */
  async function save(
    db: Queryable,
    row: Row,
    record: Record_,
    changes: Partial<Pick<Row, 'buffer' | 'deleted_at'>> = {},
  ) {
    const next = { ...row, ...changes, data: stored(record) };
    await checkUrlFree(db, row, record, next.deleted_at);
    next.publish_at = publishAt(row, record, next.deleted_at);
    await db.run(q.save, next.data, next.buffer, next.deleted_at, next.publish_at, row.id);
    await db.run(q.version, row.id, JSON.stringify(await toRecord(db, next)), Number(record.updated));
    return next;
  }

  /** Inserts a new object and keeps its first version; resolves to its record. */
  async function insert(db: Queryable, portalId: number, collection: CollectionName, record: Record_) {
    const data = stored(record);
    const id = (await db.insert(q.insert, portalId, collection, data))!;
    // The row as inserted (the columns' defaults), without reading it back; a new post has no
    // comments to count.
    const made = await toRecord(
      db,
      { id, portal_id: portalId, collection, data, buffer: null, deleted_at: 0, publish_at: null },
      NO_COMMENTS,
    );
    await db.run(q.version, id, JSON.stringify(made), Number(record.updated));
    return made;
  }

  function create(db: Queryable, portalId: number, collection: CollectionName, body: Record_) {
    return db.tx(async (t) => {
      const c = COLLECTIONS[collection];
      const record = { ...c.defaults(body, now(), portalId), ...writable(collection, body) };
      await c.complete?.(record, lookupIn(t), portalId);
      return insert(t, portalId, collection, record);
    });
  }

  /** The live record with `body` applied (not saved), checked against the live record it changes. */
  async function applied(db: Queryable, row: Row, base: Record_, body: Record_) {
    const record = { ...base, ...writable(row.collection, body), updated: now() };
    await COLLECTIONS[row.collection].complete?.(
      record,
      lookupIn(db),
      row.portal_id,
      row.id,
      JSON.parse(row.data) as Record_,
    );
    return record;
  }

  function update(db: Queryable, portalId: number, collection: CollectionName, id: number, body: Record_) {
    return db.tx(async (t) => {
      const row = await findLive(t, portalId, collection, id);
      // §3: updating never publishes, whatever publish_date says; a scheduled object moves with it.
      return toRecord(t, await save(t, row, await applied(t, row, JSON.parse(row.data) as Record_, body)));
    });
  }

  async function list(
    db: Queryable,
    portalId: number,
    collection: CollectionName,
    query: Record_,
    fields: ReadonlySet<string>,
  ) {
    const { where, args, order } = listSql(query, fields, d);
    const limit = Number(query.limit ?? 20);
    const offset = Number(query.offset ?? 0);
    // List queries differ only in their filters: the engine prepares each shape once.
    const from = `FROM content_objects WHERE portal_id = ? AND collection = ? AND ${where.join(' AND ')}`;
    const total = Number(
      await db.value(sql<Param[], { n: number }>(`SELECT count(*) AS n ${from}`), portalId, collection, ...args),
    );
    const rows = await db.all(
      sql<Param[], Row>(`SELECT ${COLS} ${from} ORDER BY ${order} LIMIT ? OFFSET ?`),
      portalId,
      collection,
      ...args,
      limit,
      offset,
    );
    const counts =
      collection == 'blog-posts'
        ? await commentCounts(
            db,
            portalId,
            rows.map((r) => r.id),
          )
        : undefined;
    const objects: ContentRecord[] = [];
    for (const row of rows) objects.push(await toRecord(db, row, counts));
    return { limit, offset, total, total_count: total, objects };
  }

  function remove(db: Queryable, portalId: number, collection: CollectionName, id: number) {
    return db.tx(async (t) => {
      const row = await findLive(t, portalId, collection, id);
      // A deleted scheduled post is not published by the scheduler (save drops its schedule).
      await save(t, row, { ...(JSON.parse(row.data) as Record_), updated: now() }, { deleted_at: now() });
      await dropReferencesTo(t, row);
    });
  }

  /** What refers to a deleted object lets go of it (a post's topic or author), so that those objects
   * stay editable and publishable; restoring the object does not bring the references back. */
  async function dropReferencesTo(db: Queryable, row: Row) {
    for (const ref of COLLECTIONS[row.collection].referencedBy ?? []) {
      const drop = (value: unknown) =>
        ref.list
          ? Array.isArray(value)
            ? value.filter((v) => Number(v) !== row.id)
            : value
          : Number(value) === row.id
            ? null
            : value;
      const without = (record: Record_) =>
        ref.field in record ? { ...record, [ref.field]: drop(record[ref.field]) } : record;
      for (const other of await db.all(referring(ref.field), row.portal_id, ref.collection, row.id)) {
        const live = JSON.parse(other.data) as Record_;
        const edits = readBuffer(other);
        const buffer = edits ? writeBuffer({ edits: without(edits.edits), base: without(edits.base) }) : null;
        if (!same(without(live), live)) await save(db, other, { ...without(live), updated: now() }, { buffer });
        else if (buffer !== other.buffer)
          await db.run(q.save, other.data, buffer, other.deleted_at, other.publish_at, other.id);
      }
    }
  }

  function restoreDeleted(db: Queryable, portalId: number, collection: CollectionName, id: number) {
    return db.tx(async (t) => {
      const row = await find(t, portalId, collection, id, true);
      if (!row.deleted_at) throw badRequest(`${collection} ${id} is not deleted`);
      const record = JSON.parse(row.data) as Record_;
      // A post that was scheduled when deleted comes back as a draft: nothing publishes behind one's back.
      if (record.state == 'SCHEDULED')
        Object.assign(record, { state: 'DRAFT', is_draft: true, current_state: 'DRAFT' });
      // Checked as a save is: a folder's path (its parent may have moved) must be free, a live
      // post's URL too (save).
      return toRecord(t, await save(t, row, await applied(t, row, record, {}), { deleted_at: 0 }));
    });
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
    const edits = Object.fromEntries(
      Object.entries(buffer).filter(([k, v]) => !server.includes(k) && !same(v, live[k])),
    );
    return { edits, base: Object.fromEntries(Object.keys(edits).map((k) => [k, live[k]])) };
  }
  const writeBuffer = ({ edits, base }: Edits) => JSON.stringify({ [EDITS]: edits, [BASE]: base });

  /** The object as its editor sees it: the live record with the buffer's edits over it. */
  const bufferView = (row: Row): Record_ => ({ ...(JSON.parse(row.data) as Record_), ...readBuffer(row)?.edits });

  async function getBuffer(db: Queryable, portalId: number, collection: CollectionName, id: number) {
    const row = await find(db, portalId, collection, id);
    return toRecord(db, { ...row, data: JSON.stringify(bufferView(row)) });
  }

  function updateBuffer(db: Queryable, portalId: number, collection: CollectionName, id: number, body: Record_) {
    return db.tx(async (t) => {
      const row = await findLive(t, portalId, collection, id);
      const live = JSON.parse(row.data) as Record_;
      const { edits, base } = readBuffer(row) ?? { edits: {}, base: {} };
      // An auto-save holds whatever the editor has: checked by validate-buffer and on push, not here.
      const changes = writable(collection, body);
      const next = writeBuffer({
        edits: { ...edits, ...changes },
        base: { ...base, ...Object.fromEntries(Object.keys(changes).map((k) => [k, live[k]])) },
      });
      // The live object is not affected (§3): only the buffer column changes, no version.
      await t.run(q.save, row.data, next, row.deleted_at, row.publish_at, row.id);
      return toRecord(t, { ...row, data: JSON.stringify(bufferView({ ...row, buffer: next })) });
    });
  }

  async function hasBufferedChanges(db: Queryable, portalId: number, collection: CollectionName, id: number) {
    const row = await find(db, portalId, collection, id);
    const live = JSON.parse(row.data) as Record_;
    return { has_buffered_changes: Object.entries(readBuffer(row)?.edits ?? {}).some(([k, v]) => !same(v, live[k])) };
  }

  /** Copies the buffer's edits into the live object (then applies `body`, for the PUT variant).
   * A field edited both in the buffer and on the live object since (and not set by `body`) is a
   * 409 naming it: the editor edits it in the buffer again (which takes the live value as seen) or
   * discards the buffer. */
  function pushBufferLive(db: Queryable, portalId: number, collection: CollectionName, id: number, body: Record_ = {}) {
    return db.tx(async (t) => {
      const row = await findLive(t, portalId, collection, id);
      const live = JSON.parse(row.data) as Record_;
      const { edits, base } = readBuffer(row) ?? { edits: {}, base: {} };
      const given = writable(collection, body);
      const clashes = Object.keys(edits).filter(
        (k) => !(k in given) && !same(live[k], base[k]) && !same(live[k], edits[k]),
      );
      if (clashes.length)
        throw conflict(
          `${clashes.join(', ')} changed on the live ${label(collection)} after the buffer's edit: edit ${clashes.length > 1 ? 'them' : 'it'} in the buffer again (PUT .../buffer) or discard the buffer`,
          { fields: clashes },
        );
      // The state machine's fields are not in the edits: pushing the buffer is a save, not a publish.
      return toRecord(t, await save(t, row, await applied(t, row, { ...live, ...edits }, body), { buffer: null }));
    });
  }

  /** Drops the buffer; answers with the live (previously published) object. */
  function discardBuffer(db: Queryable, portalId: number, collection: CollectionName, id: number) {
    return db.tx(async (t) => {
      const row = await find(t, portalId, collection, id, true);
      await t.run(q.save, row.data, null, row.deleted_at, row.publish_at, row.id);
      return toRecord(t, { ...row, buffer: null });
    });
  }

  /** The buffer would make a valid live object (the checks a save runs). */
  async function validateBuffer(db: Queryable, portalId: number, collection: CollectionName, id: number) {
    const row = await find(db, portalId, collection, id);
    const buffer = bufferView(row);
    if (!buffer.name) throw badRequest('buffer.name: is required');
    await COLLECTIONS[collection].complete?.(buffer, lookupIn(db), portalId, row.id, JSON.parse(row.data) as Record_);
    return { succeeded: true as const };
  }

  function clone(db: Queryable, portalId: number, collection: CollectionName, id: number, name: string) {
    return db.tx(async (t) => {
      const source = JSON.parse((await findLive(t, portalId, collection, id)).data) as Record_;
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
      await c.complete?.(record, lookupIn(t), portalId);
      return insert(t, portalId, collection, record);
    });
  }

  // ---- publishing (§3) ----

  const PUBLISHED = { state: 'PUBLISHED', is_draft: false, current_state: 'PUBLISHED', processing_status: 'published' };
  const DRAFT = { state: 'DRAFT', is_draft: true, current_state: 'DRAFT', processing_status: 'draft' };

  /** Told of every object that goes live, in the same transaction: the jobs going live sets off
   * (§3; services send its tweets). Each resolves to what it did, for the history, or undefined
   * when it did nothing. */
  const liveListeners: LiveJob[] = [];

  /** Goes live now and runs the jobs §3 has publishing set off ("sends any enabled emails and
   * tweets"); the history records each job that did something, named for what it did, and
   * nothing when none did (nothing here sends a publish's emails: there is no mail server). */
  async function goLive(db: Queryable, row: Row, record: Record_) {
    const at = now();
    const next = await save(db, row, {
      ...record,
      ...PUBLISHED,
      publish_date: record.publish_date ?? at,
      unpublished_at: null,
      updated: at,
    });
    const live = await toRecord(db, next);
    for (const job of liveListeners) {
      const done = await job(db, row.collection, live);
      if (done) await db.run(q.history, row.id, done, at);
    }
    return next;
  }

  function publishAction(
    db: Queryable,
    portalId: number,
    collection: CollectionName,
    id: number,
    action: PublishAction,
  ) {
    return db.tx(async (t) => {
      const row = await findLive(t, portalId, collection, id);
      const record = JSON.parse(row.data) as Record_;
      if (action == 'push-buffer-live') return void (await pushBufferLive(t, portalId, collection, id));
      if (action == 'cancel-publish') {
        if (record.state == 'DRAFT') throw badRequest(`${collection} ${id} is neither scheduled nor published`);
        const unpublished = record.state == 'PUBLISHED' ? { unpublished_at: now() } : {};
        return void (await save(t, row, { ...record, ...DRAFT, ...unpublished, updated: now() }));
      }
      if (record.state == 'PUBLISHED') throw badRequest(`${collection} ${id} is already published`);
      // §3: null or true publishes at once and ignores publish_date; false waits for publish_date.
      if (record.publish_immediately == null || isTrue(record.publish_immediately))
        return void (await goLive(t, row, { ...record, publish_date: now() }));
      const at = Number(record.publish_date);
      if (record.publish_date == null || !Number.isFinite(at))
        throw badRequest(`${collection} ${id} has publish_immediately false and no publish_date to publish at`);
      if (at <= now()) return void (await goLive(t, row, record));
      // Scheduled for publish_date as it will be then: save keeps the schedule on it.
      await save(t, row, {
        ...record,
        state: 'SCHEDULED',
        is_draft: true,
        current_state: 'SCHEDULED',
        processing_status: 'scheduled',
        updated: now(),
      });
    });
  }

  /** Publishes every scheduled object whose publish_date has come; returns how many. Two runs at
   * once (two processes) read different objects (forUpdateSkipLocked); the claim keeps an object
   * that changed since it was read (published, rescheduled, cancelled) from going live here. */
  async function publishDue(db: Queryable) {
    let n = 0;
    for (const row of await db.all(q.due, now())) {
      if (!(await db.run(q.claim, row.id, row.publish_at!))) continue;
      await goLive(db, row, JSON.parse(row.data) as Record_);
      n++;
    }
    return n;
  }

  // ---- versions ----

  const version = (v: { id: number; data: string; updated: number }) => ({
    id: v.id,
    object: JSON.parse(v.data) as Record_,
    updated: v.updated,
    user: null,
  });

  async function listVersions(db: Queryable, portalId: number, collection: CollectionName, id: number) {
    return (await db.all(q.versions, (await find(db, portalId, collection, id)).id)).map(version);
  }

  async function getVersion(
    db: Queryable,
    portalId: number,
    collection: CollectionName,
    id: number,
    versionId: number,
  ) {
    const v = await db.get(q.versionById, (await find(db, portalId, collection, id)).id, versionId);
    if (!v) throw notFound(`no version ${versionId} of ${collection} ${id}`);
    return version(v);
  }

  /** Brings back a version's content; the object's state (published, draft) stays as it is now. */
  function restoreVersion(db: Queryable, portalId: number, collection: CollectionName, id: number, versionId: number) {
    return db.tx(async (t) => {
      const row = await findLive(t, portalId, collection, id);
      const v = await t.get(q.versionById, row.id, versionId);
      if (!v) throw notFound(`no version ${versionId} of ${collection} ${id}`);
      const live = JSON.parse(row.data) as Record_;
      const old = JSON.parse(v.data) as Record_;
      for (const k of COLLECTIONS[collection].serverFields) if (k in live) old[k] = live[k];
      // Derived fields (a folder's path) follow the restored content.
      return toRecord(t, await save(t, row, await applied(t, row, old, {})));
    });
  }

  return {
    site,
    lookup,
    create,
    list,
    get: async (db: Queryable, portalId: number, collection: CollectionName, id: number) =>
      toRecord(db, await find(db, portalId, collection, id)),
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
    /** Runs `job` for every post or page as it goes live (published now, or by the scheduler). */
    onLive: (job: LiveJob) => void liveListeners.push(job),
    /** What the jobs run when an object went live did (`send tweets (…)`), oldest first. */
    history: (db: Queryable, id: number) => db.all(q.historyOf, id),
    /** Every object of a collection that is not deleted (a portal's URL mappings, for the site server). */
    async allLive(db: Queryable, portalId: number, collection: CollectionName) {
      const out: ContentRecord[] = [];
      for (const row of await db.all(q.allLive, portalId, collection)) out.push(await toRecord(db, row));
      return out;
    },
    /** The published post or page at `slug`, for the site server. */
    async liveBySlug(db: Queryable, portalId: number, slug: string) {
      const row = await db.get(q.liveBySlug, portalId, slug);
      return row && toRecord(db, row);
    },
    /** Removes an object for good, with its versions and history (a file's full delete). */
    async purge(db: Queryable, portalId: number, collection: CollectionName, id: number) {
      const row = await find(db, portalId, collection, id);
      await db.run(q.purge, row.id);
      await db.run(q.purgeVersions, row.id);
      await db.run(q.purgeHistory, row.id);
    },
    /** Inserts an object as it is (seeding read-only collections, uploaded files). */
    insertRaw: (db: Queryable, portalId: number, collection: CollectionName, record: Record_) =>
      insert(db, portalId, collection, record),
  };
}

export type ContentEngine = ReturnType<typeof contentEngine>;
