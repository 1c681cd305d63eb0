/** 3 → 4: a blog's posts are listed by state as well: content_group_state replaces content_group. */
import type { Migration } from './migration';

export default {
  version: 4,
  sqlite: `
  DROP INDEX IF EXISTS content_group;
  -- A blog's posts by state, newest first: the list a blog page shows (and bench:platform measures).
  CREATE INDEX IF NOT EXISTS content_group_state ON content_objects(portal_id, collection, content_group_id, state, deleted_at, publish_date);
`,
  postgres: `
  DROP INDEX IF EXISTS content_group;
  -- A blog's posts by state, newest first: the list a blog page shows (and bench:platform measures).
  CREATE INDEX IF NOT EXISTS content_group_state ON content_objects(portal_id, collection, content_group_id, state, deleted_at, publish_date);
`,
} satisfies Migration;
