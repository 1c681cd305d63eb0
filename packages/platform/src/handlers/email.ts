/** §4.7 Email subscriptions, campaigns and email events. */
import type { Handlers } from './handler';
import type { Services } from '../services';

export function emailHandlers({ email }: Services): Handlers {
  return {
    'email.subscriptionTypes': ({ portalId }) => ({ subscriptionDefinitions: email.definitions(portalId) }),
    'email.getStatus': ({ portalId, params }) => email.status(portalId, params.email_address),
    'email.updateStatus': ({ portalId, params, body }) => {
      email.update(portalId, params.email_address, body);
      return { status: 'ok' };
    },
    'email.listCampaigns': ({ portalId, query }) => email.campaigns(portalId, query.limit, query.offset),
    'email.listAllCampaigns': ({ portalId, query }) => email.campaigns(portalId, query.limit, query.offset),
    'email.getCampaign': ({ portalId, params }) => email.campaign(portalId, params.campaign_id),
    'email.campaignEvents': ({ portalId, params, query }) => email.events(portalId, params.campaign_id, query),
    'email.listEvents': ({ portalId, query }) => email.events(portalId, query.campaignId, query),
  };
}
