/** §4.2 Contacts. */
import { z } from 'zod';
import { count, numericId, offset, repeated } from '../common';
import { route } from '../route';
import { contact, contactPage, contactReadQuery, contactWrite, recentContactPage } from '../schemas/contact';

const READ = ['crm.objects.contacts.read', 'crm.objects.contacts.write', 'content'];
const WRITE = ['crm.objects.contacts.write'];
const email = z.string().min(1).max(254);
// Lookups take any token: one that is not a visitor token (common.ts) links to nothing, so it is
// not found (404), like any unknown one.
const utk = z.string().min(1).max(64);
/** A comma-separated list in the path (`1,2,3`), up to 100 items. */
const list = <T extends z.ZodType<unknown, string>>(item: T) =>
  z.string().transform((s) => s.split(',').filter(Boolean)).pipe(z.array(item).max(100));
const idList = list(numericId);
const batchResult = z.record(z.string(), contact);

export const contactRoutes = {
  'contacts.create': route({
    id: 'contacts.create',
    method: 'POST',
    path: '/contacts/v1/contact',
    summary: 'Create a contact (409 CONTACT_EXISTS when the email is taken)',
    scopes: WRITE,
    body: contactWrite,
    response: contact,
  }),
  'contacts.update': route({
    id: 'contacts.update',
    retry: 'safe', // an update to the same values
    method: 'POST',
    path: '/contacts/v1/contact/vid/:contact_id/profile',
    summary: 'Update a contact (one or many properties)',
    scopes: WRITE,
    params: z.object({ contact_id: numericId }),
    body: contactWrite,
  }),
  'contacts.createOrUpdate': route({
    id: 'contacts.createOrUpdate',
    retry: 'safe', // an upsert
    method: 'POST',
    path: '/contacts/v1/contact/createOrUpdate/email/:contact_email',
    summary: 'Create or update a contact by email',
    scopes: WRITE,
    params: z.object({ contact_email: email }),
    body: contactWrite,
    response: z.object({ vid: z.number(), isNew: z.boolean() }),
  }),
  'contacts.batch': route({
    id: 'contacts.batch',
    retry: 'safe', // upserts by vid or email
    method: 'POST',
    path: '/contacts/v1/contact/batch/',
    summary: 'Create or update up to 1,000 contacts, each by vid or email (all or nothing)',
    scopes: WRITE,
    body: z
      .array(
        z.object({
          vid: z.union([z.number().int().positive(), numericId]).optional(),
          email: email.optional(),
          properties: contactWrite.shape.properties,
        }),
      )
      .min(1)
      .max(1000),
    status: 202,
  }),
  'contacts.delete': route({
    id: 'contacts.delete',
    method: 'DELETE',
    path: '/contacts/v1/contact/vid/:contact_id',
    summary: 'Delete a contact',
    scopes: WRITE,
    params: z.object({ contact_id: numericId }),
    response: z.object({ vid: z.number(), deleted: z.boolean(), reason: z.string() }),
  }),
  'contacts.getAll': route({
    id: 'contacts.getAll',
    method: 'GET',
    path: '/contacts/v1/lists/all/contacts/all',
    summary: 'All contacts, by vid, paged with vidOffset',
    scopes: READ,
    query: z.object({ count: count(20, 100), vidOffset: offset.optional(), ...contactReadQuery }),
    response: contactPage,
  }),
  'contacts.getRecentlyUpdated': route({
    id: 'contacts.getRecentlyUpdated',
    method: 'GET',
    path: '/contacts/v1/lists/recently_updated/contacts/recent',
    summary: 'New and recently updated contacts, newest first, paged with timeOffset + vidOffset',
    scopes: READ,
    query: z.object({
      count: count(20, 100),
      timeOffset: offset.optional(),
      vidOffset: offset.optional(),
      ...contactReadQuery,
    }),
    response: recentContactPage,
  }),
  'contacts.getRecentlyCreated': route({
    id: 'contacts.getRecentlyCreated',
    method: 'GET',
    path: '/contacts/v1/lists/all/contacts/recent',
    summary: 'Recently created contacts, newest first, paged with timeOffset + vidOffset',
    scopes: READ,
    query: z.object({
      count: count(20, 100),
      timeOffset: offset.optional(),
      vidOffset: offset.optional(),
      ...contactReadQuery,
    }),
    response: recentContactPage,
  }),
  'contacts.getByVid': route({
    id: 'contacts.getByVid',
    method: 'GET',
    path: '/contacts/v1/contact/vid/:contact_id/profile',
    summary: 'A contact by vid',
    scopes: READ,
    params: z.object({ contact_id: numericId }),
    query: z.object(contactReadQuery),
    response: contact,
  }),
  'contacts.getBatchByVids': route({
    id: 'contacts.getBatchByVids',
    method: 'GET',
    path: '/contacts/v1/contact/vids/batch/:contact_ids',
    summary: 'Contacts by vids (comma-separated in the path, or repeated `vid`), keyed by vid',
    scopes: READ,
    params: z.object({ contact_ids: idList }),
    query: z.object({ vid: repeated(numericId), ...contactReadQuery }),
    response: batchResult,
  }),
  // The same batch reads with the keys only in the query string, as the legacy clients send them.
  'contacts.getBatchByVidsQuery': route({
    id: 'contacts.getBatchByVidsQuery',
    method: 'GET',
    path: '/contacts/v1/contact/vids/batch/',
    summary: 'Contacts by vids given as repeated `vid` query parameters, keyed by vid',
    scopes: READ,
    query: z.object({ vid: repeated(numericId), ...contactReadQuery }),
    response: batchResult,
  }),
  'contacts.getBatchByEmailsQuery': route({
    id: 'contacts.getBatchByEmailsQuery',
    method: 'GET',
    path: '/contacts/v1/contact/emails/batch/',
    summary: 'Contacts by emails given as repeated `email` query parameters, keyed by vid',
    scopes: READ,
    query: z.object({ email: repeated(email), ...contactReadQuery }),
    response: batchResult,
  }),
  'contacts.getBatchByUtksQuery': route({
    id: 'contacts.getBatchByUtksQuery',
    method: 'GET',
    path: '/contacts/v1/contact/utks/batch/',
    summary: 'Contacts by user tokens given as repeated `utk` query parameters, keyed by utk',
    scopes: READ,
    query: z.object({ utk: repeated(utk), ...contactReadQuery }),
    response: batchResult,
  }),
  'contacts.getByEmail': route({
    id: 'contacts.getByEmail',
    method: 'GET',
    path: '/contacts/v1/contact/email/:contact_email/profile',
    summary: 'A contact by email',
    scopes: READ,
    params: z.object({ contact_email: email }),
    query: z.object(contactReadQuery),
    response: contact,
  }),
  'contacts.getBatchByEmails': route({
    id: 'contacts.getBatchByEmails',
    method: 'GET',
    // The spec prints this route with the vids path, which would collide with the one above;
    // the legacy API (and this catalog) use `emails/batch`.
    path: '/contacts/v1/contact/emails/batch/:contact_emails',
    summary: 'Contacts by emails (comma-separated in the path, or repeated `email`), keyed by vid',
    scopes: READ,
    params: z.object({ contact_emails: list(email) }),
    query: z.object({ email: repeated(email), ...contactReadQuery }),
    response: batchResult,
  }),
  'contacts.getByUtk': route({
    id: 'contacts.getByUtk',
    method: 'GET',
    path: '/contacts/v1/contact/utk/:contact_utk/profile',
    summary: 'A contact by user token (the svcutk cookie)',
    scopes: READ,
    params: z.object({ contact_utk: utk }),
    query: z.object(contactReadQuery),
    response: contact,
  }),
  'contacts.getBatchByUtks': route({
    id: 'contacts.getBatchByUtks',
    method: 'GET',
    path: '/contacts/v1/contact/utks/batch/:contact_utk',
    summary: 'Contacts by user tokens (comma-separated in the path, or repeated `utk`), keyed by utk',
    scopes: READ,
    params: z.object({ contact_utk: list(utk) }),
    query: z.object({ utk: repeated(utk), ...contactReadQuery }),
    response: batchResult,
  }),
  'contacts.search': route({
    id: 'contacts.search',
    method: 'GET',
    path: '/contacts/v1/search/query',
    summary: 'Search contacts by name, email or company (substring)',
    scopes: READ,
    query: z.object({
      q: z.string().min(1, 'is required'),
      count: count(20, 100),
      offset: offset.optional(),
      property: contactReadQuery.property,
      sort: z.string().optional(),
      order: z.enum(['ASC', 'DESC']).optional(),
    }),
    response: z.object({
      query: z.string(),
      offset: z.number(),
      'has-more': z.boolean(),
      total: z.number(),
      contacts: z.array(contact),
    }),
  }),
  'contacts.statistics': route({
    id: 'contacts.statistics',
    method: 'GET',
    path: '/contacts/v1/contacts/statistics',
    summary: 'Number of contacts and when the last one was created',
    scopes: READ,
    response: z.object({ contacts: z.number(), lastNewContactAt: z.number().nullable() }),
  }),
};
