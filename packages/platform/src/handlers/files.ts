/** Files and folders (§4.8): the routes that are more than the generic content verbs (uploads,
 * archive, full delete, moves; folder updates that keep subfolder paths right). The rest —
 * get, list, delete, restore-deleted, versions — are the generic ones of handlers/content.ts. */
import type { Handlers } from './handler';
import type { Services } from '../services';
import type { Record_ } from '../store/content/collections';

export function fileHandlers({ files, content }: Services): Handlers {
  return {
    'content.files.upload': ({ portalId, body, files: uploaded }) => files.upload(portalId, uploaded, body),
    'content.files.replace': ({ portalId, params, body, files: uploaded }) => files.replace(portalId, params.file_id, uploaded, body),
    // Archived files are hidden in the file manager: out of lists unless asked for.
    'content.files.list': ({ portalId, query }) => content.list(portalId, 'files', { archived: false, ...query }, FILE_FIELDS),
    'content.files.archive': ({ portalId, params }) => files.archive(portalId, params.file_id),
    'content.files.fullDelete': ({ portalId, params }) => files.fullDelete(portalId, params.file_id),
    'content.files.move': ({ portalId, params, body }) => files.move(portalId, params.file_id, body),
    'content.folders.update': ({ portalId, params, body }) => files.updateFolder(portalId, params.folder_id, body as Record_),
    'content.folders.move': ({ portalId, params, body }) => files.moveFolder(portalId, params.folder_id, body),
    'content.folders.delete': ({ portalId, params }) => files.removeFolder(portalId, params.folder_id),
    'content.folders.restoreVersion': ({ portalId, params, body }) => files.restoreFolderVersion(portalId, params.folder_id, body.version_id),
  };
}

/** What file lists filter and order on. */
const FILE_FIELDS: ReadonlySet<string> = new Set([
  'id', 'portal_id', 'created', 'updated', 'deleted_at', 'name', 'title', 'extension', 'type', 'size', 'width', 'height', 'folder_id', 'hidden', 'archived', 'file_hash',
]);
