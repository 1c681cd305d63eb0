/** 9 → 10: a workflow step is claimed by the process that runs it (enrollments.claimed_until), and a
 * contact is in a workflow once at a time (enrollments_active). On SQLite the table is copied into
 * a new one (made first if missing, so that the copy always has one to copy) and its indexes made
 * again after; on PostgreSQL the column is added (IF NOT EXISTS: the migration tests make an older
 * database by turning a new one's version back, column and all). */
import type { Migration } from './migration';

export default {
  version: 10,
  sqlite: `
  CREATE TABLE IF NOT EXISTS enrollments (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    workflow_id INTEGER NOT NULL,
    portal_id INTEGER NOT NULL,
    vid INTEGER NOT NULL,
    step INTEGER NOT NULL DEFAULT 0,
    next_run_at INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'completed', 'unenrolled', 'failed')),
    enrolled_at INTEGER NOT NULL,
    -- Until when the process running the current step has it (store/workflow-engine.ts); null when
    -- no process does. A process that dies mid-step leaves a time that passes.
    claimed_until INTEGER
  );
  DROP INDEX IF EXISTS enrollments_due;
  DROP INDEX IF EXISTS enrollments_vid;
  DROP INDEX IF EXISTS enrollments_active;
  ALTER TABLE enrollments RENAME TO enrollments_v9;
  CREATE TABLE IF NOT EXISTS enrollments (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    workflow_id INTEGER NOT NULL,
    portal_id INTEGER NOT NULL,
    vid INTEGER NOT NULL,
    step INTEGER NOT NULL DEFAULT 0,
    next_run_at INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'completed', 'unenrolled', 'failed')),
    enrolled_at INTEGER NOT NULL,
    -- Until when the process running the current step has it (store/workflow-engine.ts); null when
    -- no process does. A process that dies mid-step leaves a time that passes.
    claimed_until INTEGER
  );
  INSERT INTO enrollments (id, workflow_id, portal_id, vid, step, next_run_at, status, enrolled_at)
    SELECT id, workflow_id, portal_id, vid, step, next_run_at, status, enrolled_at FROM enrollments_v9;
  DROP TABLE enrollments_v9;
  CREATE INDEX IF NOT EXISTS enrollments_due ON enrollments(status, next_run_at);
  CREATE INDEX IF NOT EXISTS enrollments_vid ON enrollments(vid, status);
  -- A contact is in a workflow at most once at a time: two processes enrolling it at once cannot
  -- both start it.
  CREATE UNIQUE INDEX IF NOT EXISTS enrollments_active ON enrollments(workflow_id, vid) WHERE status = 'active';
`,
  postgres: `
  ALTER TABLE enrollments ADD COLUMN IF NOT EXISTS claimed_until BIGINT;
  -- A contact is in a workflow at most once at a time: two processes enrolling it at once cannot
  -- both start it.
  CREATE UNIQUE INDEX IF NOT EXISTS enrollments_active ON enrollments(workflow_id, vid) WHERE status = 'active';
`,
} satisfies Migration;
