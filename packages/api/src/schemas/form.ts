/** Forms and form fields (contacts API v1 forms). */
import type { LegalConsent, SubmissionContext } from '@svc/protocol';
import { z } from 'zod';
import { httpUrl, timestamp, visitorToken } from '../common';
import { propertyOption } from './property';

/** A field's rules (§4d): blocked email domains are refused by the embed before sending, and by
 * the platform when a submission comes anyway (`useDefaultBlockList`: @svc/protocol's
 * FREE_MAIL_DOMAINS). */
export const fieldValidation = z.looseObject({
  name: z.string(),
  message: z.string(),
  data: z.string().optional(),
  useDefaultBlockList: z.boolean().optional(),
  blockedEmailAddresses: z.array(z.string()).optional(),
});

/** One condition on a parent field's value; the embed knows `EQ`, `NEQ`, `CONTAINS`, `IS_NOT_EMPTY`, `SET_ANY`. */
export const dependentFilter = z.looseObject({
  operator: z.string(),
  strValue: z.string().optional(),
  strValues: z.array(z.string()).optional(),
  numberValue: z.number().optional(),
  boolValue: z.boolean().optional(),
});

const fieldShape = {
  name: z.string(),
  label: z.string(),
  type: z.string(),
  fieldType: z.string(),
  description: z.string(),
  groupName: z.string(),
  displayOrder: z.number(),
  required: z.boolean(),
  selectedOptions: z.array(z.string()),
  options: z.array(propertyOption),
  validation: fieldValidation,
  enabled: z.boolean(),
  hidden: z.boolean(),
  defaultValue: z.string(),
  placeholder: z.string(),
  unselectedLabel: z.string(),
  labelHidden: z.boolean(),
  // Absent on forms stored before issue 19.
  /** The embed fills it with the known visitor's value (through the companion). */
  prefill: z.boolean().optional(),
  /** Progressive profiling: a known contact who has a value for it is asked the next unanswered
   * of the form's `queuedFields` in its place. */
  isSmartField: z.boolean().optional(),
  /** A hidden field's value from this query parameter of the page (remembered for the session). */
  queryParam: z.string().optional(),
  /** A hidden field's value from this cookie. */
  cookieName: z.string().optional(),
};

/** A field shown only while its parent's value passes every filter (one level: it has no dependents of its own). */
export const dependentRule = z.looseObject({
  filters: z.array(dependentFilter),
  dependentFormField: z.looseObject(fieldShape),
  formFieldAction: z.string().optional(),
});

export const formField = z.looseObject({
  ...fieldShape,
  // Absent on forms stored before dependent fields were kept.
  dependentFieldFilters: z.array(dependentRule).optional(),
});

/** A group of fields, optionally preceded by rich text (HTML the embed sanitises). */
export const formFieldGroup = z.looseObject({
  fields: z.array(formField),
  default: z.boolean().optional(),
  isSmartGroup: z.boolean().optional(),
  richText: z.looseObject({ content: z.string(), type: z.string().optional() }).optional(),
});

/** Consent (GDPR) the form asks for: a required checkbox to process the visitor's data when
 * `consentToProcessCheckboxLabel` is set, and one checkbox per subscription type. Texts are rich
 * text (the embed sanitises them); the text shown is recorded with the consent. */
export const legalConsentOptions = z.looseObject({
  consentToProcessText: z.string().optional(),
  consentToProcessCheckboxLabel: z.string().optional(),
  communicationConsentText: z.string().optional(),
  communicationsCheckboxes: z
    .array(z.looseObject({ subscriptionTypeId: z.number(), label: z.string(), required: z.boolean().optional() }))
    .optional(),
  privacyText: z.string().optional(),
});

/** A multi-step form: each step takes the next `groups` field groups (the last step the rest). */
export const formStep = z.looseObject({ title: z.string().optional(), groups: z.number() });

/** What issue 19 added to a form; all optional (absent on forms stored before). */
const marketingShape = {
  /** Progressive profiling: questions asked, in order, in place of answered smart fields. */
  queuedFields: z.array(formField).optional(),
  /** At most this many queued questions at once (default: one per answered smart field). */
  queueLimit: z.number().optional(),
  legalConsentOptions: legalConsentOptions.optional(),
  steps: z.array(formStep).optional(),
  /** A submission the embed saw no person touch, sent sooner than this after the form was shown,
   * is spam (default 1,500; 0: off). See packages/forms/README.md, "Spam without a captcha". */
  minFillTimeMs: z.number().optional(),
};

export const form = z.looseObject({
  ...marketingShape,
  portalId: z.number(),
  guid: z.string(),
  name: z.string(),
  action: z.string(),
  method: z.string(),
  cssClass: z.string(),
  redirect: z.string(),
  inlineMessage: z.string(),
  submitText: z.string(),
  notifyRecipients: z.string(),
  fields: z.array(formField),
  formFieldGroups: z.array(formFieldGroup),
  createdAt: timestamp,
  updatedAt: timestamp,
  deletable: z.boolean(),
  embeddedCode: z.string(),
});

