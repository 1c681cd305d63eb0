/** Removing a portal's data, for the admin API (admin/portal-routes.ts): everything of one portal
 * (deleting it), or everything but its credentials (resetting it to its freshly-seeded state, the
 * caller seeding it again in the same transaction). The table list is written out, children
 * before the rows they point at; test/admin-portals.test.ts fails when a table with a portal_id
 * column is missing here, so a new table is placed on purpose. */
import { type Queryable, sql } from '../db/engine';

/** Tables without a portal_id of their own, found through the row they belong to. */
const CHILDREN = [
  'DELETE FROM contact_history WHERE vid IN (SELECT vid FROM contacts WHERE portal_id = ?)',
  'DELETE FROM list_members WHERE list_id IN (SELECT list_id FROM lists WHERE portal_id = ?)',
  'DELETE FROM workflow_log WHERE workflow_id IN (SELECT id FROM workflows WHERE portal_id = ?)',
  'DELETE FROM content_versions WHERE object_id IN (SELECT id FROM content_objects WHERE portal_id = ?)',
  'DELETE FROM content_history WHERE object_id IN (SELECT id FROM content_objects WHERE portal_id = ?)',
];

/** Every table with a portal_id column but the portal's credentials, and the portals row last but one. */
export const PORTAL_TABLES = [
  'utks',
  'form_consents',
  'form_submissions',
  'spam_submissions',
  'property_groups',
  'properties',
  'lists',
  'forms',
  'subscription_statuses',
  'subscription_types',
  'portal_unsubscribes',
  'email_events',
  'email_outbox',
  'campaigns',
  'webhook_deliveries',
  'enrollments',
  'workflows',
  'tracking_events',
  'sessions',
  'rollups',
  'content_objects',
  'keywords',
  'settings',
  'social_channels',
  'broadcasts',
  'prospect_views',
  'prospect_hidden',
  'contacts',
];
/** What makes the portal callable: kept by a reset, so its tokens go on working. */
export const CREDENTIAL_TABLES = ['app_secrets', 'credentials'];
/** PostgreSQL only (db/schema-postgres.ts): the dashboard's counters not yet folded. */
const POSTGRES_ONLY = ['rollup_deltas'];

const byPortal = (table: string) => sql<[number]>(`DELETE FROM ${table} WHERE portal_id = ?`);
const q = {
  children: CHILDREN.map((text) => sql<[number]>(text)),
  data: PORTAL_TABLES.map(byPortal),
  postgres: POSTGRES_ONLY.map(byPortal),
  credentials: CREDENTIAL_TABLES.map(byPortal),
  portal: sql<[number]>('DELETE FROM portals WHERE id = ?'),
  get: sql<[number], { id: number; name: string; tier: string; created_at: number }>(
    'SELECT id, name, tier, created_at FROM portals WHERE id = ?',
  ),
  list: sql<[], { id: number; name: string; tier: string; created_at: number }>(
    'SELECT id, name, tier, created_at FROM portals ORDER BY id',
  ),
  maxId: sql<[], { id: number | null }>('SELECT max(id) AS id FROM portals'),
};

export function portalRemoval(engineKind: 'sqlite' | 'postgres') {
  /** Deletes the portal's rows, the portals row included; its credentials too unless `keepCredentials`
   * (the portals row then goes as well: the caller makes it again, which credentials point at). */
  async function remove(db: Queryable, portalId: number, keepCredentials: boolean) {
    for (const query of q.children) await db.run(query, portalId);
    for (const query of q.data) await db.run(query, portalId);
    if (engineKind == 'postgres') for (const query of q.postgres) await db.run(query, portalId);
    if (!keepCredentials) {
      for (const query of q.credentials) await db.run(query, portalId);
      await db.run(q.portal, portalId);
    }
  }
  return {
    /** Everything of the portal gone, its credentials too. */
    deleteAll: (db: Queryable, portalId: number) => remove(db, portalId, false),
    /** Everything but the portals row and its credentials. */
    deleteData: (db: Queryable, portalId: number) => remove(db, portalId, true),
    get: (db: Queryable, portalId: number) => db.get(q.get, portalId),
    list: (db: Queryable) => db.all(q.list),
    maxId: async (db: Queryable) => Number((await db.value(q.maxId)) ?? 0),
  };
}

export type PortalRemoval = ReturnType<typeof portalRemoval>;
