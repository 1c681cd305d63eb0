/** The live schema on SQLite, part 1 of 2: portals and credentials, contacts and their history,
 * visitor tokens, form submissions with their consents and spam, properties, lists, forms, email
 * subscriptions, campaigns and events, workflows with their enrollments and webhooks. A new
 * database is made with it (db/schema.ts puts the parts together); the steps in db/migrations/
 * bring an older one to the same tables. The same tables on PostgreSQL: postgres-crm.ts. */
export const SQLITE_CRM = `
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

`;
