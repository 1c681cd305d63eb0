/** Portals and their credentials. A new portal gets the default property groups and properties. */
import { type Param, type Queryable, sql } from '../db/engine';
import { hashSecret, newSecret, type CredentialKind } from './secrets';
import type { ContentEngine } from './content/engine';
import { seedSite } from './content/seed';
import type { SocialStore } from './social';
import {
  DEFAULT_CONTACT_GROUPS,
  DEFAULT_CONTACT_PROPERTIES,
  DEFAULT_DEAL_GROUPS,
  DEFAULT_DEAL_PROPERTIES,
} from './default-properties';

export type Tier = 'starter' | 'professional' | 'enterprise';

/** Every scope the platform knows; API keys and the seeded tokens get all of them. */
export const ALL_SCOPES = [
  'crm.objects.contacts.read',
  'crm.objects.contacts.write',
  'crm.lists.read',
  'crm.lists.write',
  'crm.schemas.contacts.read',
  'crm.schemas.contacts.write',
  'crm.schemas.deals.read',
  'forms',
  'automation',
  'communication_preferences.read',
  'communication_preferences.write',
  'content',
  'email',
  'files',
  'social',
  'settings.read',
  'settings.write',
  'analytics.behavioral_events.send',
];

/** The stores a new portal's site and social channels are seeded through, in its transaction. */
export interface PortalSeeding {
  content: ContentEngine;
  social: SocialStore;
}

