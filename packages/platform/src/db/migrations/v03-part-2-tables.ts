/** 2 → 3: part 2's tables: content objects with their versions and history, keywords, settings,
 * social channels and broadcasts, prospects. Nothing earlier changes. */
import type { Migration } from './migration';

export default {
  version: 3,
  sqlite: `
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
  CREATE INDEX IF NOT EXISTS content_group ON content_objects(portal_id, collection, content_group_id, deleted_at, publish_date);
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

  -- What happened to a content object besides edits: publish jobs ("send enabled emails and tweets").
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
  -- status and trigger time are columns so the scheduler finds due ones by index.
  CREATE TABLE IF NOT EXISTS social_channels (
    guid TEXT PRIMARY KEY,
    portal_id INTEGER NOT NULL,
    data TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS social_channels_portal ON social_channels(portal_id);
  CREATE TABLE IF NOT EXISTS broadcasts (
    guid TEXT PRIMARY KEY,
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
`,
  postgres: `
  -- Content API v2 objects of every collection (blog posts, pages, comments, ...) in one table: the
  -- live record as JSON, the auto-save buffer beside it. The generated columns are the fields lists
  -- filter and order on most, so they can be indexed; everything else is read from the JSON.
  CREATE TABLE IF NOT EXISTS content_objects (
    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    portal_id BIGINT NOT NULL,
    collection TEXT NOT NULL,
    data TEXT NOT NULL,
    buffer TEXT,
    deleted_at BIGINT NOT NULL DEFAULT 0,
    -- When a scheduled post or page goes live (null unless scheduled).
    publish_at BIGINT,
    created DOUBLE PRECISION GENERATED ALWAYS AS (CASE WHEN jsonb_typeof(data::jsonb -> 'created') = 'number' THEN ((data::jsonb -> 'created') #>> '{}')::double precision END) STORED,
    updated DOUBLE PRECISION GENERATED ALWAYS AS (CASE WHEN jsonb_typeof(data::jsonb -> 'updated') = 'number' THEN ((data::jsonb -> 'updated') #>> '{}')::double precision END) STORED,
    name TEXT GENERATED ALWAYS AS ((data::jsonb -> 'name') #>> '{}') STORED,
    slug TEXT GENERATED ALWAYS AS ((data::jsonb -> 'slug') #>> '{}') STORED,
    state TEXT GENERATED ALWAYS AS ((data::jsonb -> 'state') #>> '{}') STORED,
    publish_date DOUBLE PRECISION GENERATED ALWAYS AS (CASE WHEN jsonb_typeof(data::jsonb -> 'publish_date') = 'number' THEN ((data::jsonb -> 'publish_date') #>> '{}')::double precision END) STORED,
    content_group_id DOUBLE PRECISION GENERATED ALWAYS AS (CASE WHEN jsonb_typeof(data::jsonb -> 'content_group_id') = 'number' THEN ((data::jsonb -> 'content_group_id') #>> '{}')::double precision END) STORED
  );
  CREATE INDEX IF NOT EXISTS content_created ON content_objects(portal_id, collection, deleted_at, created);
  CREATE INDEX IF NOT EXISTS content_publish_date ON content_objects(portal_id, collection, deleted_at, publish_date);
  CREATE INDEX IF NOT EXISTS content_group ON content_objects(portal_id, collection, content_group_id, deleted_at, publish_date);
  CREATE INDEX IF NOT EXISTS content_slug ON content_objects(portal_id, slug);
  CREATE INDEX IF NOT EXISTS content_due ON content_objects(publish_at) WHERE publish_at IS NOT NULL;

  -- Every saved state of a content object, newest last (the versions endpoints).
  CREATE TABLE IF NOT EXISTS content_versions (
    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    object_id BIGINT NOT NULL,
    data TEXT NOT NULL,
    updated BIGINT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS content_versions_object ON content_versions(object_id, id);

  -- What happened to a content object besides edits: publish jobs ("send enabled emails and tweets").
  CREATE TABLE IF NOT EXISTS content_history (
    seq BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    object_id BIGINT NOT NULL,
    event TEXT NOT NULL,
    timestamp BIGINT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS content_history_object ON content_history(object_id, seq);

  -- Keywords (§4.10): one row per keyword, unique per portal regardless of case.
  CREATE TABLE IF NOT EXISTS keywords (
    guid TEXT PRIMARY KEY,
    portal_id BIGINT NOT NULL,
    keyword TEXT NOT NULL,
    created_at BIGINT NOT NULL
  );
  CREATE UNIQUE INDEX IF NOT EXISTS keywords_portal_keyword ON keywords(portal_id, lower(keyword));

  -- Portal settings (§4.10): name → value.
  CREATE TABLE IF NOT EXISTS settings (
    portal_id BIGINT NOT NULL,
    name TEXT NOT NULL,
    value TEXT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (portal_id, name)
  );

  -- Social channels (seeded per portal) and broadcasts (§4.10). A broadcast's record is JSON; its
  -- status and trigger time are columns so the scheduler finds due ones by index.
  CREATE TABLE IF NOT EXISTS social_channels (
    guid TEXT PRIMARY KEY,
    portal_id BIGINT NOT NULL,
    data TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS social_channels_portal ON social_channels(portal_id);
  CREATE TABLE IF NOT EXISTS broadcasts (
    guid TEXT PRIMARY KEY,
    portal_id BIGINT NOT NULL,
    status TEXT NOT NULL,
    trigger_at BIGINT,
    created_at BIGINT NOT NULL,
    data TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS broadcasts_portal ON broadcasts(portal_id, created_at);
  CREATE INDEX IF NOT EXISTS broadcasts_due ON broadcasts(status, trigger_at);

  -- Prospects (§4.10): page views whose visitor address maps to an organisation (see
  -- store/prospects.ts), and the organisations a portal has hidden.
  CREATE TABLE IF NOT EXISTS prospect_views (
    seq BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    portal_id BIGINT NOT NULL,
    organization TEXT NOT NULL,
    ip TEXT NOT NULL,
    utk TEXT NOT NULL,
    url TEXT,
    timestamp BIGINT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS prospect_views_org ON prospect_views(portal_id, organization, timestamp);
  CREATE TABLE IF NOT EXISTS prospect_hidden (
    portal_id BIGINT NOT NULL,
    organization TEXT NOT NULL,
    PRIMARY KEY (portal_id, organization)
  );
`,
} satisfies Migration;
