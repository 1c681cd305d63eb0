/** The schema's history, one frozen step per version (see migration.ts). Version 1's step is the
 * first schema whole; each later one changes the version before it. A database of an earlier
 * version is brought up to date by the steps after its version, then the live schema (db/schema.ts,
 * db/schema-postgres.ts, all `IF NOT EXISTS`) is applied, which makes a new database and finds
 * nothing to do in a migrated one. test/migration-steps.test.ts applies every step from version 1
 * on both engines and compares the result with a new database, table by table. */
import type { Migration } from './migration';
import v01 from './v01-base';
import v02 from './v02-tracking-events-by-visitor';
import v03 from './v03-part-2-tables';
import v04 from './v04-content-group-state';
import v05 from './v05-contact-history';
import v06 from './v06-tracking-event-columns';
import v07 from './v07-submissions-without-contact';
import v08 from './v08-social-seq';
import v09 from './v09-forms-seq';
import v10 from './v10-enrollment-claims';
import v11 from './v11-sessions';
import v12 from './v12-dashboard-rollups';
import v13 from './v13-list-members-added';
import v14 from './v14-consents-and-spam';
import v15 from './v15-signed-webhooks';
import v16 from './v16-mail-catcher';
import v17 from './v17-partial-vid-indexes';
import v18 from './v18-drop-rollup-visitors';
import v19 from './v19-spam-release';

export type { Migration } from './migration';

/** Every step in order, from version 1 to SCHEMA_VERSION (db/schema.ts). */
export const MIGRATIONS: readonly Migration[] = [
  v01,
  v02,
  v03,
  v04,
  v05,
  v06,
  v07,
  v08,
  v09,
  v10,
  v11,
  v12,
  v13,
  v14,
  v15,
  v16,
  v17,
  v18,
  v19,
];

/** The steps that bring a database of `version` up to date, in order. */
export function stepsAfter(version: number): readonly Migration[] {
  return MIGRATIONS.filter((step) => step.version > version);
}

/** PostgreSQL databases began at this version: none is older. The steps before it are written for
 * PostgreSQL all the same, so that the whole history can be checked on both engines. */
export const FIRST_POSTGRES_VERSION = 7;
