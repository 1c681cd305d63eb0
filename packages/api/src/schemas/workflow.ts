/** Workflows: a sequence of actions run for each enrolled contact by the platform's engine. */
import { z } from 'zod';
import { timestamp } from '../common';
import { listFilters } from './list';

export const workflowAction = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('DELAY'),
    delayMillis: z
      .number()
      .int()
      .min(0)
      .max(366 * 864e5),
  }),
  z.object({ type: z.literal('SET_CONTACT_PROPERTY'), propertyName: z.string().min(1), newValue: z.string() }),
  z.object({ type: z.literal('ADD_TO_LIST'), listId: z.number().int().positive() }),
  // An email of the portal, named by its campaign or its content id (either; the platform fills in
  // the other when the workflow is written).
  z
    .object({
      type: z.literal('EMAIL'),
      emailCampaignId: z.number().int().positive().optional(),
      emailContentId: z.number().int().positive().optional(),
    })
    .refine((a) => a.emailCampaignId !== undefined || a.emailContentId !== undefined, {
      message: 'an EMAIL step needs emailCampaignId or emailContentId',
    }),
  z.object({
    type: z.literal('WEBHOOK'),
    url: z.url({ protocol: /^https?$/ }),
    method: z.enum(['POST', 'GET']).default('POST'),
    // The OAuth app whose client secret signs the calls (X-Svc-Signature-v3); default: the
    // portal's first app.
    clientId: z.string().min(1).max(200).optional(),
  }),
]);

export const workflow = z.looseObject({
  id: z.number(),
  portalId: z.number(),
  name: z.string(),
  type: z.string(),
  enabled: z.boolean(),
  insertedAt: timestamp,
  updatedAt: timestamp,
  allowContactToTriggerMultipleTimes: z.boolean(),
  actions: z.array(workflowAction.and(z.looseObject({ stepId: z.number() }))),
  segmentCriteria: listFilters.optional(),
});

export const workflowWrite = z.object({
  name: z.string().trim().min(1, 'is required').max(255),
  type: z.enum(['DRIP_DELAY', 'STATIC_ANCHOR', 'PROPERTY_ANCHOR']).default('DRIP_DELAY'),
  enabled: z.boolean().default(true),
  allowContactToTriggerMultipleTimes: z.boolean().default(false),
  actions: z.array(workflowAction).max(100).default([]),
  // Enrollment criteria, the list filters' shape (OR of AND groups, HAS_FILLED_OUT_FORM among
  // them): a contact is enrolled when a write makes it match (a form submission, a property).
  segmentCriteria: listFilters.max(20).optional(),
});

export const LOG_EVENT_TYPES = [
  'ENROLLED',
  'UNENROLLED',
  'DELAY',
  'SET_CONTACT_PROPERTY',
  'ADD_TO_LIST',
  'EMAIL',
  'WEBHOOK',
  'WEBHOOK_RETRY',
  'COMPLETED',
  'FAILED',
] as const;

export const logEvent = z.looseObject({
  eventType: z.enum(LOG_EVENT_TYPES),
  timestamp,
  workflowId: z.number(),
  vid: z.number(),
  stepId: z.number().nullable(),
  detail: z.string().optional(),
});
