/** 11 → 12: the dashboard's rollups (and the visitor sets that version 18 drops), and the sessions'
 * last_at index. Events from before are not in the rollups: the dashboard counts from the upgrade on. */
import type { Migration } from './migration';

export default {
  version: 12,
  sqlite: `
  -- The live view's "active in the last minutes": sessions by their last page view.
  CREATE INDEX IF NOT EXISTS sessions_last ON sessions(portal_id, last_at);

  -- Dashboard rollups (store/rollups.ts): counters per portal, metric, time bucket (the UTC day's or
  -- hour's first millisecond) and dimension (a page, a source, a form, ...), added to at ingest in
  -- one upsert per request, so that the dashboard sums a few rows per day instead of scanning events.
  -- WITHOUT ROWID (SQLite): the rows live in their key's order, so a range of days is read in one
  -- pass with the counters beside the key, not a key then a row lookup each.
  CREATE TABLE IF NOT EXISTS rollups (
    portal_id INTEGER NOT NULL,
    metric TEXT NOT NULL,
    bucket INTEGER NOT NULL,
    dim TEXT NOT NULL,
    dim2 TEXT NOT NULL,
    n INTEGER NOT NULL,
    amount REAL NOT NULL,
    PRIMARY KEY (portal_id, metric, bucket, dim, dim2)
  ) WITHOUT ROWID;
  -- The visitors seen per day ('d') and hour ('h'): a visitor's first page view in a bucket inserts
  -- its row here and adds one to that bucket's visitors counter, so distinct visitors stay exact.
  CREATE TABLE IF NOT EXISTS rollup_visitors (
    portal_id INTEGER NOT NULL,
    grain TEXT NOT NULL,
    bucket INTEGER NOT NULL,
    utk TEXT NOT NULL,
    PRIMARY KEY (portal_id, grain, bucket, utk)
  ) WITHOUT ROWID;
`,
  postgres: `
  -- The live view's "active in the last minutes": sessions by their last page view.
  CREATE INDEX IF NOT EXISTS sessions_last ON sessions(portal_id, last_at);

  -- Dashboard rollups (store/rollups.ts): counters per portal, metric, time bucket (the UTC day's or
  -- hour's first millisecond) and dimension (a page, a source, a form, ...), added to at ingest in
  -- one upsert per request, so that the dashboard sums a few rows per day instead of scanning events.
  -- WITHOUT ROWID (SQLite): the rows live in their key's order, so a range of days is read in one
  -- pass with the counters beside the key, not a key then a row lookup each.
  CREATE TABLE IF NOT EXISTS rollups (
    portal_id BIGINT NOT NULL,
    metric TEXT NOT NULL,
    bucket BIGINT NOT NULL,
    dim TEXT NOT NULL,
    dim2 TEXT NOT NULL,
    n BIGINT NOT NULL,
    amount DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (portal_id, metric, bucket, dim, dim2)
  );
  -- The visitors seen per day ('d') and hour ('h'): a visitor's first page view in a bucket inserts
  -- its row here and adds one to that bucket's visitors counter, so distinct visitors stay exact.
  CREATE TABLE IF NOT EXISTS rollup_visitors (
    portal_id BIGINT NOT NULL,
    grain TEXT NOT NULL,
    bucket BIGINT NOT NULL,
    utk TEXT NOT NULL,
    PRIMARY KEY (portal_id, grain, bucket, utk)
  );
`,
} satisfies Migration;
