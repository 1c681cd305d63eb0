/** Contact records (contacts API v1): hyphenated keys, every property value a string. */
import { z } from 'zod';
import { booleanString, repeated, timestamp } from '../common';

export const propertyVersion = z.looseObject({
  value: z.string(),
  'source-type': z.string(),
  'source-id': z.string().nullable(),
  'source-label': z.string().nullable(),
  timestamp,
  selected: z.boolean(),
});

export const contactPropertyValue = z.looseObject({
  value: z.string(),
  versions: z.array(propertyVersion).optional(),
});

export const identity = z.looseObject({
  type: z.enum(['EMAIL', 'LEAD_GUID']),
  value: z.string(),
  timestamp,
  'is-primary': z.boolean().optional(),
});

export const identityProfile = z.looseObject({
  vid: z.number(),
  'saved-at-timestamp': timestamp,
  'deleted-changed-timestamp': timestamp,
  identities: z.array(identity),
});

export const formSubmission = z.looseObject({
  'conversion-id': z.string(),
  timestamp,
  'form-id': z.string(),
  'portal-id': z.number(),
  'page-url': z.string().optional(),
  'page-title': z.string().optional(),
  title: z.string().optional(),
  /** The consent given with the submission and the texts the form showed (forms with legalConsentOptions). */
  'legal-consent': z
    .looseObject({
      consentToProcess: z.boolean(),
      text: z.string(),
      communications: z.array(z.looseObject({ subscriptionTypeId: z.number(), value: z.boolean(), text: z.string() })),
    })
    .optional(),
});

export const listMembership = z.looseObject({
  'static-list-id': z.number(),
  'internal-list-id': z.number(),
  timestamp,
  vid: z.number(),
  'is-member': z.boolean(),
});

export const contact = z.looseObject({
  addedAt: timestamp.optional(),
  vid: z.number(),
  'canonical-vid': z.number(),
  'merged-vids': z.array(z.number()),
  'portal-id': z.number(),
  'is-contact': z.boolean(),
  properties: z.record(z.string(), contactPropertyValue),
  'form-submissions': z.array(formSubmission),
  'identity-profiles': z.array(identityProfile),
  'merge-audits': z.array(z.looseObject({})),
  'list-memberships': z.array(listMembership).optional(),
});

/** A property write: `{property, value}`; numbers and booleans are stored as strings. */
export const propertyValueWrite = z.object({
  property: z.string().min(1),
  value: z.union([z.string(), z.number(), z.boolean(), z.null()]).transform((v) => (v == null ? '' : String(v))),
});

export const contactWrite = z.object({ properties: z.array(propertyValueWrite) });

/** Query parameters of contact reads. */
export const contactReadQuery = {
  property: repeated(z.string().min(1)),
  propertyMode: z.enum(['value_only', 'value_and_history']).optional(),
  formSubmissionMode: z.enum(['all', 'none', 'newest', 'oldest']).optional(),
  showListMemberships: booleanString.optional(),
};

/** The 409 `identityProfile` (camelCase, unlike the profile record). */
export const conflictIdentityProfile = z.looseObject({
  vid: z.number(),
  identity: z.array(
    z.looseObject({ value: z.string(), type: z.string(), timestamp, isPrimary: z.boolean().optional() }),
  ),
  linkedVid: z.array(z.number()),
  isContact: z.boolean(),
  savedAtTimestamp: timestamp,
});

/** `{contacts, has-more, vid-offset}` (+ `time-offset` for the recent feeds). */
export const contactPage = z.object({
  contacts: z.array(contact),
  'has-more': z.boolean(),
  'vid-offset': z.number(),
});
export const recentContactPage = contactPage.extend({ 'time-offset': z.number() });
