/** The admin surface's snapshots (services/snapshot.ts):
 * - `GET /_admin/snapshot`: the whole state (every portal, files' bytes included) as one gzip
 *   file of JSON lines (`application/gzip`, saved as `svc-platform-snapshot.jsonl.gz`);
 * - `PUT /_admin/snapshot` with such a file as the body (gzip or plain JSON lines, up to
 *   `maxBytes`): replaces the whole state with it, atomically, answering what it loaded. A file
 *   that is cut short, not a snapshot, of another schema version, or whose tables or files do not
 *   check is a 400 naming the problem, and the state stays as it was. */
import express from 'express';
import { badRequest } from '../domain/errors';
import { SnapshotError, type Snapshots } from '../services/snapshot';
import { answerErrors } from './clock';

export interface SnapshotRouteDeps {
  snapshots: Pick<Snapshots, 'exportStream' | 'importBody'>;
  /** The platform's time after an import (the clock may have followed the snapshot's). */
  now: () => number;
  /** The largest snapshot a PUT takes (bytes as sent); default 1 GiB. */
  maxBytes?: number;
}

export function snapshotRoutes({ snapshots, now, maxBytes = 1 << 30 }: SnapshotRouteDeps): express.Router {
  const router = express.Router();
  router.get('/snapshot', async (_req, res) => {
    const body = await snapshots.exportStream();
    res.set({
      'content-type': 'application/gzip',
      'content-disposition': 'attachment; filename="svc-platform-snapshot.jsonl.gz"',
      'cache-control': 'no-store',
    });
    body.on('error', (err) => res.destroy(err)); // a cut answer, never one that looks whole
    body.pipe(res);
  });
  router.put('/snapshot', express.raw({ type: () => true, limit: maxBytes }), async (req, res) => {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    try {
      const imported = await snapshots.importBody(body);
      res.json({ imported, now: now() });
    } catch (err) {
      if (err instanceof SnapshotError) throw badRequest(err.message);
      throw err;
    }
  });
  router.use(answerErrors);
  return router;
}
