/** The platform's tables. Every row that belongs to a portal carries `portal_id`, and every query
 * filters on it: no data crosses portals. Secrets (tokens, keys, client secrets) are stored as
 * SHA-256 hashes only, but for OAuth apps' client secrets in app_secrets, which sign webhooks. */
export const SCHEMA_VERSION = 19;

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS portals (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  tier TEXT NOT NULL CHECK (tier IN ('starter', 'professional', 'enterprise')),
  created_at INTEGER NOT NULL
);

-- API keys, private-app tokens, OAuth clients, refresh and access tokens.
CREATE TABLE IF NOT EXISTS credentials (
  hash TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('hapikey', 'privateApp', 'oauthClient', 'refresh', 'access')),
  portal_id INTEGER NOT NULL REFERENCES portals(id),
  client_id TEXT,
  scopes TEXT NOT NULL DEFAULT '[]',
  expires_at INTEGER,
  revoked INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS credentials_client ON credentials(client_id, kind);

CREATE TABLE IF NOT EXISTS contacts (
  vid INTEGER PRIMARY KEY AUTOINCREMENT,
  portal_id INTEGER NOT NULL REFERENCES portals(id),
  email TEXT,
  properties TEXT NOT NULL DEFAULT '{}',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  deleted INTEGER NOT NULL DEFAULT 0,
  -- The newest row of the contact's contact_history (null before its first recorded write).
  history_head INTEGER
);
CREATE INDEX IF NOT EXISTS contacts_portal_vid ON contacts(portal_id, deleted, vid);
CREATE INDEX IF NOT EXISTS contacts_portal_updated ON contacts(portal_id, deleted, updated_at, vid);
CREATE UNIQUE INDEX IF NOT EXISTS contacts_portal_email ON contacts(portal_id, email) WHERE deleted = 0 AND email IS NOT NULL;

-- Every write to a contact's properties (propertyMode=value_and_history): what it changed, as a JSON
-- object {name: value}. The table is append-only and has no index: a contact's writes form a
-- chain, newest first, from contacts.history_head through prev. So recording a write adds to the
-- end of this table and to the contact row being written anyway, and updating random contacts in
-- bulk dirties no further page (an index by contact would add one random page per write).
CREATE TABLE IF NOT EXISTS contact_history (
  seq INTEGER PRIMARY KEY,
  vid INTEGER NOT NULL,
  prev INTEGER,
  timestamp INTEGER NOT NULL,
  source_type TEXT NOT NULL,
  source_id TEXT,
  changes TEXT NOT NULL
);

-- Visitor tokens (svcutk) linked to contacts: the LEAD_GUID identities.
CREATE TABLE IF NOT EXISTS utks (
  portal_id INTEGER NOT NULL,
  utk TEXT NOT NULL,
  vid INTEGER NOT NULL,
  linked_at INTEGER NOT NULL,
  PRIMARY KEY (portal_id, utk)
);
CREATE INDEX IF NOT EXISTS utks_vid ON utks(vid);

-- vid is null for a submission that made no contact (a form without an email field).
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

-- The legal consent given with a submission (a form with legalConsentOptions), as JSON: what was
-- agreed to and the texts the form showed. Shown with the submission on the contact.
CREATE TABLE IF NOT EXISTS form_consents (
  conversion_id TEXT PRIMARY KEY,
  portal_id INTEGER NOT NULL,
  consent TEXT NOT NULL
);

-- Submissions judged spam (honeypot filled, or sent with no sign of a person: see
-- packages/forms/README.md): kept to be reviewed, with everything needed to replay one that a
-- person releases as not spam; they made no contact until then. reason: HONEYPOT,
-- NO_INTERACTION, or TOO_FAST (the fill-time rule before schema 19). context_json: the
-- submission's svc_context as used; consent_json: the legal consent given. released_at and
-- released_vid: when it was released and the contact it made (null while it is spam).
CREATE TABLE IF NOT EXISTS spam_submissions (
  conversion_id TEXT PRIMARY KEY,
  portal_id INTEGER NOT NULL,
  form_guid TEXT NOT NULL,
  timestamp INTEGER NOT NULL,
  reason TEXT NOT NULL,
  page_url TEXT,
  values_json TEXT NOT NULL,
  context_json TEXT,
  consent_json TEXT,
  released_at INTEGER,
  released_vid INTEGER
);
CREATE INDEX IF NOT EXISTS spam_submissions_form ON spam_submissions(portal_id, form_guid, timestamp);

