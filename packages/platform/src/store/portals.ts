/** Portals and their credentials. A new portal gets the default property groups and properties. */
import { type Db, transaction } from '../db/open';
import { hashSecret, newSecret, type CredentialKind } from './secrets';
import { seedSiteSync } from './content/seed';
import { seedChannelsSync } from './social';
import { DEFAULT_CONTACT_GROUPS, DEFAULT_CONTACT_PROPERTIES, DEFAULT_DEAL_GROUPS, DEFAULT_DEAL_PROPERTIES } from './default-properties';

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

export function createPortal(db: Db, { id, name, tier, now }: { id: number; name: string; tier: Tier; now: number }) {
  transaction(db, () => {
    db.prepare('INSERT INTO portals (id, name, tier, created_at) VALUES (?, ?, ?, ?)').run(id, name, tier, now);
    const group = db.prepare(
      'INSERT INTO property_groups (portal_id, object_type, name, display_name, display_order, svc_defined) VALUES (?, ?, ?, ?, ?, 1)',
    );
    const property = db.prepare('INSERT INTO properties (portal_id, object_type, name, definition) VALUES (?, ?, ?, ?)');
    for (const g of DEFAULT_CONTACT_GROUPS) group.run(id, 'contacts', g.name, g.displayName, g.displayOrder);
    for (const g of DEFAULT_DEAL_GROUPS) group.run(id, 'deals', g.name, g.displayName, g.displayOrder);
    for (const p of DEFAULT_CONTACT_PROPERTIES) property.run(id, 'contacts', p.name, JSON.stringify({ ...p, createdAt: now, updatedAt: now }));
    for (const p of DEFAULT_DEAL_PROPERTIES) property.run(id, 'deals', p.name, JSON.stringify({ ...p, createdAt: now, updatedAt: now }));
    seedSiteSync(db, id, now);
    seedChannelsSync(db, id, now);
  })();
}

/** Stores a credential's hash and returns the value (shown once, never stored). */
export function issueCredential(
  db: Db,
  kind: CredentialKind,
  { portalId, scopes = ALL_SCOPES, clientId = null, expiresAt = null, now, value = newSecret(kind) }:
    { portalId: number; scopes?: string[]; clientId?: string | null; expiresAt?: number | null; now: number; value?: string },
) {
  db.prepare(
    'INSERT INTO credentials (hash, kind, portal_id, client_id, scopes, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  ).run(hashSecret(value), kind, portalId, clientId, JSON.stringify(scopes), expiresAt, now);
  return value;
}

/** What a portal's owner needs to call the API: printed once and written to the credentials file. */
export interface PortalCredentials {
  portalId: number;
  apiKey: string;
  privateAppToken: string;
  oauth: { clientId: string; clientSecret: string; refreshToken: string };
}

export function issuePortalCredentials(db: Db, portalId: number, now: number, scopes = ALL_SCOPES): PortalCredentials {
  return transaction(db, () => {
    const clientId = crypto.randomUUID();
    return {
      portalId,
      apiKey: issueCredential(db, 'hapikey', { portalId, now }),
      privateAppToken: issueCredential(db, 'privateApp', { portalId, scopes, now }),
      oauth: {
        clientId,
        clientSecret: issueCredential(db, 'oauthClient', { portalId, clientId, scopes, now }),
        refreshToken: issueCredential(db, 'refresh', { portalId, clientId, scopes, now }),
      },
    };
  })();
}

/** Reads of the portals table the rest of the platform needs: which portals exist and their tier
 * (remembered once found: a portal's tier does not change while the platform runs; a portal not
 * found may be created later, so that is asked again). */
export function portalStore(db: Db) {
  const q = {
    ids: db.prepare<[], number>('SELECT id FROM portals ORDER BY id').pluck(),
    tier: db.prepare<[number], Tier>('SELECT tier FROM portals WHERE id = ?').pluck(),
  };
  const tiers = new Map<number, Tier>();
  return {
    ids: () => q.ids.all(),
    /** The portal's tier, or undefined when there is no such portal. */
    tier(portalId: number): Tier | undefined {
      const known = tiers.get(portalId);
      if (known) return known;
      const tier = q.tier.get(portalId);
      if (tier) tiers.set(portalId, tier);
      return tier;
    },
  };
}

export type PortalStore = ReturnType<typeof portalStore>;
