/** §4.10 Prospects: organisations visiting the portal's pages (see store/prospects.ts). */
import { badRequest } from '../domain/errors';
import type { Handlers } from './handler';
import type { Services } from '../services/wiring';

export function prospectHandlers({ prospects }: Services): Handlers {
  return {
    'prospects.timeline': ({ db, portalId, query }) => prospects.timeline(db, portalId, query),
    'prospects.getOrganization': ({ db, portalId, params }) =>
      prospects.organization(db, portalId, params.organization),
    'prospects.search': ({ db, portalId, params, query }) =>
      prospects.search(db, portalId, params.search_type, query.q, query),
    'prospects.hide': ({ db, portalId, body }) => prospects.hide(db, portalId, body.organization),
    'prospects.listHidden': ({ db, portalId }) => prospects.hidden(db, portalId),
    'prospects.unhide': ({ db, portalId, body, query }) => {
      const organization = body.organization ?? query.organization;
      if (!organization) throw badRequest('body.organization: is required (or give it as ?organization=)');
      return prospects.unhide(db, portalId, organization);
    },
  };
}
