/** The outbox of what the platform sent: `GET|DELETE /outbox/emails` (the mail catcher's emails
 * with their bodies), `/outbox/webhooks` (workflow webhook deliveries with their attempts;
 * clearing leaves the pending ones, still to be sent), `/outbox/tokens` (OAuth tokens issued).
 * Each takes `portalId`; a list `limit` (default 100) and its own filter (`to`, `status`,
 * `clientId`). Newest first. */
import express, { type Router } from 'express';
import { z } from 'zod';
import { webhookOutbox } from '../store/webhook-outbox';
import type { AdminContext } from './context';
import { parse, route } from './input';

const whole = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,15}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().min(min).max(max));
const portalId = whole(1, Number.MAX_SAFE_INTEGER).optional();
const limit = whole(1, 1000).default(100);

export const OutboxQueries = {
  emails: z.strictObject({ portalId, limit, to: z.string().max(320).optional() }),
  webhooks: z.strictObject({ portalId, limit, status: z.enum(['pending', 'delivered', 'failed']).optional() }),
  tokens: z.strictObject({ portalId, limit, clientId: z.string().max(200).optional() }),
  clear: z.strictObject({ portalId }),
};

export function outboxRoutes(ctx: AdminContext): Router {
  const { services, engine, log } = ctx;
  const webhooks = webhookOutbox();
  const router = express.Router();

  router.get(
    '/outbox/emails',
    route(log, async (req, res) => {
      const f = parse(OutboxQueries.emails, req.query, 'query');
      res.json({ emails: await services.outbox.recent(engine, f) });
    }),
  );
  router.delete(
    '/outbox/emails',
    route(log, async (req, res) => {
      const { portalId } = parse(OutboxQueries.clear, req.query, 'query');
      res.json({ cleared: await services.outbox.clear(engine, portalId) });
    }),
  );

  router.get(
    '/outbox/webhooks',
    route(log, async (req, res) => {
      const f = parse(OutboxQueries.webhooks, req.query, 'query');
      res.json({ webhooks: await webhooks.recent(engine, f) });
    }),
  );
  router.delete(
    '/outbox/webhooks',
    route(log, async (req, res) => {
      const { portalId } = parse(OutboxQueries.clear, req.query, 'query');
      res.json({ cleared: await webhooks.clear(engine, portalId) });
    }),
  );

  router.get(
    '/outbox/tokens',
    route(log, (req, res) => {
      const f = parse(OutboxQueries.tokens, req.query, 'query');
      res.json({ tokens: services.tokens?.list(f) ?? [] });
    }),
  );
  router.delete(
    '/outbox/tokens',
    route(log, (req, res) => {
      const { portalId } = parse(OutboxQueries.clear, req.query, 'query');
      res.json({ cleared: services.tokens?.clear(portalId) ?? 0 });
    }),
  );
  return router;
}
