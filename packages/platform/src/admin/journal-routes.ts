/** The request journal: `GET /journal` (newest first; `route`, `portalId`, `status`, `limit`),
 * `GET /journal/count` (the same filters), `DELETE /journal`. */
import express, { type Router } from 'express';
import { z } from 'zod';
import { ROUTE_IDS } from '../http/route-ids';
import type { AdminContext } from './context';
import { parse, route } from './input';

const whole = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,12}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().min(min).max(max));

export const JournalQuery = z.strictObject({
  route: z
    .string()
    .refine((id) => ROUTE_IDS.has(id), { message: 'is not a catalog route id' })
    .optional(),
  portalId: whole(1, Number.MAX_SAFE_INTEGER).optional(),
  status: whole(100, 599).optional(),
  limit: whole(1, 100_000).optional(),
});

export function journalRoutes(ctx: AdminContext): Router {
  const { journal, log } = ctx;
  const router = express.Router();
  router.get(
    '/journal',
    route(log, (req, res) => {
      const filter = parse(JournalQuery, req.query, 'query');
      res.json({ requests: journal.list(filter), size: journal.size });
    }),
  );
  router.get(
    '/journal/count',
    route(log, (req, res) => {
      // `limit` is taken (the same query as the list's) and means nothing to a count.
      res.json({ count: journal.count(parse(JournalQuery, req.query, 'query')) });
    }),
  );
  router.delete(
    '/journal',
    route(log, (_req, res) => {
      journal.clear();
      res.status(204).end();
    }),
  );
  return router;
}
