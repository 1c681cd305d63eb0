/** Files and folders (§4.8, reference §9.10) on the content engine: uploads and replacements
 * (bytes in the blob store, metadata as a content object with versions), archive, soft and full
 * delete, moves; folders with paths (`/docs/logos`) found or made on upload, moved with their
 * subfolders' paths kept right. */
import { imageSize } from 'image-size';
import { type Engine, type Queryable, sql } from '../../db/engine';
import { PlatformError, badRequest } from '../../domain/errors';
import { checkName, type Record_ } from '../content/collections';
import type { ContentEngine } from '../content/engine';
import type { BlobStore } from './blobs';

/** A file part of an upload (http/multipart.ts reads them). */
export interface UploadedFile {
  /** The multipart field it came in (`files`). */
  field: string;
  filename: string;
  mimeType: string;
  bytes: Buffer;
}

/** What may be uploaded, by MIME type: media, documents, text, archives, fonts — nothing a
 * browser would run (HTML, scripts) and no executables. */
const ALLOWED = [
  /^image\/(png|jpeg|gif|webp|svg\+xml|bmp|x-icon|vnd\.microsoft\.icon|avif|tiff)$/,
  /^audio\//,
  /^video\//,
  /^font\//,
  /^text\/(plain|csv|css|markdown)$/,
  /^application\/(pdf|json|zip|gzip|x-gzip|xml|rtf|msword|vnd\.[\w.+-]+)$/,
];
/** Types too generic to trust: the file name's extension decides. */
const BY_EXTENSION: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
  txt: 'text/plain',
  csv: 'text/csv',
  css: 'text/css',
  md: 'text/markdown',
  json: 'application/json',
  zip: 'application/zip',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  mp4: 'video/mp4',
  webm: 'video/webm',
  woff2: 'font/woff2',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

const kind = (mime: string) =>
  mime.startsWith('image/')
    ? 'IMG'
    : mime.startsWith('audio/')
      ? 'AUDIO'
      : mime.startsWith('video/')
        ? 'MOVIE'
        : /^(text\/|application\/(pdf|msword|rtf|vnd\.))/.test(mime)
          ? 'DOCUMENT'
          : 'OTHER';

/** `logo.png` → `['logo', 'png']`; `README` → `['README', '']`. */
function splitName(full: string): [string, string] {
  const dot = full.lastIndexOf('.');
  return dot > 0 ? [full.slice(0, dot), full.slice(dot + 1).toLowerCase()] : [full, ''];
}

/** An image's pixel size, read from its header; null for other files and for images it cannot
 * read (a broken or unusual file is still stored, it just has no size). */
function dimensions(bytes: Buffer, mime: string) {
  const none = { width: null, height: null };
  if (!mime.startsWith('image/')) return none;
  try {
    const { width, height } = imageSize(bytes);
    return Number.isFinite(width) && Number.isFinite(height) ? { width, height } : none;
  } catch {
    return none;
  }
}

/** The upload's type, checked against what is allowed (415 otherwise). */
function contentType(file: UploadedFile, extension: string, field: string) {
  let mime = file.mimeType.toLowerCase();
  if (mime == 'application/octet-stream' || !mime) mime = BY_EXTENSION[extension] ?? mime;
  if (!ALLOWED.some((re) => re.test(mime)))
    throw new PlatformError('unsupported-type', `${field}: files of type ${mime || 'unknown'} cannot be uploaded`, {
      category: 'VALIDATION_ERROR',
    });
  return mime;
}

export interface UploadFields {
  file_names?: string;
  folder_paths?: string;
  folder_id?: number;
  overwrite?: boolean;
  hidden?: boolean;
  options?: { access?: string; overwrite?: boolean; duplicateValidationStrategy?: string };
}

