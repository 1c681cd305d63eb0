/** §4.10 Prospects: organisations visiting the portal's pages (see store/prospects.ts). */
import { badRequest } from '../domain/errors';
import type { Handlers } from './handler';
import type { Services } from '../services';

export function prospectHandlers({ prospects }: Services): Handlers {
  return {
    'prospects.timeline': ({ portalId, query }) => prospects.timeline(portalId, query),
    'prospects.getOrganization': ({ portalId, params }) => prospects.organization(portalId, params.organization),
    'prospects.search': ({ portalId, params, query }) => prospects.search(portalId, params.search_type, query.q, query),
    'prospects.hide': ({ portalId, body }) => prospects.hide(portalId, body.organization),
    'prospects.listHidden': ({ portalId }) => prospects.hidden(portalId),
    'prospects.unhide': ({ portalId, body, query }) => {
      const organization = body.organization ?? query.organization;
      if (!organization) throw badRequest('body.organization: is required (or give it as ?organization=)');
      return prospects.unhide(portalId, organization);
    },
  };
}
