/** Forms and form fields (contacts API v1 forms). */
import { z } from 'zod';
import { timestamp } from '../common';
import { propertyOption } from './property';

export const formField = z.looseObject({
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
  validation: z.looseObject({ name: z.string(), message: z.string() }),
  enabled: z.boolean(),
  hidden: z.boolean(),
  defaultValue: z.string(),
  placeholder: z.string(),
  unselectedLabel: z.string(),
  labelHidden: z.boolean(),
});

export const form = z.looseObject({
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
  formFieldGroups: z.array(z.looseObject({ fields: z.array(formField) })),
  createdAt: timestamp,
  updatedAt: timestamp,
  deletable: z.boolean(),
  embeddedCode: z.string(),
});

export const fieldWrite = z.object({
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
});

export const formWrite = z.object({
  // Checked by the platform so that a missing name answers the legacy MISSING_NAME error.
  name: z.string().max(255).optional(),
  action: z.string().optional(),
  method: z.string().optional(),
  cssClass: z.string().optional(),
  redirect: z.string().optional(),
  inlineMessage: z.string().optional(),
  submitText: z.string().optional(),
  notifyRecipients: z.string().optional(),
  fields: z.array(fieldWrite).max(200).optional(),
  formFieldGroups: z.array(z.object({ fields: z.array(fieldWrite) })).max(200).optional(),
});

/** The `svc_context` parameter of a submission: a JSON object, URL-encoded. */
export const submissionContext = z.object({
  svcutk: z.string().max(64).optional(),
  ipAddress: z.string().max(64).optional(),
  pageUrl: z.string().max(4096).optional(),
  pageName: z.string().max(1024).optional(),
  redirectUrl: z.string().max(4096).optional(),
});
