/** The SQL under the workflow engine (jobs/workflow-engine.ts): due steps claimed for a lease, and
 * the updates that move a claimed step on. Each of those changes the enrollment only while the
 * claim is still the one this process made (the fence: `claimed_until` and `step` as claimed), so
 * a step is recorded once however many processes run. Also the workflow log's writes and a
 * workflow's definition by id, which the store (workflows.ts) shares. */
import type { schemas } from '@svc/api';
import type { z } from 'zod';
import { type Engine, type Queryable, sql } from '../db/engine';

export type Definition = z.output<typeof schemas.workflowWrite>;
export type Action = z.output<typeof schemas.workflowAction>;
export type LogEventType = (typeof schemas.LOG_EVENT_TYPES)[number];
export type Log = (
  db: Queryable,
  workflowId: number,
  vid: number,
  eventType: LogEventType,
  stepId: number | null,
  detail?: string,
) => Promise<void>;

/** An enrollment whose current step this process has claimed, until `claimed_until`. */
export interface ClaimedStep {
  id: number;
  workflow_id: number;
  portal_id: number;
  vid: number;
  step: number;
  next_run_at: number;
  claimed_until: number;
}

/** next_run_at of an enrollment waiting for its webhook's delivery: never due by the clock. */
export const WAITING = Number.MAX_SAFE_INTEGER;

const CLAIMED = 'id, workflow_id, portal_id, vid, step, next_run_at, claimed_until';

export function workflowRuns(engine: Engine, now: () => number) {
  const q = {
    // A claim of the steps due and held by no process (a lapsed lease counts as none). A claim
    // always sets a later `claimed_until` than the one it replaces, so it tells claims apart.
    claim: sql<[number, number, number, number], ClaimedStep>(
      `UPDATE enrollments SET claimed_until = ? WHERE id IN (
         SELECT id FROM enrollments WHERE status = 'active' AND next_run_at <= ? AND coalesce(claimed_until, 0) <= ?
         ORDER BY next_run_at, id LIMIT ? ${engine.dialect.forUpdateSkipLocked}
       ) RETURNING ${CLAIMED}`,
    ),
    // The step recorded, the claim given back; nothing when the claim is no longer this one's.
    advance: sql<[number, number, number, number]>(
      "UPDATE enrollments SET step = step + 1, next_run_at = ?, claimed_until = NULL WHERE id = ? AND step = ? AND claimed_until = ? AND status = 'active'",
    ),
    finish: sql<[string, number, number, number]>(
      "UPDATE enrollments SET status = ?, claimed_until = NULL WHERE id = ? AND step = ? AND claimed_until = ? AND status = 'active'",
    ),
    // The webhook step's call queued: the enrollment waits for its delivery, the claim given back.
    park: sql<[number, number, number, number]>(
      "UPDATE enrollments SET next_run_at = ?, claimed_until = NULL WHERE id = ? AND step = ? AND claimed_until = ? AND status = 'active'",
    ),
    // The call delivered or given up: on to the next step, if the enrollment still waits for it.
    resume: sql<[number, number, number, number]>(
      "UPDATE enrollments SET step = step + 1, next_run_at = ? WHERE id = ? AND step = ? AND next_run_at = ? AND status = 'active'",
    ),
    log: sql<[number, number, string, number | null, number, string | null]>(
      'INSERT INTO workflow_log (workflow_id, vid, event_type, step_id, timestamp, detail) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    definition: sql<[number], { definition: string }>('SELECT definition FROM workflows WHERE id = ?'),
  };

  const log: Log = async (db, workflowId, vid, eventType, stepId, detail) =>
    void (await db.run(q.log, workflowId, vid, eventType, stepId, now(), detail ?? null));

  return {
    /** Claims up to `limit` steps due at `at`, each until `until`, in a transaction of its own. */
    claim: (at: number, until: number, limit: number) => engine.tx((t) => t.all(q.claim, until, at, at, limit)),
    /** The claimed step done, the next one due at `runAt`; false when the claim was lost. */
    advance: async (t: Queryable, e: ClaimedStep, runAt: number) =>
      (await t.run(q.advance, runAt, e.id, e.step, e.claimed_until)) > 0,
    /** The enrollment ended at the claimed step; false when the claim was lost. */
    finish: async (t: Queryable, e: ClaimedStep, status: 'completed' | 'failed') =>
      (await t.run(q.finish, status, e.id, e.step, e.claimed_until)) > 0,
    /** The enrollment waits (WAITING) for its webhook step's delivery; false when the claim was lost. */
    park: async (t: Queryable, e: ClaimedStep) => (await t.run(q.park, WAITING, e.id, e.step, e.claimed_until)) > 0,
    /** The enrollment waiting at `step` goes on to the next one, due now. */
    resume: (t: Queryable, enrollmentId: number, step: number) => t.run(q.resume, now(), enrollmentId, step, WAITING),
    log,
    /** A workflow's definition, by id (deleted ones too: their enrollments are already ended). */
    definition: async (db: Queryable, workflowId: number) =>
      JSON.parse((await db.get(q.definition, workflowId))!.definition) as Definition,
  };
}

export type WorkflowRuns = ReturnType<typeof workflowRuns>;
