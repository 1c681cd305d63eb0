/** The auto-save buffer of content objects (§3, §4.8): an editor's changes kept beside the live
 * object, read, updated, validated, pushed live or discarded. */
import type { Queryable } from '../../db/engine';
import { badRequest, conflict } from '../../domain/errors';
import { COLLECTIONS, type CollectionName, type Record_ } from './collections';
import { type ContentObjects, label, same, writable } from './objects';
import type { Row } from './sql';

/** A buffer keeps the fields its writes set (`edits`) and, for each, the live value it was edited
 * against (`base`): pushing it live changes only those fields, so a live edit made meanwhile to
 * another field stays, and one made to the same field is noticed instead of overwritten. */
interface Edits {
  edits: Record_;
  base: Record_;
}
const EDITS = '$edits';
const BASE = '$base';

export function readBuffer(row: Row): Edits | undefined {
  if (!row.buffer) return undefined;
  const buffer = JSON.parse(row.buffer) as Record_;
  if (EDITS in buffer) return { edits: buffer[EDITS] as Record_, base: buffer[BASE] as Record_ };
  // A buffer saved before edits were kept apart is a whole record: its edits are where it differs.
  const live = JSON.parse(row.data) as Record_;
  const server = COLLECTIONS[row.collection].serverFields;
  const edits = Object.fromEntries(Object.entries(buffer).filter(([k, v]) => !server.includes(k) && !same(v, live[k])));
  return { edits, base: Object.fromEntries(Object.keys(edits).map((k) => [k, live[k]])) };
}
export const writeBuffer = ({ edits, base }: Edits) => JSON.stringify({ [EDITS]: edits, [BASE]: base });

/** The object as its editor sees it: the live record with the buffer's edits over it. */
const bufferView = (row: Row): Record_ => ({ ...(JSON.parse(row.data) as Record_), ...readBuffer(row)?.edits });

export function contentBuffer({ q, find, findLive, toRecord, save, applied, lookupIn }: ContentObjects) {
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
  return { getBuffer, updateBuffer, hasBufferedChanges, pushBufferLive, discardBuffer, validateBuffer };
}