const q = {
  portal: sql<[number, string, Tier, number]>('INSERT INTO portals (id, name, tier, created_at) VALUES (?, ?, ?, ?)'),
  credential: sql<[string, CredentialKind, number, string | null, string, number | null, number]>(
    'INSERT INTO credentials (hash, kind, portal_id, client_id, scopes, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  ),
  // An OAuth app's client secret is also kept as it is: webhooks are signed with it.
  appSecret: sql<[string, number, string, number]>(
    'INSERT INTO app_secrets (client_id, portal_id, secret, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (client_id) DO NOTHING',
  ),
  // Only for the app this secret belongs to (its hash is the app's credential).
  keepSecret: sql<[string, string, string, string]>(
    `INSERT INTO app_secrets (client_id, portal_id, secret, created_at)
     SELECT ?, portal_id, ?, created_at FROM credentials WHERE hash = ? AND kind = 'oauthClient' AND client_id = ? AND revoked = 0
     ON CONFLICT (client_id) DO NOTHING`,
  ),
  ids: sql<[], { id: number }>('SELECT id FROM portals ORDER BY id'),
  tier: sql<[number], { tier: Tier }>('SELECT tier FROM portals WHERE id = ?'),
};

/** One INSERT of every default group (or property) of a new portal: `rows` rows of `columns` placeholders. */
const manyRows = (head: string, columns: number, rows: number) =>
  sql<Param[]>(
    `${head} VALUES ${Array.from({ length: rows }, () => `(${Array(columns).fill('?').join(', ')})`).join(', ')}`,
  );
const GROUPS = [
  ...DEFAULT_CONTACT_GROUPS.map((g) => ['contacts', g] as const),
  ...DEFAULT_DEAL_GROUPS.map((g) => ['deals', g] as const),
];
const PROPERTIES = [
  ...DEFAULT_CONTACT_PROPERTIES.map((p) => ['contacts', p] as const),
  ...DEFAULT_DEAL_PROPERTIES.map((p) => ['deals', p] as const),
];
const insertGroups = manyRows(
  'INSERT INTO property_groups (portal_id, object_type, name, display_name, display_order, svc_defined)',
  6,
  GROUPS.length,
);
const insertProperties = manyRows(
  'INSERT INTO properties (portal_id, object_type, name, definition)',
  4,
  PROPERTIES.length,
);
const addProperties = sql<Param[]>(`${insertProperties.text} ON CONFLICT (portal_id, object_type, name) DO NOTHING`);
const propertyRows = (id: number, now: number) =>
  PROPERTIES.flatMap(([type, p]) => [id, type, p.name, JSON.stringify({ ...p, createdAt: now, updatedAt: now })]);

/** The default properties a portal made by an older version lacks (the analytics sources and
 * sessions of schema version 11, for one), added; the ones it has stay as they are. */
export async function addMissingDefaultProperties(db: Queryable, id: number, now: number): Promise<boolean> {
  return (await db.run(addProperties, ...propertyRows(id, now))) > 0;
}

export async function createPortal(
  db: Queryable,
  seeding: PortalSeeding,
  { id, name, tier, now }: { id: number; name: string; tier: Tier; now: number },
) {
  await db.tx(async (t) => {
    await t.run(q.portal, id, name, tier, now);
    await seedPortal(t, seeding, id, now);
  });
}

/** What a new portal starts with (default property groups and properties, its site, its social
 * channels), for a portals row that exists: createPortal's, or one reset by the admin API. Run it
 * in the transaction that made or emptied that row. */
export async function seedPortal(t: Queryable, seeding: PortalSeeding, id: number, now: number) {
  await t.run(insertGroups, ...GROUPS.flatMap(([type, g]) => [id, type, g.name, g.displayName, g.displayOrder, 1]));
  await t.run(insertProperties, ...propertyRows(id, now));
  await seedSite(t, seeding.content, id, now);
  await seeding.social.seedChannels(t, id, now);
}

/** Stores a credential's hash and returns the value (shown once, never stored). */
export async function issueCredential(
  db: Queryable,
  kind: CredentialKind,
  {
    portalId,
    scopes = ALL_SCOPES,
    clientId = null,
    expiresAt = null,
    now,
    value = newSecret(kind),
  }: {
    portalId: number;
    scopes?: string[];
    clientId?: string | null;
    expiresAt?: number | null;
    now: number;
    value?: string;
  },
) {
  await db.run(q.credential, hashSecret(value), kind, portalId, clientId, JSON.stringify(scopes), expiresAt, now);
  if (kind == 'oauthClient' && clientId) await db.run(q.appSecret, clientId, portalId, value, now);
  return value;
}

/** An OAuth app made before schema 15 (which keeps client secrets to sign webhooks with) has
 * only its secret's hash: given the secret (the CLI reads it from the credentials file), it is
 * kept, if it is that app's. Resolves to whether it was. */
export const keepAppSecret = async (db: Queryable, clientId: string, secret: string) =>
  (await db.run(q.keepSecret, clientId, secret, hashSecret(secret), clientId)) > 0;

/** What a portal's owner needs to call the API: printed once and written to the credentials file. */
export interface PortalCredentials {
  portalId: number;
  apiKey: string;
  privateAppToken: string;
  oauth: { clientId: string; clientSecret: string; refreshToken: string };
}

export function issuePortalCredentials(
  db: Queryable,
  portalId: number,
  now: number,
  scopes = ALL_SCOPES,
): Promise<PortalCredentials> {
  return db.tx(async (t) => {
    const clientId = crypto.randomUUID();
    return {
      portalId,
      apiKey: await issueCredential(t, 'hapikey', { portalId, now }),
      privateAppToken: await issueCredential(t, 'privateApp', { portalId, scopes, now }),
      oauth: {
        clientId,
        clientSecret: await issueCredential(t, 'oauthClient', { portalId, clientId, scopes, now }),
        refreshToken: await issueCredential(t, 'refresh', { portalId, clientId, scopes, now }),
      },
    };
  });
}

/** Reads of the portals table the rest of the platform needs: which portals exist and their tier
 * (remembered once found: a portal's tier does not change while the platform runs; a portal not
 * found may be created later, so that is asked again). */
export function portalStore() {
  const tiers = new Map<number, Tier>();
  return {
    ids: async (db: Queryable) => (await db.all(q.ids)).map((r) => r.id),
    /** The portal was deleted (admin API): its tier is asked again. */
    forget: (portalId: number) => void tiers.delete(portalId),
    /** The portal's tier, or undefined when there is no such portal. */
    async tier(db: Queryable, portalId: number): Promise<Tier | undefined> {
      const known = tiers.get(portalId);
      if (known) return known;
      const tier = await db.value(q.tier, portalId);
      if (tier) tiers.set(portalId, tier);
      return tier;
    },
  };
}

export type PortalStore = ReturnType<typeof portalStore>;
