/** §4.7 Email subscriptions and email events. */
import { z } from 'zod';
import { count, numericId, offset } from '../common';
import { route } from '../route';
import {
  addressStatus,
  campaign,
  campaignSummary,
  EMAIL_EVENT_TYPES,
  emailEvent,
  statusUpdate,
  subscriptionDefinition,
} from '../schemas/email';

const PREFS_READ = ['communication_preferences.read', 'communication_preferences.write'];
const PREFS_WRITE = ['communication_preferences.write'];
const ANALYTICS = ['content', 'email'];
const address = z.object({ email_address: z.email('must be an email address') });
/** Opaque paging: the `offset` of the previous answer. */
const pageQuery = { limit: count(250, 1000), offset: z.string().max(64).optional() };
const eventQuery = z.object({
  ...pageQuery,
  eventType: z.enum(EMAIL_EVENT_TYPES).optional(),
  recipient: z.string().optional(),
  startTimestamp: offset.optional(),
  endTimestamp: offset.optional(),
});

export const emailRoutes = {
  'email.subscriptionTypes': route({
    id: 'email.subscriptionTypes',
    method: 'GET',
    path: '/email/public/v1/subscriptions',
    summary: 'Subscription type definitions of the portal',
    scopes: PREFS_READ,
    response: z.object({ subscriptionDefinitions: z.array(subscriptionDefinition) }),
  }),
  'email.getStatus': route({
    id: 'email.getStatus',
    method: 'GET',
    path: '/email/public/v1/subscriptions/:email_address',
    summary: 'Subscription status of an address (with or without a contact)',
    scopes: PREFS_READ,
    params: address,
    response: addressStatus,
  }),
  'email.updateStatus': route({
    id: 'email.updateStatus',
    method: 'PUT',
    path: '/email/public/v1/subscriptions/:email_address',
    summary: 'Subscribe or unsubscribe per type, or unsubscribe from all (irreversible through the API)',
    scopes: PREFS_WRITE,
    params: address,
    body: statusUpdate,
    response: z.object({ status: z.literal('ok') }),
  }),
  'email.listCampaigns': route({
    id: 'email.listCampaigns',
    method: 'GET',
    path: '/email/public/v1/campaigns',
    summary: 'Campaigns with recent activity, paged with an opaque offset',
    scopes: ANALYTICS,
    query: z.object(pageQuery),
    response: z.object({ campaigns: z.array(campaignSummary), hasMore: z.boolean(), offset: z.string() }),
  }),
  // The legacy client's campaigns.getById lists here (the real API's list of every campaign); here
  // every campaign has had activity, so both lists are the same.
  'email.listAllCampaigns': route({
    id: 'email.listAllCampaigns',
    method: 'GET',
    path: '/email/public/v1/campaigns/by-id',
    summary: 'Every campaign of the portal, paged with an opaque offset (as /campaigns)',
    scopes: ANALYTICS,
    query: z.object(pageQuery),
    response: z.object({ campaigns: z.array(campaignSummary), hasMore: z.boolean(), offset: z.string() }),
  }),
  'email.getCampaign': route({
    id: 'email.getCampaign',
    method: 'GET',
    path: '/email/public/v1/campaigns/:campaign_id',
    summary: 'One campaign with its counters',
    scopes: ANALYTICS,
    params: z.object({ campaign_id: numericId }),
    response: campaign,
  }),
  'email.campaignEvents': route({
    id: 'email.campaignEvents',
    method: 'GET',
    path: '/email/public/v1/campaigns/:campaign_id/events',
    summary: 'Events of a campaign, oldest first, paged with an opaque offset',
    scopes: ANALYTICS,
    params: z.object({ campaign_id: numericId }),
    query: eventQuery,
    response: z.object({ events: z.array(emailEvent), hasMore: z.boolean(), offset: z.string() }),
  }),
  // The legacy client's campaigns.events reads here (the real API's portal-wide email events).
  'email.listEvents': route({
    id: 'email.listEvents',
    method: 'GET',
    path: '/email/public/v1/events',
    summary:
      'Email events of every campaign of the portal, or of `campaignId`, oldest first, paged with an opaque offset',
    scopes: ANALYTICS,
    query: eventQuery.extend({ campaignId: numericId.optional() }),
    response: z.object({ events: z.array(emailEvent), hasMore: z.boolean(), offset: z.string() }),
  }),
};