const fieldWriteShape = {
  name: z.string().regex(/^[A-Za-z0-9_]{1,100}$/, 'must be a property name'),
  label: z.string().max(255).optional(),
  type: z.string().optional(),
  fieldType: z.string().optional(),
  description: z.string().optional(),
  displayOrder: z.number().int().optional(),
  required: z.boolean().optional(),
  selectedOptions: z.array(z.string()).optional(),
  options: z.array(propertyOption).optional(),
  enabled: z.boolean().optional(),
  hidden: z.boolean().optional(),
  defaultValue: z.string().optional(),
  placeholder: z.string().optional(),
  unselectedLabel: z.string().optional(),
  labelHidden: z.boolean().optional(),
  prefill: z.boolean().optional(),
  isSmartField: z.boolean().optional(),
  queryParam: z
    .string()
    .regex(/^[\w.\-[\]]{1,100}$/, 'must be a query parameter name')
    .optional(),
  cookieName: z
    .string()
    .regex(/^[\w.-]{1,100}$/, 'must be a cookie name')
    .optional(),
  validation: z
    .object({
      name: z.string().max(255).optional(),
      message: z.string().max(1024).optional(),
      data: z.string().max(4096).optional(),
      useDefaultBlockList: z.boolean().optional(),
      blockedEmailAddresses: z.array(z.string().max(253)).max(1000).optional(),
    })
    .optional(),
};

const dependentFilterWrite = z.object({
  operator: z.string().regex(/^[A-Z_]{1,32}$/, 'must be an operator such as EQ'),
  strValue: z.string().max(1024).optional(),
  strValues: z.array(z.string().max(1024)).max(100).optional(),
  numberValue: z.number().optional(),
  boolValue: z.boolean().optional(),
});

export const fieldWrite = z.object({
  ...fieldWriteShape,
  // One level deep, as the reference's forms editor allows: bounded and never recursive.
  dependentFieldFilters: z
    .array(
      z.object({
        filters: z.array(dependentFilterWrite).min(1).max(20),
        dependentFormField: z.object(fieldWriteShape),
        formFieldAction: z.string().max(64).optional(),
      }),
    )
    .max(20)
    .optional(),
});

export const formFieldGroupWrite = z.object({
  fields: z.array(fieldWrite).max(200),
  default: z.boolean().optional(),
  isSmartGroup: z.boolean().optional(),
  richText: z.object({ content: z.string().max(65_536), type: z.string().max(32).optional() }).optional(),
});

const consentText = z.string().max(65_536);
export const legalConsentOptionsWrite = z.object({
  consentToProcessText: consentText.optional(),
  consentToProcessCheckboxLabel: z.string().max(1024).optional(),
  communicationConsentText: consentText.optional(),
  communicationsCheckboxes: z
    .array(
      z.object({
        subscriptionTypeId: z.number().int(),
        label: z.string().min(1).max(1024),
        required: z.boolean().optional(),
      }),
    )
    .max(20)
    .optional(),
  privacyText: consentText.optional(),
});

export const formWrite = z.object({
  queuedFields: z.array(fieldWrite).max(50).optional(),
  queueLimit: z.number().int().min(0).max(50).optional(),
  legalConsentOptions: legalConsentOptionsWrite.optional(),
  steps: z
    .array(z.object({ title: z.string().max(255).optional(), groups: z.number().int().min(1).max(200) }))
    .max(20)
    .optional(),
  minFillTimeMs: z.number().int().min(0).max(600_000).optional(),
  // Checked by the platform so that a missing name answers the legacy MISSING_NAME error.
  name: z.string().max(255).optional(),
  action: z.string().optional(),
  method: z.string().optional(),
  cssClass: z.string().optional(),
  // Empty: no redirect (the inline message shows).
  redirect: z.union([z.literal(''), httpUrl]).optional(),
  inlineMessage: z.string().optional(),
  submitText: z.string().optional(),
  notifyRecipients: z.string().optional(),
  fields: z.array(fieldWrite).max(200).optional(),
  formFieldGroups: z.array(formFieldGroupWrite).max(200).optional(),
});

/** The `legalConsentOptions` parameter of a submission: JSON, @svc/protocol's LegalConsent. */
export const legalConsent = z.object({
  consent: z.object({
    consentToProcess: z.boolean().optional(),
    text: z.string().max(65_536).optional(),
    communications: z
      .array(
        z.object({ value: z.boolean(), subscriptionTypeId: z.number().int(), text: z.string().max(65_536).optional() }),
      )
      .max(20)
      .optional(),
  }),
}) satisfies z.ZodType<LegalConsent>;

/** The `svc_context` parameter of a submission: a JSON object, URL-encoded, of @svc/protocol's
 * SubmissionContext shape. The platform checks each field on its own and ignores one that fails
 * (a malformed `svcutk`, an over-long URL): a visitor's answers never cost their context. */
export const submissionContext = z.object({
  svcutk: visitorToken.optional(),
  /** Another name of `svcutk`, as clients written for the real API send it. */
  hutk: visitorToken.optional(),
  ipAddress: z.string().max(64).optional(),
  pageUrl: z.string().max(4096).optional(),
  pageName: z.string().max(1024).optional(),
  redirectUrl: httpUrl.optional(),
  fillTimeMs: z.number().int().min(0).optional(),
  interactions: z.number().int().min(0).optional(),
  prefilled: z.number().int().min(0).optional(),
  autofilled: z.number().int().min(0).optional(),
}) satisfies z.ZodType<SubmissionContext>;
