/** Contact properties and property groups (contacts and deals). */
import { z } from 'zod';
import { timestamp } from '../common';

export const PROPERTY_TYPES = ['string', 'number', 'date', 'datetime', 'enumeration', 'bool'] as const;
export const FIELD_TYPES = [
  'text',
  'textarea',
  'select',
  'radio',
  'checkbox',
  'booleancheckbox',
  'number',
  'date',
  'file',
  'phonenumber',
] as const;

export const propertyOption = z.looseObject({
  label: z.string(),
  value: z.string(),
  description: z.string().nullable().optional(),
  displayOrder: z.number().optional(),
  hidden: z.boolean().optional(),
});

export const property = z.looseObject({
  name: z.string(),
  label: z.string(),
  description: z.string(),
  groupName: z.string(),
  type: z.enum(PROPERTY_TYPES),
  fieldType: z.string(),
  options: z.array(propertyOption),
  hidden: z.boolean(),
  deleted: z.boolean(),
  displayOrder: z.number(),
  formField: z.boolean(),
  readOnlyValue: z.boolean(),
  readOnlyDefinition: z.boolean(),
  mutableDefinitionNotDeletable: z.boolean(),
  calculated: z.boolean(),
  externalOptions: z.boolean(),
  displayMode: z.string(),
  svcDefined: z.boolean(),
  createdAt: timestamp.nullable(),
  updatedAt: timestamp.nullable(),
});

/** What a client sends to create or update a property. */
export const propertyWrite = z.object({
  name: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,99}$/, 'must be lower-case letters, digits and _')
    .optional(),
  label: z.string().min(1).max(255),
  description: z.string().max(2000).optional(),
  groupName: z.string().min(1),
  type: z.enum(PROPERTY_TYPES),
  fieldType: z.enum(FIELD_TYPES),
  options: z.array(propertyOption).optional(),
  hidden: z.boolean().optional(),
  displayOrder: z.number().int().optional(),
  formField: z.boolean().optional(),
});

export const propertyGroup = z.looseObject({
  name: z.string(),
  displayName: z.string(),
  displayOrder: z.number(),
  svcDefined: z.boolean(),
  properties: z.array(property).optional(),
});

export const groupWrite = z.object({
  name: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,99}$/, 'must be lower-case letters, digits and _')
    .optional(),
  displayName: z.string().max(255).optional(),
  displayOrder: z.number().int().optional(),
});
