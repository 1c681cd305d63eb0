/** The content-object engine shared by every collection of §4.8: create, list (paging, filters,
 * order), get, update, soft delete and restore, clone; with the auto-save buffer (buffer.ts),
 * version history (versions.ts) and the publishing state machine of §3 for posts and pages, with
 * the scheduler that publishes at `publish_date` (publishing.ts), over the records of objects.ts.
 * Collection specifics live in collections.ts. */
import { type Engine, type Param, type Queryable, sql } from '../../db/engine';
import { badRequest } from '../../domain/errors';
import { contentBuffer, readBuffer, writeBuffer } from './buffer';
import { COLLECTIONS, type CollectionName, type ContentRecord, type Record_ } from './collections';
import { listSql } from './filters';
import { contentObjects, same, writable } from './objects';
import { contentPublishing, type LiveJob } from './publishing';
import { COLS, type Row } from './sql';
import { contentVersions } from './versions';

export type { LiveJob, PublishAction } from './publishing';

/** Every method takes where it runs (`db`: the engine, or a request's transaction) first. */
export function contentEngine(engine: Engine, now: () => number) {
  const d = engine.dialect;
  const objects = contentObjects(engine, now);
  const { q, referring, site, lookup, lookupIn, commentCounts, toRecord, find, findLive, save, insert, applied } =
    objects;
  const buffer = contentBuffer(objects);
  const publishing = contentPublishing(objects, buffer.pushBufferLive);
  const versions = contentVersions(objects);

  function create(db: Queryable, portalId: number, collection: CollectionName, body: Record_) {
    return db.tx(async (t) => {
      const c = COLLECTIONS[collection];
      const record = { ...c.defaults(body, now(), portalId), ...writable(collection, body) };
      await c.complete?.(record, lookupIn(t), portalId);
      return insert(t, portalId, collection, record);
    });
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
    ...buffer,
    clone,
    publishAction: publishing.publishAction,
    publishDue: publishing.publishDue,
    ...versions,
    /** Runs `job` for every post or page as it goes live (published now, or by the scheduler). */
    onLive: (job: LiveJob) => publishing.onLive(job),
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