/** Every method takes where it runs (`db`: the engine, or a request's transaction) first. */
export function fileStore(engine: Engine, content: ContentEngine, blobs: BlobStore, now: () => number) {
  const { jsonText, jsonNumber } = engine.dialect;
  const q = {
    sameName: sql<[number, string, string, number | null], { id: number }>(
      `SELECT id FROM content_objects WHERE portal_id = ? AND collection = 'files' AND deleted_at = 0
       AND ${jsonText('data', '$.name')} = ? AND ${jsonText('data', '$.extension')} = ? AND ${jsonNumber('data', '$.folder_id')} IS NOT DISTINCT FROM ?`,
    ),
    hashUsed: sql<[number, string], { n: number }>(
      `SELECT count(*) AS n FROM content_objects WHERE portal_id = ? AND collection = 'files' AND ${jsonText('data', '$.file_hash')} = ?`,
    ),
    children: sql<[number, number], { id: number; collection: string }>(
      `SELECT id, collection FROM content_objects WHERE portal_id = ? AND collection IN ('files', 'folders') AND deleted_at = 0
       AND (CASE collection WHEN 'files' THEN ${jsonNumber('data', '$.folder_id')} ELSE ${jsonNumber('data', '$.parent_folder_id')} END) = ?`,
    ),
  };

  /** The folder at `/a/b/c`, made (with its parents) when missing. */
  async function folderAt(db: Queryable, portalId: number, path: string, field: string) {
    const segments = path.split('/').filter(Boolean);
    let parent: Record_ | undefined;
    let at = '';
    for (const [i, name] of segments.entries()) {
      checkName(name, `${field} (segment ${i + 1})`);
      at += `/${name}`;
      parent =
        (await content.lookup.folderByPath(db, portalId, at)) ??
        (await content.create(db, portalId, 'folders', { name, parent_folder_id: parent?.id ?? null }));
    }
    return parent ? Number(parent.id) : null;
  }

  async function folderId(
    db: Queryable,
    portalId: number,
    fields: { folder_id?: number; folder_path?: string },
    names: { id: string; path: string },
  ) {
    if (fields.folder_id !== undefined) {
      if (!(await content.lookup.get(db, portalId, 'folders', fields.folder_id)))
        throw badRequest(`${names.id}: no folder with id ${fields.folder_id}`);
      return fields.folder_id;
    }
    return fields.folder_path === undefined ? undefined : folderAt(db, portalId, fields.folder_path, names.path);
  }

  /** The name and type of an upload, checked (nothing is written yet). */
  function check(file: UploadedFile, fullName: string, field: string) {
    const [name, extension] = splitName(checkName(fullName, field));
    return { file, name, extension, mime: contentType(file, extension, field), field };
  }

  /** Stores checked bytes; what a file record says about its content. */
  function store(portalId: number, c: ReturnType<typeof check>) {
    const hash = blobs.put(portalId, c.file.bytes);
    const { name, extension, mime } = c;
    const size = { size: c.file.bytes.length, ...dimensions(c.file.bytes, mime) };
    return {
      name,
      title: name,
      extension,
      type: kind(mime),
      mime_type: mime,
      ...size,
      file_hash: hash,
      alt_key: name,
      cloud_key: `hub/${portalId}/${hash}`,
    };
  }

  return {
    async upload(db: Queryable, portalId: number, files: UploadedFile[], fields: UploadFields) {
      const parts = files.filter((f) => f.field == 'files');
      if (!parts.length) throw badRequest('files: give at least one file in the multipart part "files"');
      return db.tx(async (t) => {
        const folder =
          (await folderId(
            t,
            portalId,
            { folder_id: fields.folder_id, folder_path: fields.folder_paths },
            { id: 'body.folder_id', path: 'body.folder_paths' },
          )) ?? null;
        const overwrite = fields.overwrite ?? fields.options?.overwrite ?? false;
        const strategy = fields.options?.duplicateValidationStrategy ?? 'NONE';
        // Every part is checked before any byte is written: a refused upload leaves nothing behind.
        const checked = parts.map((part, i) =>
          // file_names names the first file; the others keep the names they came with.
          i == 0 && fields.file_names !== undefined
            ? check(part, fields.file_names, 'body.file_names')
            : check(part, part.filename, `files.${i}.filename`),
        );
        const objects = [];
        for (const c of checked) objects.push(await uploadOne(t, c));
        async function uploadOne(t: Queryable, c: ReturnType<typeof check>) {
          const { field } = c;
          const meta = store(portalId, c);
          const same = await t.get(q.sameName, portalId, meta.name, meta.extension, folder);
          if (same && overwrite) return content.update(t, portalId, 'files', same.id, meta);
          if (same && strategy == 'RETURN_EXISTING') return content.get(t, portalId, 'files', same.id);
          if (same && strategy == 'REJECT')
            throw new PlatformError(
              'conflict',
              `${field}: a file ${meta.name}.${meta.extension} exists in this folder`,
            );
          // Otherwise a second file of the same name gets a number: logo-1.png.
          let name = meta.name;
          for (let n = 1; await t.get(q.sameName, portalId, name, meta.extension, folder); n++)
            name = `${meta.name}-${n}`;
          const at = now();
          return content.insertRaw(t, portalId, 'files', {
            created: at,
            updated: at,
            ...meta,
            name,
            title: name,
            alt_key: name,
            encoding: null,
            folder_id: folder,
            hidden: fields.hidden ?? false,
            archived: false,
            meta: { allows_anonymous_access: fields.options?.access != 'PRIVATE', url_scheme: 'HTTP', thumbs: null },
          });
        }
        return { objects };
      });
    },

    /** New bytes for a file: same id and URL, a new version. */
    async replace(db: Queryable, portalId: number, id: number, files: UploadedFile[], fields: UploadFields) {
      const part = files.find((f) => f.field == 'files');
      if (!part) throw badRequest('files: give the new file in the multipart part "files"');
      const current = await content.get(db, portalId, 'files', id);
      const fullName =
        fields.file_names ??
        (current.extension ? `${String(current.name)}.${String(current.extension)}` : String(current.name));
      const checked = check(part, fullName, 'body.file_names');
      return db.tx((t) => content.update(t, portalId, 'files', id, store(portalId, checked)));
    },

    archive: (db: Queryable, portalId: number, id: number) =>
      content.update(db, portalId, 'files', id, { archived: true }),

    /** Gone for good: the record, its versions, and the bytes unless another file has the same. */
    async fullDelete(db: Queryable, portalId: number, id: number) {
      await db.tx(async (t) => {
        const file = await content.get(t, portalId, 'files', id);
        await content.purge(t, portalId, 'files', id);
        const hash = String(file.file_hash);
        if (!(await t.value(q.hashUsed, portalId, hash))) blobs.remove(portalId, hash);
      });
    },

    move(
      db: Queryable,
      portalId: number,
      id: number,
      body: { folder_path?: string; folder_id?: number; name?: string },
    ) {
      return db.tx(async (t) => {
        const current = await content.get(t, portalId, 'files', id);
        const change: Record_ = {};
        const folder = await folderId(t, portalId, body, { id: 'body.folder_id', path: 'body.folder_path' });
        if (folder !== undefined) change.folder_id = folder;
        if (body.name !== undefined) {
          const [name, extension] = splitName(checkName(body.name, 'body.name'));
          Object.assign(change, { name, title: name, alt_key: name, extension: extension || current.extension });
        }
        return content.update(t, portalId, 'files', id, change);
      });
    },

    /** The bytes behind a file's URL, while it is not deleted (archived files stay reachable). */
    async bytes(db: Queryable, portalId: number, id: number) {
      const file = await content.lookup.get(db, portalId, 'files', id);
      if (!file) return undefined;
      const bytes = blobs.get(portalId, String(file.file_hash));
      return bytes && { file, bytes };
    },

    // ---- folders ----

    /** A folder update or move, then the paths of everything under it. */
    updateFolder(db: Queryable, portalId: number, id: number, body: Record_) {
      return db.tx(async (t) => {
        const folder = await content.update(t, portalId, 'folders', id, body);
        await refreshPaths(t, portalId, id);
        return folder;
      });
    },
    moveFolder(
      db: Queryable,
      portalId: number,
      id: number,
      body: { folder_path?: string; parent_folder_id?: number | null },
    ) {
      return db.tx(async (t) => {
        const parent =
          body.parent_folder_id !== undefined
            ? body.parent_folder_id
            : await folderAt(t, portalId, body.folder_path!, 'body.folder_path');
        const folder = await content.update(t, portalId, 'folders', id, { parent_folder_id: parent });
        await refreshPaths(t, portalId, id);
        return folder;
      });
    },
    restoreFolderVersion(db: Queryable, portalId: number, id: number, versionId: number) {
      return db.tx(async (t) => {
        const folder = await content.restoreVersion(t, portalId, 'folders', id, versionId);
        await refreshPaths(t, portalId, id);
        return folder;
      });
    },
    /** Only an empty folder can be deleted: its files would be left without a place. */
    async removeFolder(db: Queryable, portalId: number, id: number) {
      if (await db.get(q.children, portalId, id))
        throw badRequest(`folder ${id} is not empty; move or delete what is in it first`);
      await content.remove(db, portalId, 'folders', id);
    },
  };

  /** Recomputes the full paths of a folder's subfolders after it was renamed or moved. */
  async function refreshPaths(db: Queryable, portalId: number, id: number) {
    for (const child of await db.all(q.children, portalId, id)) {
      if (child.collection != 'folders') continue;
      await content.update(db, portalId, 'folders', child.id, {});
      await refreshPaths(db, portalId, child.id);
    }
  }
}

export type FileStore = ReturnType<typeof fileStore>;
