/** Version 1: the first schema, whole (as the platform's first commit made it). The steps after it
 * change it; a new database is made from the live schema instead (db/schema.ts). PostgreSQL
 * databases began at version 7, but the base is written for PostgreSQL too, so that the test can
 * apply every step on both engines from here. */
import type { Migration } from './migration';

export default {
  version: 1,
  sqlite: `
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
    deleted INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX IF NOT EXISTS contacts_portal_vid ON contacts(portal_id, deleted, vid);
  CREATE INDEX IF NOT EXISTS contacts_portal_updated ON contacts(portal_id, deleted, updated_at, vid);
  CREATE UNIQUE INDEX IF NOT EXISTS contacts_portal_email ON contacts(portal_id, email) WHERE deleted = 0 AND email IS NOT NULL;

  -- Every value a contact property ever had (propertyMode=value_and_history).
  CREATE TABLE IF NOT EXISTS property_history (
    vid INTEGER NOT NULL,
    name TEXT NOT NULL,
    value TEXT NOT NULL,
    source_type TEXT NOT NULL,
    source_id TEXT,
    timestamp INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS property_history_vid ON property_history(vid, name, timestamp);

  -- Visitor tokens (svcutk) linked to contacts: the LEAD_GUID identities.
  CREATE TABLE IF NOT EXISTS utks (
    portal_id INTEGER NOT NULL,
    utk TEXT NOT NULL,
    vid INTEGER NOT NULL,
    linked_at INTEGER NOT NULL,
    PRIMARY KEY (portal_id, utk)
  );
  CREATE INDEX IF NOT EXISTS utks_vid ON utks(vid);

  CREATE TABLE IF NOT EXISTS form_submissions (
    conversion_id TEXT PRIMARY KEY,
    portal_id INTEGER NOT NULL,
    vid INTEGER NOT NULL,
    form_guid TEXT NOT NULL,
    timestamp INTEGER NOT NULL,
    page_url TEXT,
    page_title TEXT,
    values_json TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS form_submissions_vid ON form_submissions(vid, timestamp);

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

  CREATE TABLE IF NOT EXISTS forms (
    guid TEXT PRIMARY KEY,
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
    enrolled_at INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS enrollments_due ON enrollments(status, next_run_at);
  CREATE INDEX IF NOT EXISTS enrollments_vid ON enrollments(vid, status);

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

  -- Page views and custom events from the collector and the HTTP events API, deduplicated by eid.
  CREATE TABLE IF NOT EXISTS tracking_events (
    eid TEXT PRIMARY KEY,
    portal_id INTEGER NOT NULL,
    kind INTEGER NOT NULL,
    utk TEXT,
    vid INTEGER,
    timestamp INTEGER NOT NULL,
    received_at INTEGER NOT NULL,
    data TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS tracking_events_utk ON tracking_events(portal_id, utk, timestamp);
  CREATE INDEX IF NOT EXISTS tracking_events_vid ON tracking_events(vid, timestamp);

  CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
`,
  postgres: `
  CREATE TABLE IF NOT EXISTS portals (
    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    name TEXT NOT NULL,
    tier TEXT NOT NULL CHECK (tier IN ('starter', 'professional', 'enterprise')),
    created_at BIGINT NOT NULL
  );

  -- API keys, private-app tokens, OAuth clients, refresh and access tokens.
  CREATE TABLE IF NOT EXISTS credentials (
    hash TEXT PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('hapikey', 'privateApp', 'oauthClient', 'refresh', 'access')),
    portal_id BIGINT NOT NULL REFERENCES portals(id),
    client_id TEXT,
    scopes TEXT NOT NULL DEFAULT '[]',
    expires_at BIGINT,
    revoked BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS credentials_client ON credentials(client_id, kind);

  CREATE TABLE IF NOT EXISTS contacts (
    vid BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    portal_id BIGINT NOT NULL REFERENCES portals(id),
    email TEXT,
    properties TEXT NOT NULL DEFAULT '{}',
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted BIGINT NOT NULL DEFAULT 0
  );
  CREATE INDEX IF NOT EXISTS contacts_portal_vid ON contacts(portal_id, deleted, vid);
  CREATE INDEX IF NOT EXISTS contacts_portal_updated ON contacts(portal_id, deleted, updated_at, vid);
  CREATE UNIQUE INDEX IF NOT EXISTS contacts_portal_email ON contacts(portal_id, email) WHERE deleted = 0 AND email IS NOT NULL;

  -- Every value a contact property ever had (propertyMode=value_and_history).
  CREATE TABLE IF NOT EXISTS property_history (
    vid BIGINT NOT NULL,
    name TEXT NOT NULL,
    value TEXT NOT NULL,
    source_type TEXT NOT NULL,
    source_id TEXT,
    timestamp BIGINT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS property_history_vid ON property_history(vid, name, timestamp);

  -- Visitor tokens (svcutk) linked to contacts: the LEAD_GUID identities.
  CREATE TABLE IF NOT EXISTS utks (
    portal_id BIGINT NOT NULL,
    utk TEXT NOT NULL,
    vid BIGINT NOT NULL,
    linked_at BIGINT NOT NULL,
    PRIMARY KEY (portal_id, utk)
  );
  CREATE INDEX IF NOT EXISTS utks_vid ON utks(vid);

  CREATE TABLE IF NOT EXISTS form_submissions (
    conversion_id TEXT PRIMARY KEY,
    portal_id BIGINT NOT NULL,
    vid BIGINT NOT NULL,
    form_guid TEXT NOT NULL,
    timestamp BIGINT NOT NULL,
    page_url TEXT,
    page_title TEXT,
    values_json TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS form_submissions_vid ON form_submissions(vid, timestamp);

  CREATE TABLE IF NOT EXISTS property_groups (
    portal_id BIGINT NOT NULL,
    object_type TEXT NOT NULL CHECK (object_type IN ('contacts', 'deals')),
    name TEXT NOT NULL,
    display_name TEXT NOT NULL,
    display_order BIGINT NOT NULL,
    svc_defined BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (portal_id, object_type, name)
  );

  CREATE TABLE IF NOT EXISTS properties (
    portal_id BIGINT NOT NULL,
    object_type TEXT NOT NULL CHECK (object_type IN ('contacts', 'deals')),
    name TEXT NOT NULL,
    definition TEXT NOT NULL,
    PRIMARY KEY (portal_id, object_type, name)
  );

  CREATE TABLE IF NOT EXISTS lists (
    list_id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    portal_id BIGINT NOT NULL,
    internal_list_id BIGINT NOT NULL,
    name TEXT NOT NULL,
    dynamic BIGINT NOT NULL,
    filters TEXT NOT NULL DEFAULT '[]',
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    processed_at BIGINT NOT NULL,
    size_changed_at BIGINT NOT NULL DEFAULT 0
  );
  CREATE INDEX IF NOT EXISTS lists_portal ON lists(portal_id, list_id);

  CREATE TABLE IF NOT EXISTS list_members (
    list_id BIGINT NOT NULL,
    vid BIGINT NOT NULL,
    added_at BIGINT NOT NULL,
    PRIMARY KEY (list_id, vid)
  );
  CREATE INDEX IF NOT EXISTS list_members_vid ON list_members(vid);

  CREATE TABLE IF NOT EXISTS forms (
    guid TEXT PRIMARY KEY,
    portal_id BIGINT NOT NULL,
    definition TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS forms_portal ON forms(portal_id, created_at);

  CREATE TABLE IF NOT EXISTS subscription_types (
    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    portal_id BIGINT NOT NULL,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    active BIGINT NOT NULL DEFAULT 1,
    category TEXT NOT NULL DEFAULT 'Marketing'
  );

  CREATE TABLE IF NOT EXISTS subscription_statuses (
    portal_id BIGINT NOT NULL,
    email TEXT NOT NULL,
    type_id BIGINT NOT NULL,
    subscribed BIGINT NOT NULL,
    opt_state TEXT NOT NULL,
    legal_basis TEXT,
    legal_basis_explanation TEXT,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (portal_id, email, type_id)
  );

  CREATE TABLE IF NOT EXISTS portal_unsubscribes (
    portal_id BIGINT NOT NULL,
    email TEXT NOT NULL,
    at BIGINT NOT NULL,
    PRIMARY KEY (portal_id, email)
  );

  CREATE TABLE IF NOT EXISTS campaigns (
    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    portal_id BIGINT NOT NULL,
    data TEXT NOT NULL,
    last_updated BIGINT NOT NULL
  );

  CREATE TABLE IF NOT EXISTS email_events (
    seq BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    id TEXT NOT NULL,
    portal_id BIGINT NOT NULL,
    campaign_id BIGINT NOT NULL,
    created BIGINT NOT NULL,
    type TEXT NOT NULL,
    recipient TEXT NOT NULL,
    data TEXT NOT NULL DEFAULT '{}'
  );
  CREATE INDEX IF NOT EXISTS email_events_campaign ON email_events(portal_id, campaign_id, seq);

  CREATE TABLE IF NOT EXISTS workflows (
    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    portal_id BIGINT NOT NULL,
    definition TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted BIGINT NOT NULL DEFAULT 0
  );

  CREATE TABLE IF NOT EXISTS enrollments (
    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    workflow_id BIGINT NOT NULL,
    portal_id BIGINT NOT NULL,
    vid BIGINT NOT NULL,
    step BIGINT NOT NULL DEFAULT 0,
    next_run_at BIGINT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'completed', 'unenrolled', 'failed')),
    enrolled_at BIGINT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS enrollments_due ON enrollments(status, next_run_at);
  CREATE INDEX IF NOT EXISTS enrollments_vid ON enrollments(vid, status);

  CREATE TABLE IF NOT EXISTS workflow_log (
    seq BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    workflow_id BIGINT NOT NULL,
    vid BIGINT NOT NULL,
    event_type TEXT NOT NULL,
    step_id BIGINT,
    timestamp BIGINT NOT NULL,
    detail TEXT
  );
  CREATE INDEX IF NOT EXISTS workflow_log_contact ON workflow_log(workflow_id, vid, seq);

  -- Page views and custom events from the collector and the HTTP events API, deduplicated by eid.
  CREATE TABLE IF NOT EXISTS tracking_events (
    eid TEXT PRIMARY KEY,
    portal_id BIGINT NOT NULL,
    kind BIGINT NOT NULL,
    utk TEXT,
    vid BIGINT,
    timestamp BIGINT NOT NULL,
    received_at BIGINT NOT NULL,
    data TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS tracking_events_utk ON tracking_events(portal_id, utk, timestamp);
  CREATE INDEX IF NOT EXISTS tracking_events_vid ON tracking_events(vid, timestamp);

  CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
`,
} satisfies Migration;
