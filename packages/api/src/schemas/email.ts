/** Email subscriptions, campaigns and email events (camelCase, `hasMore` + opaque `offset`). */
import { z } from 'zod';
import { timestamp } from '../common';

export const subscriptionDefinition = z.looseObject({
  id: z.number(),
  portalId: z.number(),
  name: z.string(),
  description: z.string(),
  active: z.boolean(),
  internal: z.boolean().optional(),
  category: z.string().optional(),
  channel: z.string().optional(),
});

export const LEGAL_BASES = [
  'LEGITIMATE_INTEREST_PQL',
  'LEGITIMATE_INTEREST_CLIENT',
  'PERFORMANCE_OF_CONTRACT',
  'CONSENT_WITH_NOTICE',
  'NON_GDPR',
] as const;

export const subscriptionStatus = z.looseObject({
  id: z.number(),
  subscribed: z.boolean(),
  updatedAt: timestamp,
  optState: z.enum(['OPT_IN', 'OPT_OUT', 'NOT_OPTED']),
  legalBasis: z.enum(LEGAL_BASES).nullable(),
  legalBasisExplanation: z.string().nullable(),
});

export const addressStatus = z.looseObject({
  subscribed: z.boolean(),
  markedAsSpam: z.boolean(),
  unsubscribeFromPortal: z.boolean(),
  portalId: z.number(),
  bounced: z.boolean(),
  email: z.string(),
  status: z.enum(['subscribed', 'unsubscribed']),
  subscriptionStatuses: z.array(subscriptionStatus),
});

export const statusUpdate = z
  .object({
    subscriptionStatuses: z
      .array(
        z.object({
          id: z.number().int(),
          subscribed: z.boolean(),
          optState: z.enum(['OPT_IN', 'OPT_OUT', 'NOT_OPTED']).optional(),
          legalBasis: z.enum(LEGAL_BASES).optional(),
          legalBasisExplanation: z.string().max(1000).optional(),
        }),
      )
      .max(100)
      .optional(),
    unsubscribeFromAll: z.boolean().optional(),
    subscribed: z.boolean().optional(),
    portalSubscriptionLegalBasis: z.enum(LEGAL_BASES).optional(),
    portalSubscriptionLegalBasisExplanation: z.string().max(1000).optional(),
  })
  .refine(
    (b) => b.subscriptionStatuses?.length || b.unsubscribeFromAll !== undefined || b.subscribed !== undefined,
    'give subscriptionStatuses, unsubscribeFromAll or subscribed',
  );

export const campaignSummary = z.looseObject({
  id: z.number(),
  appId: z.number(),
  appName: z.string(),
  lastUpdatedTime: timestamp,
});

export const EMAIL_EVENT_TYPES = [
  'SENT',
  'DROPPED',
  'PROCESSED',
  'DELIVERED',
  'DEFERRED',
  'BOUNCE',
  'OPEN',
  'CLICK',
  'PRINT',
  'FORWARD',
  'STATUSCHANGE',
  'SPAMREPORT',
  'UNBOUNCE',
] as const;

export const campaign = z.looseObject({
  id: z.number(),
  appId: z.number(),
  appName: z.string(),
  contentId: z.number(),
  name: z.string(),
  subject: z.string(),
  type: z.string(),
  numIncluded: z.number(),
  numQueued: z.number(),
  counters: z.record(z.string(), z.number()),
  processingState: z.string(),
  lastProcessingFinishedAt: timestamp.nullable(),
});

export const emailEvent = z.looseObject({
  id: z.string(),
  created: timestamp,
  type: z.enum(EMAIL_EVENT_TYPES),
  recipient: z.string(),
  portalId: z.number(),
  appId: z.number(),
  appName: z.string(),
  emailCampaignId: z.number(),
  /** Present (true) on events the platform made up rather than observed: it has no mail server
   * and no recipients, so a DELIVERED and every event of its sample campaigns are simulated. */
  simulated: z.literal(true).optional(),
});
