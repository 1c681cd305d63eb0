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
  z
    .string()
    .transform((s) => s.split(',').filter(Boolean))
    .pipe(z.array(item).max(100));
const batchResult = z.record(z.string(), contact);

/** What an item of vids/batch's list is: a vid as numericId takes it, or an email address by the
 * rule a contact's email property is held to (the platform's store/properties.ts). */
const VID = /^\d{1,15}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const kindOf = (s: string) =>
  VID.test(s) ? 'a vid' : s.length <= 254 && EMAIL.test(s) ? 'an email address' : undefined;
/** `/vids/batch/:contact_ids`, which the spec lists twice: "group by ids" (`:contact_ids`) and
 * "group by emails" (`:contact_emails`). The values tell which: all vids (`1,2,3`) or all email
 * addresses (`a@x.com,b@x.com`), up to 100; a mix, or an item that is neither, is refused, naming
 * the item. Parsed to both lists, one of them empty. */
const vidsOrEmails = list(z.string()).transform((items, ctx) => {
  const kinds = items.map(kindOf);
  const bad = kinds.indexOf(undefined);
  const other = kinds.findIndex((k) => k != kinds[0]);
  if (bad >= 0 || other > 0) {
    const at = bad >= 0 ? bad : other;
    const message =
      bad >= 0
        ? 'must be a vid (a positive integer) or an email address'
        : `is ${kinds[other]}, but item 0 is ${kinds[0]}: give all vids or all email addresses`;
    ctx.issues.push({ code: 'custom', input: items[at], path: [at], message });
    return z.NEVER;
  }
  return kinds[0] == 'an email address'
    ? { vids: [] as number[], emails: items }
    : { vids: items.map(Number), emails: [] as string[] };
});

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
    summary:
      'Contacts by vids or by email addresses (comma-separated in the path, all one or the other; or repeated `vid`), keyed by vid',
    scopes: READ,
    params: z.object({ contact_ids: vidsOrEmails }),
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
    // The spec prints this route with the vids path, which getBatchByVids serves too (telling
    // emails from vids by their values); this is the legacy API's path for it.
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
