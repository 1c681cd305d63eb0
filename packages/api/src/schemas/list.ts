/** Contact lists v1: camelCase records; dynamic lists carry OR-of-AND filter groups. */
import { z } from 'zod';
import { timestamp } from '../common';

/** One filter on a contact property. */
export const listFilter = z.looseObject({
  operator: z.enum([
    'EQ',
    'NEQ',
    'CONTAINS',
    'NOT_CONTAINS',
    'IS_NOT_EMPTY',
    'IS_EMPTY',
    'GT',
    'LT',
    'SET_ANY',
    'HAS_FILLED_OUT_FORM',
  ]),
  property: z.string().min(1).optional(),
  value: z.union([z.string(), z.number(), z.boolean()]).optional(),
  form: z.string().optional(),
  type: z.enum(['string', 'number', 'enumeration', 'datetime', 'date', 'bool']).optional(),
  filterFamily: z.string().optional(),
  withinTimeMode: z.string().optional(),
});
/** Groups joined by OR; the filters of a group joined by AND. */
export const listFilters = z.array(z.array(listFilter).min(1));

export const contactList = z.looseObject({
  listId: z.number(),
  internalListId: z.number(),
  portalId: z.number(),
  name: z.string(),
  dynamic: z.boolean(),
  listType: z.enum(['STATIC', 'DYNAMIC']),
  archived: z.boolean(),
  deleteable: z.boolean(),
  createdAt: timestamp,
  updatedAt: timestamp,
  filters: listFilters,
  metaData: z.looseObject({
    processing: z.enum(['INITIALIZING', 'REFRESHING', 'DONE']),
    size: z.number(),
    error: z.string(),
    lastProcessingStateChangeAt: timestamp,
    lastSizeChangeAt: timestamp,
  }),
});

export const listPage = z.object({ lists: z.array(contactList), offset: z.number(), 'has-more': z.boolean() });

export const membershipChange = z.object({
  updated: z.array(z.number()),
  discarded: z.array(z.number()),
  invalidVids: z.array(z.number()),
  invalidEmails: z.array(z.string()),
});
