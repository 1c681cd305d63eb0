/** 6 → 7: a form submission may make no contact (form_submissions.vid becomes nullable). On SQLite
 * the table is made first if missing (a database from before forms), so that the copy always has
 * one to copy. PostgreSQL databases begin at this version: its step also makes the table only
 * PostgreSQL keeps, the rate limits' counters (unlogged; a database made before that was decided
 * has a logged one, which only makes its writes wait for the disk). */
import type { Migration } from './migration';

export default {
  version: 7,
  sqlite: `
  CREATE TABLE IF NOT EXISTS form_submissions (
    conversion_id TEXT PRIMARY KEY,
    portal_id INTEGER NOT NULL,
    vid INTEGER,
    form_guid TEXT NOT NULL,
    timestamp INTEGER NOT NULL,
    page_url TEXT,
    page_title TEXT,
    values_json TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS form_submissions_vid ON form_submissions(vid, timestamp);
  ALTER TABLE form_submissions RENAME TO form_submissions_v6;
  DROP INDEX IF EXISTS form_submissions_vid;
  CREATE TABLE IF NOT EXISTS form_submissions (
    conversion_id TEXT PRIMARY KEY,
    portal_id INTEGER NOT NULL,
    vid INTEGER,
    form_guid TEXT NOT NULL,
    timestamp INTEGER NOT NULL,
    page_url TEXT,
    page_title TEXT,
    values_json TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS form_submissions_vid ON form_submissions(vid, timestamp);
  INSERT INTO form_submissions SELECT * FROM form_submissions_v6;
  DROP TABLE form_submissions_v6;
`,
  postgres: `
  ALTER TABLE form_submissions ALTER COLUMN vid DROP NOT NULL;
  -- Unlogged: a count is written on every request, and a logged write makes its commit wait for
  -- the WAL to reach the disk. A crash empties the table, forgetting at most one window's counts.
  CREATE UNLOGGED TABLE IF NOT EXISTS rate_limits (
    key VARCHAR(255) PRIMARY KEY,
    points INTEGER NOT NULL DEFAULT 0,
    expire BIGINT
  );
`,
} satisfies Migration;
