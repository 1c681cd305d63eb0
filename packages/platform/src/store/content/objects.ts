/** Content objects as records, the parts every operation of the engine (engine.ts) shares: a row
 * read as its record (a post's author and comment count, its URLs), found for reading or for a
 * write, checked (a live URL is never held twice; a scheduled object has its publish_date) and
 * saved with a version, or inserted. */
import type { Engine, Queryable } from '../../db/engine';
import { badRequest, conflict, notFound } from '../../domain/errors';
import { COLLECTIONS, type CollectionName, type ContentRecord, type Lookup, type Record_ } from './collections';
import { contentSql, type Row } from './sql';

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
export function writable(collection: CollectionName, body: Record_) {
  const out: Record_ = {};
  const server = COLLECTIONS[collection].serverFields;
  for (const [k, v] of Object.entries(body)) if (v !== undefined && !server.includes(k)) out[k] = v;
  return out;
}

export const isTrue = (v: unknown) => v === true || v === 'true';
/** Equal as JSON values (records come from JSON). */
export const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
export const label = (collection: CollectionName) => collection.replace(/s$/, '').replace('-', ' ');

/** Where the site server answers until app.ts says otherwise (a record's URLs start with it). */
const DEFAULT_BASE = 'http://127.0.0.1:3200';

/** Comment counts of posts that have none. */
const NO_COMMENTS: ReadonlyMap<number, number> = new Map();

/** Every method takes where it runs (`db`: the engine, or a request's transaction) first. */
export function contentObjects(engine: Engine, now: () => number) {
  const { q, referring } = contentSql(engine.dialect);
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

  return { q, referring, now, site, commentCounts, toRecord, find, findLive, lookup, lookupIn, save, insert, applied };
}

export type ContentObjects = ReturnType<typeof contentObjects>;