CREATE TABLE IF NOT EXISTS property_groups (
  portal_id INTEGER NOT NULL,
  object_type TEXT NOT NULL CHECK (object_type IN ('contacts', 'deals')),
  name TEXT NOT NULL,
  display_name TEXT NOT NULL,
  display_order INTEGER NOT NULL,
  svc_defined INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (portal_id, object_type, name)
);

CREATE TABLE IF NOT EXISTS properties (
  portal_id INTEGER NOT NULL,
  object_type TEXT NOT NULL CHECK (object_type IN ('contacts', 'deals')),
  name TEXT NOT NULL,
  definition TEXT NOT NULL,
  PRIMARY KEY (portal_id, object_type, name)
);

CREATE TABLE IF NOT EXISTS lists (
  list_id INTEGER PRIMARY KEY AUTOINCREMENT,
  portal_id INTEGER NOT NULL,
  internal_list_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  dynamic INTEGER NOT NULL,
  filters TEXT NOT NULL DEFAULT '[]',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  processed_at INTEGER NOT NULL,
  size_changed_at INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS lists_portal ON lists(portal_id, list_id);

CREATE TABLE IF NOT EXISTS list_members (
  list_id INTEGER NOT NULL,
  vid INTEGER NOT NULL,
  added_at INTEGER NOT NULL,
  PRIMARY KEY (list_id, vid)
);
CREATE INDEX IF NOT EXISTS list_members_vid ON list_members(vid);
-- A list's members newest first (its recent contacts) and its newest arrival (lastSizeChangeAt).
CREATE INDEX IF NOT EXISTS list_members_added ON list_members(list_id, added_at, vid);

-- seq: the order forms were made in (a list's order within one millisecond; guids are random).
CREATE TABLE IF NOT EXISTS forms (
  seq INTEGER PRIMARY KEY,
  guid TEXT NOT NULL UNIQUE,
  portal_id INTEGER NOT NULL,
  definition TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS forms_portal ON forms(portal_id, created_at);

CREATE TABLE IF NOT EXISTS subscription_types (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  portal_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  description TEXT NOT NULL,
  active INTEGER NOT NULL DEFAULT 1,
  category TEXT NOT NULL DEFAULT 'Marketing'
);

CREATE TABLE IF NOT EXISTS subscription_statuses (
  portal_id INTEGER NOT NULL,
  email TEXT NOT NULL,
  type_id INTEGER NOT NULL,
  subscribed INTEGER NOT NULL,
  opt_state TEXT NOT NULL,
  legal_basis TEXT,
  legal_basis_explanation TEXT,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (portal_id, email, type_id)
);

CREATE TABLE IF NOT EXISTS portal_unsubscribes (
  portal_id INTEGER NOT NULL,
  email TEXT NOT NULL,
  at INTEGER NOT NULL,
  PRIMARY KEY (portal_id, email)
);

CREATE TABLE IF NOT EXISTS campaigns (
  id INTEGER PRIMARY KEY,
  portal_id INTEGER NOT NULL,
  data TEXT NOT NULL,
  last_updated INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS email_events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL,
  portal_id INTEGER NOT NULL,
  campaign_id INTEGER NOT NULL,
  created INTEGER NOT NULL,
  type TEXT NOT NULL,
  recipient TEXT NOT NULL,
  data TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS email_events_campaign ON email_events(portal_id, campaign_id, seq);

CREATE TABLE IF NOT EXISTS workflows (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  portal_id INTEGER NOT NULL,
  definition TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  deleted INTEGER NOT NULL DEFAULT 0
);

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
CREATE INDEX IF NOT EXISTS enrollments_due ON enrollments(status, next_run_at);
CREATE INDEX IF NOT EXISTS enrollments_vid ON enrollments(vid, status);
-- A contact is in a workflow at most once at a time: two processes enrolling it at once cannot
-- both start it.
CREATE UNIQUE INDEX IF NOT EXISTS enrollments_active ON enrollments(workflow_id, vid) WHERE status = 'active';

CREATE TABLE IF NOT EXISTS workflow_log (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  workflow_id INTEGER NOT NULL,
  vid INTEGER NOT NULL,
  event_type TEXT NOT NULL,
  step_id INTEGER,
  timestamp INTEGER NOT NULL,
  detail TEXT
);
CREATE INDEX IF NOT EXISTS workflow_log_contact ON workflow_log(workflow_id, vid, seq);

-- The client secrets of OAuth apps, kept (unlike every other secret, stored as a hash only)
-- because workflow webhooks are signed with them (X-Svc-Signature-v3): the signature is the
-- receiver's proof that the call comes from the platform, and both sides need the key.
CREATE TABLE IF NOT EXISTS app_secrets (
  client_id TEXT PRIMARY KEY,
  portal_id INTEGER NOT NULL,
  secret TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS app_secrets_portal ON app_secrets(portal_id, created_at);

-- Webhook calls of workflow steps, until delivered or given up (store/webhook-queue.ts): in the
-- database like the enrollment they belong to, so a restart loses none, and claimed for a lease
-- (claimed_until) by the process sending one, so each attempt is made once across processes.
-- event_id is the X-Svc-Event-Id header, the same on every attempt; body is sent as it is stored.
CREATE TABLE IF NOT EXISTS webhook_deliveries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id TEXT NOT NULL UNIQUE,
  portal_id INTEGER NOT NULL,
  workflow_id INTEGER NOT NULL,
  enrollment_id INTEGER NOT NULL,
  vid INTEGER NOT NULL,
  step INTEGER NOT NULL,
  method TEXT NOT NULL,
  url TEXT NOT NULL,
  body TEXT NOT NULL,
  client_id TEXT,
  status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  next_at INTEGER NOT NULL,
  claimed_until INTEGER,
  last_outcome TEXT
);
CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries(status, next_at);

-- Page views and custom events from the collector and the HTTP events API, deduplicated by eid
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

const FORMS = SCHEMA.slice(SCHEMA.indexOf('CREATE TABLE IF NOT EXISTS forms ('), SCHEMA.indexOf('CREATE TABLE IF NOT EXISTS subscription_types'));
const FORM_SUBMISSIONS = SCHEMA.slice(SCHEMA.indexOf('CREATE TABLE IF NOT EXISTS form_submissions'), SCHEMA.indexOf('CREATE TABLE IF NOT EXISTS property_groups'));
const SOCIAL = SCHEMA.slice(SCHEMA.indexOf('CREATE TABLE IF NOT EXISTS social_channels'), SCHEMA.indexOf('-- Prospects (§4.10)'));
const ENROLLMENTS = SCHEMA.slice(SCHEMA.indexOf('CREATE TABLE IF NOT EXISTS enrollments'), SCHEMA.indexOf('CREATE INDEX IF NOT EXISTS enrollments_due'));

/** Changes from one schema version to the next, for databases made by an earlier version. */
export const MIGRATIONS: Record<number, string> = {
  // 1 → 2: tracking_events keyed by visitor (see above).
  2: `
    ALTER TABLE tracking_events RENAME TO tracking_events_v1;
    DROP INDEX IF EXISTS tracking_events_utk;
    DROP INDEX IF EXISTS tracking_events_vid;
    CREATE TABLE tracking_events (seq INTEGER PRIMARY KEY, eid TEXT NOT NULL, portal_id INTEGER NOT NULL, kind INTEGER NOT NULL,
      utk TEXT NOT NULL, vid INTEGER, timestamp INTEGER NOT NULL, received_at INTEGER NOT NULL, data TEXT NOT NULL);
    CREATE UNIQUE INDEX tracking_events_visitor ON tracking_events(portal_id, utk, eid);
    CREATE INDEX tracking_events_vid ON tracking_events(vid, timestamp);
    INSERT INTO tracking_events (eid, portal_id, kind, utk, vid, timestamp, received_at, data)
      SELECT eid, portal_id, kind, coalesce(utk, ''), vid, timestamp, received_at, data FROM tracking_events_v1 ORDER BY rowid;
    DROP TABLE tracking_events_v1;
  `,
  // 2 → 3: the part-2 tables are new (CREATE TABLE IF NOT EXISTS in SCHEMA makes them); nothing
  // earlier changes.
  3: `SELECT 1;`,
  // 3 → 4: a blog's posts are listed by state as well (content_group_state, made by SCHEMA).
  4: `DROP INDEX IF EXISTS content_group;`,
  // 4 → 5: property_history (a row per property, indexed by contact) becomes contact_history (a
  // row per write, chained per contact). Values one source wrote in the same millisecond form one
  // write; writes keep their order.
  5: `
    ALTER TABLE contacts ADD COLUMN history_head INTEGER;
    ${SCHEMA.slice(SCHEMA.indexOf('CREATE TABLE IF NOT EXISTS contact_history'), SCHEMA.indexOf('-- Visitor tokens (svcutk)'))}
    INSERT INTO contact_history (vid, timestamp, source_type, source_id, changes)
      SELECT vid, timestamp, source_type, source_id, json_group_object(name, value)
      FROM (SELECT rowid AS r, * FROM property_history ORDER BY rowid)
      GROUP BY vid, timestamp, source_type, source_id ORDER BY min(r);
    UPDATE contact_history SET prev = l.prev
      FROM (SELECT seq, lag(seq) OVER (PARTITION BY vid ORDER BY seq) AS prev FROM contact_history) AS l
      WHERE l.seq = contact_history.seq AND l.prev IS NOT NULL;
    UPDATE contacts SET history_head = h.head
      FROM (SELECT vid, max(seq) AS head FROM contact_history GROUP BY vid) AS h WHERE h.vid = contacts.vid;
    DROP TABLE property_history;
  `,
  // 5 → 6: tracking events get named columns for what the platform reads (they were read out of
  // the tracker's one-letter wire fields in \`data\`, which the events API had to imitate).
  6: `
    ALTER TABLE tracking_events ADD COLUMN source TEXT NOT NULL DEFAULT 'tracker';
    ALTER TABLE tracking_events ADD COLUMN url TEXT;
    ALTER TABLE tracking_events ADD COLUMN title TEXT;
    ALTER TABLE tracking_events ADD COLUMN event_name TEXT;
    ALTER TABLE tracking_events ADD COLUMN value REAL;
    ALTER TABLE tracking_events ADD COLUMN external_id TEXT;
    UPDATE tracking_events SET
      source = CASE json_extract(data, '$.via') WHEN 'http-get' THEN 'events-get' WHEN 'http-post' THEN 'events-post' ELSE 'tracker' END,
      url = json_extract(data, '$.pu'),
      title = json_extract(data, '$.t'),
      event_name = CASE WHEN json_extract(data, '$.via') = 'http-get' THEN json_extract(data, '$._n') ELSE json_extract(data, '$.n') END,
      value = CASE WHEN json_extract(data, '$.via') = 'http-get' THEN json_extract(data, '$._m') ELSE json_extract(data, '$.m') END,
      external_id = coalesce(json_extract(data, '$.externalId'), json_extract(data, '$.id'));
  `,
  // 6 → 7: a form submission may make no contact (vid becomes nullable). The table is made first
  // if missing (a database from before forms), so that the copy below always has one to copy.
  7: `
    ${FORM_SUBMISSIONS}
    ALTER TABLE form_submissions RENAME TO form_submissions_v6;
    DROP INDEX IF EXISTS form_submissions_vid;
    ${FORM_SUBMISSIONS}
    INSERT INTO form_submissions SELECT * FROM form_submissions_v6;
    DROP TABLE form_submissions_v6;
  `,
  // 7 → 8: social channels and broadcasts get seq, their insertion order, which their rowids
  // were (PostgreSQL has no rowid). The tables are made first if missing (a database from before
  // part 2), so that the copy below always has one to copy.
  8: `
    CREATE TABLE IF NOT EXISTS social_channels (guid TEXT PRIMARY KEY, portal_id INTEGER NOT NULL, data TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS broadcasts (guid TEXT PRIMARY KEY, portal_id INTEGER NOT NULL, status TEXT NOT NULL, trigger_at INTEGER,
      created_at INTEGER NOT NULL, data TEXT NOT NULL);
    ALTER TABLE social_channels RENAME TO social_channels_v7;
    ALTER TABLE broadcasts RENAME TO broadcasts_v7;
    DROP INDEX IF EXISTS social_channels_portal;
    DROP INDEX IF EXISTS broadcasts_portal;
    DROP INDEX IF EXISTS broadcasts_due;
    ${SOCIAL}
    INSERT INTO social_channels (seq, guid, portal_id, data) SELECT rowid, guid, portal_id, data FROM social_channels_v7;
    INSERT INTO broadcasts (seq, guid, portal_id, status, trigger_at, created_at, data)
      SELECT rowid, guid, portal_id, status, trigger_at, created_at, data FROM broadcasts_v7;
    DROP TABLE social_channels_v7;
    DROP TABLE broadcasts_v7;
  `,
  // 8 → 9: forms get seq, the order they were made in, which PostgreSQL keeps too (it was
  // SQLite's rowid, so it is copied from it); the guid stays unique. The table is made first if
  // missing (a database from before forms), so that the copy below always has one to copy.
  9: `
    ${FORMS}
    DROP INDEX IF EXISTS forms_portal;
    ALTER TABLE forms RENAME TO forms_v8;
    ${FORMS}
    INSERT INTO forms (seq, guid, portal_id, definition, created_at, updated_at)
      SELECT rowid, guid, portal_id, definition, created_at, updated_at FROM forms_v8;
    DROP TABLE forms_v8;
  `,
  // 9 → 10: a workflow step is claimed by the process that runs it (enrollments.claimed_until),
  // and a contact is in a workflow once at a time (the unique index, made by SCHEMA). As in 7, the
  // table is made first if missing, so that the copy always has one to copy.
  10: `
    ${ENROLLMENTS}
    ALTER TABLE enrollments RENAME TO enrollments_v9;
    ${ENROLLMENTS}
    INSERT INTO enrollments (id, workflow_id, portal_id, vid, step, next_run_at, status, enrolled_at)
      SELECT id, workflow_id, portal_id, vid, step, next_run_at, status, enrolled_at FROM enrollments_v9;
    DROP TABLE enrollments_v9;
  `,
  // 10 → 11: visitors' sessions are new (the sessions table, made by SCHEMA); nothing earlier
  // changes. Events from before have no sessions: contacts count visits from now on.
  11: `SELECT 1;`,
  // 11 → 12: the dashboard's rollups and the sessions' last_at index are new (made by SCHEMA).
  // Events from before are not in the rollups: the dashboard counts from the upgrade on.
  12: `SELECT 1;`,
  // 12 → 13: the list_members_added index (made by SCHEMA), which a list's last size change is now
  // read from, and PostgreSQL's rollup_deltas (schema-postgres.ts).
  13: `SELECT 1;`,
  // 13 → 14: form_consents and spam_submissions are new (made by SCHEMA); nothing earlier changes.
  14: `SELECT 1;`,
  // 14 → 15: signed, retried webhooks: app_secrets and webhook_deliveries are new (made by SCHEMA).
  15: `SELECT 1;`,
  // 15 → 16: the mail catcher's email_outbox is new (made by SCHEMA); emails sent before are not in it.
  16: `SELECT 1;`,
  // 16 → 17: the events' and the sessions' vid indexes hold contacts' rows only (SCHEMA makes
  // them again, with their WHERE): an anonymous visitor's event or session, most of what the
  // collector stores, writes one index fewer, and every query by vid can use them (vid = ? is
  // never true of a null).
  17: `DROP INDEX IF EXISTS tracking_events_vid; DROP INDEX IF EXISTS sessions_vid;`,
  // 17 → 18: the visitors the dashboard counts come from their sessions (services/sessions.ts),
  // not from a row per visitor and hour or day.
  18: `DROP TABLE IF EXISTS rollup_visitors;`,
  // 18 → 19: spam submissions keep their context and consent, and can be released (the columns
  // after values_json). Written out whole, not cut from SCHEMA, and copied into a new table rather
  // than altered, so that it also applies to a table that has the columns already (the migration
  // tests turn a new database's version back): the table as schema 14 made it, for a database
  // from before 14, then the copy.
  19: `
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
  `,
};
