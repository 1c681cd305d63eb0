/** Uploaded files at their URLs (`{base_url}/hubfs/<portal>/<file id>/<name>`): the bytes with
 * their type, while the file is not deleted — archived files stay reachable (§4.8). Files
 * uploaded with `access: PRIVATE` are not served. */
import type { Express, NextFunction, Request, Response } from 'express';
import type { Queryable } from '../db/engine';
import type { FileStore } from '../store/files/files';

/** `db` is where its reads run (the engine); `settled` resolves once what they may have seen is
 * committed (the catalog's reads wait for it too). */
export function mountFileServer(app: Express, files: FileStore, db: Queryable, settled: () => Promise<void>) {
  app.get(
    '/hubfs/:portalId/:fileId/*name',
    (req: Request, res: Response, next: NextFunction) => void serve(req, res).catch(next),
  );
  async function serve(req: Request, res: Response) {
    const [portalId, fileId] = [Number(req.params.portalId), Number(req.params.fileId)];
    const found =
      Number.isSafeInteger(portalId) && Number.isSafeInteger(fileId)
        ? await files.bytes(db, portalId, fileId)
        : undefined;
    await settled();
    if (!found) return void res.status(404).json({ status: 'error', message: 'file not found' });
    const meta = found.file.meta as { allows_anonymous_access?: boolean } | null;
    if (meta?.allows_anonymous_access === false)
      return void res.status(403).json({ status: 'error', message: 'this file is private' });
    // Uploads are never run as pages here, whatever they contain.
    res.set({
      'Content-Type': String(found.file.mime_type ?? 'application/octet-stream'),
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    });
    res.send(found.bytes);
  }
}
