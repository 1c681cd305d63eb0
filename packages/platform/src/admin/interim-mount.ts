/** Interim: the clock and snapshot routes under `/_admin`, guarded by the admin key, until the
 * admin surface's own router (admin/router.ts) mounts them with the rest. */
import { createHash, timingSafeEqual } from 'node:crypto';
import express from 'express';
import { errorBody } from '../http/errors';

const digest = (s: string) => createHash('sha256').update(s).digest();

export function interimAdmin(adminKey: string, routers: express.Router[]): express.Router {
  const router = express.Router();
  const want = digest(adminKey);
  router.use((req, res, next) => {
    const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    if (m && timingSafeEqual(digest(m[1]), want)) return next();
    res
      .status(401)
      .json(
        errorBody('the admin surface needs Authorization: Bearer <admin key>', { category: 'INVALID_AUTHENTICATION' }),
      );
  });
  for (const r of routers) router.use(r);
  return router;
}
