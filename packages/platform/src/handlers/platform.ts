/** OAuth refresh and record limits. */
import type { Handlers } from './handler';
import type { Services } from '../services/wiring';

/** Record limits by tier (contacts); other standard objects are not stored by this platform. */
const CONTACT_LIMIT: Record<string, number> = { starter: 1_000_000, professional: 2_000_000, enterprise: 10_000_000 };
const OBJECTS = [
  ['0-1', 'Contact', 'Contacts'],
  ['0-2', 'Company', 'Companies'],
  ['0-3', 'Deal', 'Deals'],
  ['0-5', 'Ticket', 'Tickets'],
] as const;

export function platformHandlers(services: Services): Handlers {
  const { contacts, oauth, portals } = services;

  return {
    'auth.refresh': ({ db, body }) => oauth.refresh(db, body.client_id, body.client_secret, body.refresh_token),
    'auth.token': ({ db, body }) => oauth.refresh(db, body.client_id, body.client_secret, body.refresh_token),

    'limits.records': async ({ db, portalId }) => {
      const limit = CONTACT_LIMIT[(await portals.tier(db, portalId))!];
      const usage: Record<string, number> = { '0-1': (await contacts.statistics(db, portalId)).contacts };
      return {
        svcDefinedObjectTypes: OBJECTS.map(([objectTypeId, singularLabel, pluralLabel]) => ({
          objectTypeId,
          singularLabel,
          pluralLabel,
          limit,
          usage: usage[objectTypeId] ?? 0,
          percentage: Math.round(((usage[objectTypeId] ?? 0) / limit) * 100 * 1000) / 1000,
        })),
        customObjectTypes: { byObjectType: [], overallLimit: 500_000, overallUsage: 0, overallPercentage: 0 },
      };
    },
  };
}
