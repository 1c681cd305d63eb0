/** Pending webhook calls of workflow steps, in the database (webhook_deliveries): queued in the
 * step's transaction, claimed for a lease by the process that sends one (FOR UPDATE SKIP LOCKED
 * on PostgreSQL, so two processes take different ones), and settled only while that claim is
 * still the sender's, as the workflow engine does with its steps. A restart loses nothing: what
 * was pending is still pending, and a claim left by a dead process runs out. */
import { type Engine, type Queryable, sql } from '../db/engine';

export interface Delivery {
  id: number;
  event_id: string;
  portal_id: number;
  workflow_id: number;
  enrollment_id: number;
  vid: number;
  step: number;
  method: string;
  url: string;
  body: string;
  client_id: string | null;
  attempts: number;
  created_at: number;
  next_at: number;
  claimed_until: number;
}

export type NewDelivery = Pick<
  Delivery,
  'event_id' | 'portal_id' | 'workflow_id' | 'enrollment_id' | 'vid' | 'step' | 'method' | 'url' | 'body' | 'client_id'
>;

const COLUMNS =
  'id, event_id, portal_id, workflow_id, enrollment_id, vid, step, method, url, body, client_id, attempts, created_at, next_at, claimed_until';

export function webhookQueue(engine: Engine) {
  const q = {
    insert: sql<
      [string, number, number, number, number, number, string, string, string, string | null, number, number]
    >(
      `INSERT INTO webhook_deliveries (event_id, portal_id, workflow_id, enrollment_id, vid, step, method, url, body, client_id, status, created_at, next_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
    ),
    // As the engine's claim: a later claimed_until than the one it replaces tells claims apart.
    claim: sql<[number, number, number, number], Delivery>(
      `UPDATE webhook_deliveries SET claimed_until = ? WHERE id IN (
         SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_at <= ? AND coalesce(claimed_until, 0) <= ?
         ORDER BY next_at, id LIMIT ? ${engine.dialect.forUpdateSkipLocked}
       ) RETURNING ${COLUMNS}`,
    ),
    retry: sql<[number, number, string, number, number]>(
      "UPDATE webhook_deliveries SET attempts = ?, next_at = ?, last_outcome = ?, claimed_until = NULL WHERE id = ? AND claimed_until = ? AND status = 'pending'",
    ),
    finish: sql<[string, number, string, number, number]>(
      "UPDATE webhook_deliveries SET status = ?, attempts = ?, last_outcome = ?, claimed_until = NULL WHERE id = ? AND claimed_until = ? AND status = 'pending'",
    ),
    // The app named, or else the portal's first; an app whose client credential was revoked
    // signs nothing.
    secret: sql<[number, string | null, string | null], { client_id: string; secret: string }>(
      `SELECT a.client_id, a.secret FROM app_secrets a
       WHERE a.portal_id = ? AND (CAST(? AS TEXT) IS NULL OR a.client_id = ?)
         AND NOT EXISTS (SELECT 1 FROM credentials c WHERE c.client_id = a.client_id AND c.kind = 'oauthClient' AND c.revoked = 1)
       ORDER BY a.created_at, a.client_id LIMIT 1`,
    ),
    pending: sql<[], { n: number }>("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending'"),
  };

  return {
    add: (db: Queryable, d: NewDelivery, at: number) =>
      db.run(
        q.insert,
        d.event_id,
        d.portal_id,
        d.workflow_id,
        d.enrollment_id,
        d.vid,
        d.step,
        d.method,
        d.url,
        d.body,
        d.client_id,
        at,
        at,
      ),
    /** Claims up to `limit` due deliveries until `until`. */
    claim: (at: number, until: number, limit: number) => engine.tx((t) => t.all(q.claim, until, at, at, limit)),
    /** Another attempt at `nextAt`; false when the claim was lost. */
    retry: async (db: Queryable, d: Delivery, attempts: number, nextAt: number, outcome: string) =>
      (await db.run(q.retry, attempts, nextAt, outcome, d.id, d.claimed_until)) > 0,
    /** Delivered or failed for good; false when the claim was lost. */
    finish: async (db: Queryable, d: Delivery, status: 'delivered' | 'failed', attempts: number, outcome: string) =>
      (await db.run(q.finish, status, attempts, outcome, d.id, d.claimed_until)) > 0,
    /** The key a portal's webhooks are signed with: the client secret of the app `clientId`, or
     * of the portal's first OAuth app. */
    signingKey: (db: Queryable, portalId: number, clientId: string | null) =>
      db.get(q.secret, portalId, clientId, clientId),
    /** Client ids are not secret: a workflow names the app that signs its calls. */
    hasApp: async (db: Queryable, portalId: number, clientId: string) =>
      (await db.get(q.secret, portalId, clientId, clientId)) !== undefined,
    pending: async (db: Queryable) => Number(await db.value(q.pending)),
  };
}

export type WebhookQueue = ReturnType<typeof webhookQueue>;
