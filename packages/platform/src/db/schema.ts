/** The platform's tables. Every row that belongs to a portal carries `portal_id`, and every query
 * filters on it: no data crosses portals. Secrets (tokens, keys, client secrets) are stored as
 * SHA-256 hashes only, but for OAuth apps' client secrets in app_secrets, which sign webhooks.
 *
 * The live schema is written out for each engine: SQLite's here (from tables/sqlite-*.ts),
 * PostgreSQL's in schema-postgres.ts. A database of an earlier version gets there through the
 * frozen steps of migrations/; a test checks that every step from version 1 arrives at exactly
 * these tables on both engines. */
import { SQLITE_CRM } from './tables/sqlite-crm';
import { SQLITE_WEB } from './tables/sqlite-web';

/** The schema's version: the last step of migrations/, and what a new database is made at. */
export const SCHEMA_VERSION = 19;

/** The live schema on SQLite: what a new database is made with (every statement `IF NOT EXISTS`). */
export const SCHEMA = SQLITE_CRM + SQLITE_WEB;
