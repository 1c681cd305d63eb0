/** 16 → 17: the events' and the sessions' vid indexes hold contacts' rows only: an anonymous
 * visitor's event or session, most of what the collector stores, writes one index fewer, and every
 * query by vid can use them (vid = ? is never true of a null). */
import type { Migration } from './migration';

export default {
  version: 17,
  sqlite: `
  DROP INDEX IF EXISTS tracking_events_vid;
  DROP INDEX IF EXISTS sessions_vid;
  -- Contacts' events only: an anonymous visitor's event (most events) has no entry to write there.
  CREATE INDEX IF NOT EXISTS tracking_events_vid ON tracking_events(vid, timestamp) WHERE vid IS NOT NULL;
  -- A contact's sessions; an anonymous visitor's (most sessions) have no entry to write there.
  CREATE INDEX IF NOT EXISTS sessions_vid ON sessions(vid, started_at) WHERE vid IS NOT NULL;
`,
  postgres: `
  DROP INDEX IF EXISTS tracking_events_vid;
  DROP INDEX IF EXISTS sessions_vid;
  -- Contacts' events only: an anonymous visitor's event (most events) has no entry to write there.
  CREATE INDEX IF NOT EXISTS tracking_events_vid ON tracking_events(vid, timestamp) WHERE vid IS NOT NULL;
  -- A contact's sessions; an anonymous visitor's (most sessions) have no entry to write there.
  CREATE INDEX IF NOT EXISTS sessions_vid ON sessions(vid, started_at) WHERE vid IS NOT NULL;
`,
} satisfies Migration;
