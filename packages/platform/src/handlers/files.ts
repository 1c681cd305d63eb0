/** Files and folders (§4.8): the routes that are more than the generic content verbs (uploads,
 * archive, full delete, moves; folder updates that keep subfolder paths right). The rest —
 * get, list, delete, restore-deleted, versions — are the generic ones of handlers/content.ts. */
import type { Handlers } from './handler';
import type { Services } from '../services/wiring';

export function fileHandlers({ files, content }: Services): Handlers {
  return {
    'content.files.upload': ({ db, portalId, body, files: uploaded }) => files.upload(db, portalId, uploaded, body),
    'content.files.replace': ({ db, portalId, params, body, files: uploaded }) =>
      files.replace(db, portalId, params.file_id, uploaded, body),
    // Archived files are hidden in the file manager: out of lists unless asked for.
    'content.files.list': ({ db, portalId, query }) =>
      content.list(db, portalId, 'files', { archived: false, ...query }, FILE_FIELDS),
    'content.files.archive': ({ db, portalId, params }) => files.archive(db, portalId, params.file_id),
    'content.files.fullDelete': ({ db, portalId, params }) => files.fullDelete(db, portalId, params.file_id),
    'content.files.move': ({ db, portalId, params, body }) => files.move(db, portalId, params.file_id, body),
    'content.folders.update': ({ db, portalId, params, body }) =>
      files.updateFolder(db, portalId, params.folder_id, body),
    'content.folders.move': ({ db, portalId, params, body }) => files.moveFolder(db, portalId, params.folder_id, body),
    'content.folders.delete': ({ db, portalId, params }) => files.removeFolder(db, portalId, params.folder_id),
    'content.folders.restoreVersion': ({ db, portalId, params, body }) =>
      files.restoreFolderVersion(db, portalId, params.folder_id, body.version_id),
  };
}

/** What file lists filter and order on. */
const FILE_FIELDS: ReadonlySet<string> = new Set([
  'id',
  'portal_id',
  'created',
  'updated',
  'deleted_at',
  'name',
  'title',
  'extension',
  'type',
  'size',
  'width',
  'height',
  'folder_id',
  'hidden',
  'archived',
  'file_hash',
]);
