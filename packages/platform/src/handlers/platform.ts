/** OAuth refresh, record limits and the HTTP events API. */
import { randomUUID } from 'node:crypto';
import { GIF } from './gif';
import { Reply, type Handlers } from './handler';
import { badRequest } from '../domain/errors';
import type { Services } from '../services';

/** Record limits by tier (contacts); other standard objects are not stored by this platform. */
const CONTACT_LIMIT: Record<string, number> = { starter: 1_000_000, professional: 2_000_000, enterprise: 10_000_000 };
const OBJECTS = [
  ['0-1', 'Contact', 'Contacts'],
  ['0-2', 'Company', 'Companies'],
  ['0-3', 'Deal', 'Deals'],
  ['0-5', 'Ticket', 'Tickets'],
] as const;

export function platformHandlers(services: Services): Handlers {
  const { tracking, contacts, now, oauth, portals } = services;

  /** Identify by email or by a visitor token; at least one is needed. */
  const who = (email?: string, utk?: string) => {
    if (!email && !utk) throw badRequest('give email or utk to say whom the event is about');
    return { email, utk };
  };

  return {
    'auth.refresh': ({ body }) => oauth.refresh(body.client_id, body.client_secret, body.refresh_token),

    'limits.records': ({ portalId }) => {
      const limit = CONTACT_LIMIT[portals.tier(portalId)!];
      const usage: Record<string, number> = { '0-1': contacts.statistics(portalId).contacts };
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

    'events.trigger': ({ query }) => {
      const { _n, _a, _m, email, utk, id, ...rest } = query;
      who(email, utk);
      tracking.check(_a, 3);
      const properties = Object.fromEntries(Object.entries(rest).filter(([, v]) => typeof v == 'string')) as Record<string, string>;
      tracking.record({
        eid: randomUUID().replace(/-/g, ''),
        portalId: _a,
        kind: 3,
        utk,
        timestamp: now(),
        name: _n,
        value: _m,
        contact: { ...properties, ...(email ? { email } : {}) },
        raw: { ...query, via: 'http-get', externalId: id },
      });
      return new Reply(200, GIF, { 'Content-Type': 'image/gif', 'Cache-Control': 'no-store' });
    },

    'events.send': ({ portalId, body }) => {
      who(body.email, body.utk);
      tracking.check(portalId, 3);
      const properties = Object.fromEntries(Object.entries(body.properties ?? {}).map(([k, v]) => [k, String(v)]));
      tracking.record({
        // The caller's id makes retries idempotent.
        eid: body.id ? `api:${body.id}` : randomUUID().replace(/-/g, ''),
        portalId,
        kind: 3,
        utk: body.utk,
        timestamp: body.occurredAt ?? now(),
        name: body.eventName,
        value: body.value,
        contact: { ...properties, ...(body.email ? { email: body.email } : {}) },
        raw: { ...body, via: 'http-post', m: body.value, n: body.eventName },
      });
    },
  };
}
