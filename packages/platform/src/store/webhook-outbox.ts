/** The webhooks workflows sent, as the admin API's outbox shows them: each delivery (pending,
 * delivered or failed) with its attempts as the workflow log recorded them (jobs/
 * workflow-engine.ts writes one line per attempt, naming the delivery's event id). */
import { type Queryable, sql } from '../db/engine';

interface Row {
  id: number;
  event_id: string;
  portal_id: number;
  workflow_id: number;
  vid: number;
  step: number;
  method: string;
  url: string;
  body: string;
  status: string;
  attempts: number;
  created_at: number;
  next_at: number;
  last_outcome: string | null;
}

const q = {
  recent: sql<[number, number, number, string, number], Row>(
    `SELECT id, event_id, portal_id, workflow_id, vid, step, method, url, body, status, attempts, created_at, next_at, last_outcome
     FROM webhook_deliveries WHERE (? = 0 OR portal_id = ?) AND (? = 0 OR status = ?)
     ORDER BY id DESC LIMIT ?`,
  ),
  attempts: sql<[number, number, number, string], { event_type: string; timestamp: number; detail: string | null }>(
    `SELECT event_type, timestamp, detail FROM workflow_log
     WHERE workflow_id = ? AND vid = ? AND step_id = ? AND event_type IN ('WEBHOOK', 'WEBHOOK_RETRY', 'FAILED')
       AND detail LIKE ? ORDER BY seq`,
  ),
  // Pending ones stay: they are still to be sent, and clearing the outbox must not stop them.
  clear: sql<[number, number]>("DELETE FROM webhook_deliveries WHERE status <> 'pending' AND (? = 0 OR portal_id = ?)"),
};

const OUTCOME: Record<string, string> = { WEBHOOK: 'delivered', WEBHOOK_RETRY: 'retry', FAILED: 'failed' };

export function webhookOutbox() {
  return {
    async recent(db: Queryable, f: { portalId?: number; status?: string; limit: number }) {
      const portal = f.portalId ?? 0;
      const rows = await db.all(q.recent, portal, portal, f.status ? 1 : 0, f.status ?? '', f.limit);
      return Promise.all(
        rows.map(async (r) => ({
          id: Number(r.id),
          eventId: r.event_id,
          portalId: Number(r.portal_id),
          workflowId: Number(r.workflow_id),
          vid: Number(r.vid),
          method: r.method,
          url: r.url,
          body: r.body,
          status: r.status,
          createdAt: Number(r.created_at),
          nextAt: r.status == 'pending' ? Number(r.next_at) : null,
          lastOutcome: r.last_outcome,
          attempts: (
            await db.all(q.attempts, Number(r.workflow_id), Number(r.vid), Number(r.step), `%event ${r.event_id})%`)
          ).map((a) => ({ outcome: OUTCOME[a.event_type], at: Number(a.timestamp), detail: a.detail })),
        })),
      );
    },
    /** Forgets the settled deliveries of one portal (0: all); resolves to how many. */
    clear: (db: Queryable, portalId = 0) => db.run(q.clear, portalId, portalId),
  };
}
