/** §4.7 Email subscriptions, campaigns and email events. */
import type { Handlers } from './handler';
import type { Services } from '../services/wiring';

export function emailHandlers({ email }: Services): Handlers {
  return {
    'email.subscriptionTypes': async ({ db, portalId }) => ({
      subscriptionDefinitions: await email.definitions(db, portalId),
    }),
    'email.getStatus': ({ db, portalId, params }) => email.status(db, portalId, params.email_address),
    'email.updateStatus': async ({ db, portalId, params, body }) => {
      await email.update(db, portalId, params.email_address, body);
      return { status: 'ok' };
    },
    'email.listCampaigns': ({ db, portalId, query }) => email.campaigns(db, portalId, query.limit, query.offset),
    'email.listAllCampaigns': ({ db, portalId, query }) => email.campaigns(db, portalId, query.limit, query.offset),
    'email.getCampaign': ({ db, portalId, params }) => email.campaign(db, portalId, params.campaign_id),
    'email.campaignEvents': ({ db, portalId, params, query }) => email.events(db, portalId, params.campaign_id, query),
    'email.listEvents': ({ db, portalId, query }) => email.events(db, portalId, query.campaignId, query),
  };
}
