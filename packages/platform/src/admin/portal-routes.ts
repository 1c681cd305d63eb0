/** Portals: list, create (answering its credentials, the credentials file's shape), delete
 * (every row of the portal, its credentials and uploaded files included) and reset (its data
 * back to a new portal's, the demo portal's demo data seeded again; its credentials kept, so
 * the tokens a test holds go on working). */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import express, { type Router } from 'express';
import { z } from 'zod';
import { forgetAll } from '../db/shared-cache';
import { PlatformError } from '../domain/errors';
import { portalRemoval } from '../store/portal-removal';
import { createPortal, issuePortalCredentials, seedPortal, type Tier } from '../store/portals';
import type { AdminContext } from './context';
import { jsonBody, parse, route } from './input';

/** Portal ids the admin API takes: positive, and small enough for every client's integers. */
const MAX_PORTAL_ID = 2_147_483_647;
/** Where ids picked by the platform start (above the demo's and the tests' usual ones). */
const FIRST_PICKED_ID = 100_001;

export const portalId = z.coerce
  .number({ error: 'must be a portal id (a whole number)' })
  .int('must be a whole number')
  .min(1, 'must be at least 1')
  .max(MAX_PORTAL_ID, `must be at most ${MAX_PORTAL_ID}`);

export const NewPortal = z.strictObject({
  portalId: z.number().int().min(1).max(MAX_PORTAL_ID).optional(),
  name: z.string().min(1).max(200).optional(),
  tier: z.enum(['starter', 'professional', 'enterprise']).optional(),
});

const notFound = (id: number) => new PlatformError('not-found', `no portal ${id}`);

export function portalRoutes(ctx: AdminContext): Router {
  const { services, engine, log } = ctx;
  const removal = portalRemoval(engine.kind);
  const router = express.Router();

  /** After a portal's rows went or were replaced: nothing cached of it survives. */
  const forget = async (t: Parameters<typeof forgetAll>[1], id: number) => {
    services.portals.forget(id);
    await forgetAll(engine, t);
  };

  router.get(
    '/portals',
    route(log, async (_req, res) => {
      const rows = await removal.list(engine);
      res.json({
        portals: rows.map((r) => ({
          portalId: Number(r.id),
          name: r.name,
          tier: r.tier,
          createdAt: Number(r.created_at),
        })),
      });
    }),
  );

  router.post(
    '/portals',
    ...jsonBody,
    route(log, async (req, res) => {
      const given = parse(NewPortal, req.body, 'body');
      const now = services.now();
      const credentials = await engine.tx(async (t) => {
        // One id at a time across processes: two creations never pick (or take) the same.
        await t.lock('admin-portal-create');
        const id = given.portalId ?? Math.max(await removal.maxId(t), FIRST_PICKED_ID - 1) + 1;
        if (await removal.get(t, id))
          throw new PlatformError('conflict', `portal ${id} exists already: delete it first, or leave portalId out`);
        const tier: Tier = given.tier ?? 'enterprise';
        await createPortal(t, services, { id, name: given.name ?? `Portal ${id}`, tier, now });
        services.portals.forget(id);
        return issuePortalCredentials(t, id, now);
      });
      res.status(201).json(credentials);
    }),
  );

  router.delete(
    '/portals/:id',
    route(log, async (req, res) => {
      const id = parse(portalId, req.params.id, 'path.id');
      await engine.tx(async (t) => {
        if (!(await removal.get(t, id))) throw notFound(id);
        await removal.deleteAll(t, id);
        await forget(t, id);
      });
      // Its files' bytes (store/files/blobs.ts keeps them under <root>/<portal id>).
      rmSync(join(services.filesRoot, String(id)), { recursive: true, force: true });
      res.status(204).end();
    }),
  );

  router.post(
    '/portals/:id/reset',
    route(log, async (req, res) => {
      const id = parse(portalId, req.params.id, 'path.id');
      const now = services.now();
      const portal = await engine.tx(async (t) => {
        const found = await removal.get(t, id);
        if (!found) throw notFound(id);
        await removal.deleteData(t, id);
        // Before seeding again: the seeds read through the caches (a group exists already?).
        await forget(t, id);
        await seedPortal(t, services, id, now);
        await ctx.reseed(t, { id, name: found.name }, now);
        await forget(t, id);
        return found;
      });
      rmSync(join(services.filesRoot, String(id)), { recursive: true, force: true });
      res.json({ portalId: id, name: portal.name, tier: portal.tier, credentialsKept: true });
    }),
  );
  return router;
}
