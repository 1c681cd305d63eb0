/** The live schema on SQLite, part 2 of 2: tracking events, sessions, the dashboard's rollups,
 * content objects, keywords, settings, social channels and broadcasts, prospects, the mail
 * catcher's outbox, and meta (the schema version). A new database is made with it (db/schema.ts
 * puts the parts together); the steps in db/migrations/ bring an older one to the same tables. The
 * same tables on PostgreSQL: postgres-web.ts. */
export const SQLITE_WEB = `-- Page views and custom events from the collector and the HTTP events API, deduplicated by eid
-- per visitor (a retry always carries its visitor token; utk is '' for none). The key leads with
-- the visitor so that a batch, one visitor's events, touches one index page rather than one
-- random page per event: that is most of the cost of writing events. What the platform uses has
-- a named column (kind 1 page view, 3 custom event; source tracker, events-get or events-post);
-- the data column keeps what arrived beyond those columns (a tracker event's other wire fields,
-- older rows the whole event; an events API call's parameters), among it what only it
-- holds: a custom event's properties and a page view's referrer (store/event-occurrences.ts).
CREATE TABLE IF NOT EXISTS tracking_events (
  seq INTEGER PRIMARY KEY,
  eid TEXT NOT NULL,
  portal_id INTEGER NOT NULL,
  kind INTEGER NOT NULL,
  utk TEXT NOT NULL,
  vid INTEGER,
  timestamp INTEGER NOT NULL,
  received_at INTEGER NOT NULL,
  data TEXT NOT NULL,
  source TEXT NOT NULL DEFAULT 'tracker',
  url TEXT,
  title TEXT,
  event_name TEXT,
  value REAL,
  external_id TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS tracking_events_visitor ON tracking_events(portal_id, utk, eid);
-- Contacts' events only: an anonymous visitor's event (most events) has no entry to write there.
CREATE INDEX IF NOT EXISTS tracking_events_vid ON tracking_events(vid, timestamp) WHERE vid IS NOT NULL;

-- A visitor's sessions (visits): a new one after 30 minutes without a page view or when the visit
-- comes from another source (services/sessions.ts). source…: where the session came from
-- (domain/attribution.ts); referrer: the external one it came with; vid: the contact it counts
-- for, once the visitor is linked to one.
CREATE TABLE IF NOT EXISTS sessions (
  id INTEGER PRIMARY KEY,
  portal_id INTEGER NOT NULL,
  utk TEXT NOT NULL,
  vid INTEGER,
  started_at INTEGER NOT NULL,
  last_at INTEGER NOT NULL,
  page_views INTEGER NOT NULL,
  source TEXT NOT NULL,
  source_data_1 TEXT,
  source_data_2 TEXT,
  referrer TEXT,
  landing_url TEXT
);
CREATE INDEX IF NOT EXISTS sessions_visitor ON sessions(portal_id, utk, started_at);
-- A contact's sessions; an anonymous visitor's (most sessions) have no entry to write there.
CREATE INDEX IF NOT EXISTS sessions_vid ON sessions(vid, started_at) WHERE vid IS NOT NULL;

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

-- Content API v2 objects of every collection (blog posts, pages, comments, ...) in one table: the
-- live record as JSON, the auto-save buffer beside it. The generated columns are the fields lists
-- filter and order on most, so they can be indexed; everything else is read from the JSON.
CREATE TABLE IF NOT EXISTS content_objects (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  portal_id INTEGER NOT NULL,
  collection TEXT NOT NULL,
  data TEXT NOT NULL,
  buffer TEXT,
  deleted_at INTEGER NOT NULL DEFAULT 0,
  -- When a scheduled post or page goes live (null unless scheduled).
  publish_at INTEGER,
  created INTEGER GENERATED ALWAYS AS (json_extract(data, '$.created')) VIRTUAL,
  updated INTEGER GENERATED ALWAYS AS (json_extract(data, '$.updated')) VIRTUAL,
  name TEXT GENERATED ALWAYS AS (json_extract(data, '$.name')) VIRTUAL,
  slug TEXT GENERATED ALWAYS AS (json_extract(data, '$.slug')) VIRTUAL,
  state TEXT GENERATED ALWAYS AS (json_extract(data, '$.state')) VIRTUAL,
  publish_date INTEGER GENERATED ALWAYS AS (json_extract(data, '$.publish_date')) VIRTUAL,
  content_group_id INTEGER GENERATED ALWAYS AS (json_extract(data, '$.content_group_id')) VIRTUAL
);
CREATE INDEX IF NOT EXISTS content_created ON content_objects(portal_id, collection, deleted_at, created);
CREATE INDEX IF NOT EXISTS content_publish_date ON content_objects(portal_id, collection, deleted_at, publish_date);
-- A blog's posts by state, newest first: the list a blog page shows (and bench:platform measures).
CREATE INDEX IF NOT EXISTS content_group_state ON content_objects(portal_id, collection, content_group_id, state, deleted_at, publish_date);
CREATE INDEX IF NOT EXISTS content_slug ON content_objects(portal_id, slug);
CREATE INDEX IF NOT EXISTS content_due ON content_objects(publish_at) WHERE publish_at IS NOT NULL;

-- Every saved state of a content object, newest last (the versions endpoints).
CREATE TABLE IF NOT EXISTS content_versions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  object_id INTEGER NOT NULL,
  data TEXT NOT NULL,
  updated INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS content_versions_object ON content_versions(object_id, id);

-- What happened to a content object besides edits: the publish jobs that did something ("send tweets (...)").
CREATE TABLE IF NOT EXISTS content_history (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  object_id INTEGER NOT NULL,
  event TEXT NOT NULL,
  timestamp INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS content_history_object ON content_history(object_id, seq);

-- Keywords (§4.10): one row per keyword, unique per portal regardless of case.
CREATE TABLE IF NOT EXISTS keywords (
  guid TEXT PRIMARY KEY,
  portal_id INTEGER NOT NULL,
  keyword TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS keywords_portal_keyword ON keywords(portal_id, keyword COLLATE NOCASE);

-- Portal settings (§4.10): name → value.
CREATE TABLE IF NOT EXISTS settings (
  portal_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  value TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (portal_id, name)
);

-- Social channels (seeded per portal) and broadcasts (§4.10). A broadcast's record is JSON; its
-- status and trigger time are columns so the scheduler finds due ones by index. seq numbers the
-- rows as they are inserted, the order they are listed in (channels) or that breaks ties
-- (broadcasts made in the same millisecond); a guid is what the API knows them by.
CREATE TABLE IF NOT EXISTS social_channels (
  seq INTEGER PRIMARY KEY,
  guid TEXT NOT NULL UNIQUE,
  portal_id INTEGER NOT NULL,
  data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS social_channels_portal ON social_channels(portal_id);
CREATE TABLE IF NOT EXISTS broadcasts (
  seq INTEGER PRIMARY KEY,
  guid TEXT NOT NULL UNIQUE,
  portal_id INTEGER NOT NULL,
  status TEXT NOT NULL,
  trigger_at INTEGER,
  created_at INTEGER NOT NULL,
  data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS broadcasts_portal ON broadcasts(portal_id, created_at);
CREATE INDEX IF NOT EXISTS broadcasts_due ON broadcasts(status, trigger_at);

-- Prospects (§4.10): page views whose visitor address maps to an organisation (see
-- store/prospects.ts), and the organisations a portal has hidden.
CREATE TABLE IF NOT EXISTS prospect_views (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  portal_id INTEGER NOT NULL,
  organization TEXT NOT NULL,
  ip TEXT NOT NULL,
  utk TEXT NOT NULL,
  url TEXT,
  timestamp INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS prospect_views_org ON prospect_views(portal_id, organization, timestamp);
CREATE TABLE IF NOT EXISTS prospect_hidden (
  portal_id INTEGER NOT NULL,
  organization TEXT NOT NULL,
  PRIMARY KEY (portal_id, organization)
);

-- The mail catcher (store/outbox.ts): each email a workflow's EMAIL step sent, as rendered, for the
-- inspector to show, since the platform has no mail server. Written in the transaction of its SENT
-- event; only the newest of each portal are kept.
CREATE TABLE IF NOT EXISTS email_outbox (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  portal_id INTEGER NOT NULL,
  campaign_id INTEGER NOT NULL,
  workflow_id INTEGER,
  vid INTEGER,
  recipient TEXT NOT NULL,
  sender TEXT NOT NULL,
  subject TEXT NOT NULL,
  text_body TEXT NOT NULL,
  html_body TEXT NOT NULL,
  preference_link INTEGER NOT NULL,
  sent_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS email_outbox_portal ON email_outbox(portal_id, seq);

CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
`;
