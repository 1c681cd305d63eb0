/** A content object's versions: every save keeps one (objects.ts); listed, read, restored. */
import type { Queryable } from '../../db/engine';
import { notFound } from '../../domain/errors';
import { COLLECTIONS, type CollectionName, type Record_ } from './collections';
import type { ContentObjects } from './objects';

export function contentVersions({ q, find, findLive, toRecord, save, applied }: ContentObjects) {
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
  return { listVersions, getVersion, restoreVersion };
}
