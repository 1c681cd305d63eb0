/** 12 → 13: the list_members_added index, which a list's last size change is read from; on
 * PostgreSQL, rollup_deltas (store/rollups.ts), so that requests append to the dashboard's counters
 * rather than wait for each other on the same rows. On SQLite the table is made first if missing
 * (a test opens a version 1 database of only the tables it needs), so that the index has one. */
import type { Migration } from './migration';

export default {
  version: 13,
  sqlite: `
  CREATE TABLE IF NOT EXISTS list_members (
    list_id INTEGER NOT NULL,
    vid INTEGER NOT NULL,
    added_at INTEGER NOT NULL,
    PRIMARY KEY (list_id, vid)
  );
  CREATE INDEX IF NOT EXISTS list_members_vid ON list_members(vid);
  -- A list's members newest first (its recent contacts) and its newest arrival (lastSizeChangeAt).
  CREATE INDEX IF NOT EXISTS list_members_added ON list_members(list_id, added_at, vid);
`,
  postgres: `
  -- A list's members newest first (its recent contacts) and its newest arrival (lastSizeChangeAt).
  CREATE INDEX IF NOT EXISTS list_members_added ON list_members(list_id, added_at, vid);
  -- The dashboard's counters added to by requests not yet folded into rollups (store/rollups.ts):
  -- appended to, so that concurrent requests do not wait for each other on today's counter rows.
  -- No key: rows are only appended and then all taken at once.
  CREATE TABLE IF NOT EXISTS rollup_deltas (
    portal_id BIGINT NOT NULL,
    metric TEXT NOT NULL,
    bucket BIGINT NOT NULL,
    dim TEXT NOT NULL,
    dim2 TEXT NOT NULL,
    n BIGINT NOT NULL,
    amount DOUBLE PRECISION NOT NULL
  );
`,
} satisfies Migration;
