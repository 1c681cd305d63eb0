/** When the background jobs have something to do next: the earliest due time of each kind of
 * timed work (a workflow step, a webhook attempt, a scheduled post or page, a waiting broadcast).
 * The clock's advance (services/clock-advance.ts) steps through these times in order. Each
 * condition mirrors its job's own due query (workflow-runs.ts claim, webhook-queue.ts claim,
 * content/engine.ts due, social.ts due); one that drifted would only make the advance run that
 * work at its end rather than at its own time. */
import { type Queryable, sql } from '../db/engine';
import { WAITING } from './workflow-runs';

const q = {
  next: sql<[number, number, number, number, number], { at: number | null }>(
    `SELECT min(at) AS at FROM (
       SELECT min(next_run_at) AS at FROM enrollments WHERE status = 'active' AND next_run_at > ? AND next_run_at < ?
       UNION ALL SELECT min(next_at) FROM webhook_deliveries WHERE status = 'pending' AND next_at > ?
       UNION ALL SELECT min(publish_at) FROM content_objects WHERE publish_at IS NOT NULL AND publish_at > ?
       UNION ALL SELECT min(trigger_at) FROM broadcasts WHERE status = 'WAITING' AND trigger_at > ?
     ) AS due`,
  ),
};

/** The earliest time after `after` at which some timed work falls due; undefined when none. */
export async function nextDueAfter(db: Queryable, after: number): Promise<number | undefined> {
  const at = await db.value(q.next, after, WAITING, after, after, after);
  return at == null ? undefined : Number(at);
}
