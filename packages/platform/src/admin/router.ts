/** The admin API at {base_url}/_admin/: the controls a test suite needs around the platform's
 * real state (portals, faults, the request journal, the outbox, and the clock and snapshots).
 * Off unless the platform is started with an admin key (`admin: true` makes one); every route
 * needs `Authorization: Bearer <admin key>` (admin/guard.ts), never a portal's credential.
 *
 * One file of routes per area, each `<area>Routes(ctx)`, all given the same AdminContext. */
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { errorBody } from '../http/errors';
import type { AdminContext } from './context';
import { adminGuard } from './guard';
import { sendError } from './input';
import { faultRoutes } from './fault-routes';
import { journalRoutes } from './journal-routes';
import { ADMIN_OPERATIONS, adminOpenApi } from './openapi';
import { outboxRoutes } from './outbox-routes';
import { portalRoutes } from './portal-routes';
import { clockRoutes } from './clock-routes';
import { snapshotRoutes } from './snapshot-routes';

export function adminRouter(ctx: AdminContext, key: string): Router {
  const router = express.Router();
  router.use((_req, res, next) => {
    // Answers hold credentials: no cache keeps them.
    res.set({ 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
    next();
  });
  router.use(adminGuard(ctx, key));
  const document = adminOpenApi();
  router.get('/openapi.json', (_req, res) => res.json(document));
  router.use(portalRoutes(ctx));
  router.use(faultRoutes(ctx));
  router.use(journalRoutes(ctx));
  router.use(outboxRoutes(ctx));
  router.use(clockRoutes(ctx));
  router.use(snapshotRoutes(ctx));
  // A known path with another method is a 405 naming the methods it takes.
  const known = ADMIN_OPERATIONS.map((op) => ({
    method: op.method.toUpperCase(),
    test: new RegExp(`^${op.path.replace(/\{\w+\}/g, '[^/]+')}/?$`),
  }));
  router.use((req, res) => {
    const allowed = [...new Set(known.filter((k) => k.test.test(req.path)).map((k) => k.method))];
    if (allowed.length)
      return void res
        .status(405)
        .set('Allow', allowed.join(', '))
        .json(errorBody(`${req.method} is not allowed on ${req.baseUrl}${req.path}; use ${allowed.join(' or ')}`));
    res.status(404).json(errorBody(`no admin route for ${req.method} ${req.baseUrl}${req.path}`));
  });
  // Four parameters make it Express's error handler.
  router.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => sendError(res, err, ctx.log));
  return router;
}
