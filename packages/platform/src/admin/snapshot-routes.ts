/** The admin surface's snapshots (services/snapshot.ts):
 * - `GET /_admin/snapshot`: the whole state (every portal, files' bytes included) as one gzip
 *   file of JSON lines (`application/gzip`, saved as `svc-platform-snapshot.jsonl.gz`);
 * - `PUT /_admin/snapshot` with such a file as the body (gzip or plain JSON lines, up to
 *   1 GiB): replaces the whole state with it, atomically, answering what it loaded. A file
 *   that is cut short, not a snapshot, of another schema version, or whose tables or files do not
 *   check is a 400 naming the problem, and the state stays as it was. */
import express, { type Router } from 'express';
import { badRequest } from '../domain/errors';
import { SnapshotError } from '../services/snapshot';
import type { AdminContext } from './context';
import { route } from './input';

/** The largest snapshot a PUT takes, as sent. */
const MAX_BYTES = 1 << 30;

/** Its entries in the OpenAPI document (openapi.ts, which imports them: typed there). */
export const SNAPSHOT_OPERATIONS = [
  {
    method: 'get',
    path: '/snapshot',
    summary: 'The whole state (every portal, files included) as one gzip file of JSON lines (application/gzip)',
  },
  {
    method: 'put',
    path: '/snapshot',
    summary:
      'Replaces the whole state with a snapshot file (the body, up to 1 GiB), atomically; answers {imported: {tables, rows, files}, now}',
  },
] as const;

export function snapshotRoutes({ snapshots, clock, log }: Pick<AdminContext, 'snapshots' | 'clock' | 'log'>): Router {
  const router = express.Router();
  router.get(
    '/snapshot',
    route(log, async (_req, res) => {
      const body = await snapshots.exportStream();
      res.set({
        'content-type': 'application/gzip',
        'content-disposition': 'attachment; filename="svc-platform-snapshot.jsonl.gz"',
      });
      body.on('error', (err) => res.destroy(err)); // a cut answer, never one that looks whole
      body.pipe(res);
    }),
  );
  router.put(
    '/snapshot',
    express.raw({ type: () => true, limit: MAX_BYTES }),
    route(log, async (req, res) => {
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      try {
        // The clock may have followed the snapshot's time.
        res.json({ imported: await snapshots.importBody(body), now: clock.now() });
      } catch (err) {
        if (err instanceof SnapshotError) throw badRequest(`body: ${err.message}`);
        throw err;
      }
    }),
  );
  return router;
}
