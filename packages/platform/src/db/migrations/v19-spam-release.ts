/** 18 → 19: spam submissions keep their context and consent, and can be released (the columns after
 * values_json). On SQLite the table is copied into a new one rather than altered, so that the step
 * also applies to a table that has the columns already (the migration tests turn a new database's
 * version back): first the table as version 14 made it, for a database from before 14, then the
 * copy; on PostgreSQL the columns are added IF NOT EXISTS. */
import type { Migration } from './migration';

export default {
  version: 19,
  sqlite: `
  CREATE TABLE IF NOT EXISTS spam_submissions (conversion_id TEXT PRIMARY KEY, portal_id INTEGER NOT NULL, form_guid TEXT NOT NULL,
    timestamp INTEGER NOT NULL, reason TEXT NOT NULL, page_url TEXT, values_json TEXT NOT NULL);
  DROP INDEX IF EXISTS spam_submissions_form;
  ALTER TABLE spam_submissions RENAME TO spam_submissions_v18;
  CREATE TABLE spam_submissions (conversion_id TEXT PRIMARY KEY, portal_id INTEGER NOT NULL, form_guid TEXT NOT NULL,
    timestamp INTEGER NOT NULL, reason TEXT NOT NULL, page_url TEXT, values_json TEXT NOT NULL,
    context_json TEXT, consent_json TEXT, released_at INTEGER, released_vid INTEGER);
  INSERT INTO spam_submissions (conversion_id, portal_id, form_guid, timestamp, reason, page_url, values_json)
    SELECT conversion_id, portal_id, form_guid, timestamp, reason, page_url, values_json FROM spam_submissions_v18;
  DROP TABLE spam_submissions_v18;
  CREATE INDEX IF NOT EXISTS spam_submissions_form ON spam_submissions(portal_id, form_guid, timestamp);
`,
  postgres: `
  CREATE TABLE IF NOT EXISTS spam_submissions (conversion_id TEXT PRIMARY KEY, portal_id BIGINT NOT NULL, form_guid TEXT NOT NULL,
    timestamp BIGINT NOT NULL, reason TEXT NOT NULL, page_url TEXT, values_json TEXT NOT NULL);
  ALTER TABLE spam_submissions ADD COLUMN IF NOT EXISTS context_json TEXT;
  ALTER TABLE spam_submissions ADD COLUMN IF NOT EXISTS consent_json TEXT;
  ALTER TABLE spam_submissions ADD COLUMN IF NOT EXISTS released_at BIGINT;
  ALTER TABLE spam_submissions ADD COLUMN IF NOT EXISTS released_vid BIGINT;
`,
} satisfies Migration;
