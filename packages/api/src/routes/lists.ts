/** §4.3 Contact lists. */
import { z } from 'zod';
import { count, numericId, offset, repeated } from '../common';
import { route } from '../route';
import { contactPage, contactReadQuery, recentContactPage } from '../schemas/contact';
import { contactList, listFilters, listPage, membershipChange } from '../schemas/list';

const READ = ['crm.lists.read', 'crm.lists.write'];
const WRITE = ['crm.lists.write'];
const listId = z.object({ list_id: numericId });
const paging = z.object({ count: count(20, 250), offset: offset.optional() });
const listWrite = z.object({
  name: z.string().trim().min(1, 'every list must have a name').max(255),
  dynamic: z.boolean().optional(),
  filters: listFilters.optional(),
  portal_id: z.unknown().optional(),
});
const members = z
  .object({ vids: z.array(z.number().int()).max(500).optional(), emails: z.array(z.string()).max(500).optional() })
  .refine((b) => b.vids?.length || b.emails?.length, 'give vids or emails');

export const listRoutes = {
  'lists.create': route({
    id: 'lists.create',
    method: 'POST',
    path: '/contacts/v1/lists',
    summary: 'Create a static list, or a dynamic one with filters',
    scopes: WRITE,
    body: listWrite,
    response: contactList,
  }),
  'lists.update': route({
    id: 'lists.update',
    retry: 'safe',
    method: 'POST',
    path: '/contacts/v1/lists/:list_id',
    summary: 'Update a list (name, filters)',
    scopes: WRITE,
    params: listId,
    body: listWrite.partial(),
    response: contactList,
  }),
  'lists.delete': route({
    id: 'lists.delete',
    method: 'DELETE',
    path: '/contacts/v1/lists/:list_id',
    summary: 'Delete a list',
    scopes: WRITE,
    params: listId,
  }),
  'lists.get': route({
    id: 'lists.get',
    method: 'GET',
    path: '/contacts/v1/lists/:list_id',
    summary: 'A list by id',
    scopes: READ,
    params: listId,
    response: contactList,
  }),
  'lists.list': route({
    id: 'lists.list',
    method: 'GET',
    path: '/contacts/v1/lists',
    summary: 'Lists, paged with offset',
    scopes: READ,
    query: paging,
    response: listPage,
  }),
  'lists.getBatch': route({
    id: 'lists.getBatch',
    method: 'GET',
    path: '/contacts/v1/lists/batch',
    summary: 'Lists by repeated listId, in request order; unknown ids omitted',
    scopes: READ,
    query: z.object({ listId: repeated(numericId) }),
    response: z.object({ lists: z.array(contactList) }),
  }),
  'lists.listStatic': route({
    id: 'lists.listStatic',
    method: 'GET',
    path: '/contacts/v1/lists/static',
    summary: 'Static lists, paged with offset',
    scopes: READ,
    query: paging,
    response: listPage,
  }),
  'lists.listDynamic': route({
    id: 'lists.listDynamic',
    method: 'GET',
    path: '/contacts/v1/lists/dynamic',
    summary: 'Dynamic lists, paged with offset',
    scopes: READ,
    query: paging,
    response: listPage,
  }),
  'lists.getContacts': route({
    id: 'lists.getContacts',
    method: 'GET',
    path: '/contacts/v1/lists/:list_id/contacts/all',
    summary: 'Contacts in a list, by vid, paged with vidOffset',
    scopes: READ,
    params: listId,
    query: z.object({ count: count(20, 100), vidOffset: offset.optional(), ...contactReadQuery }),
    response: contactPage,
  }),
  'lists.getRecentContacts': route({
    id: 'lists.getRecentContacts',
    method: 'GET',
    path: '/contacts/v1/lists/:list_id/contacts/recent',
    summary: 'Contacts recently added to a list, newest first',
    scopes: READ,
    params: listId,
    query: z.object({
      count: count(20, 100),
      timeOffset: offset.optional(),
      vidOffset: offset.optional(),
      ...contactReadQuery,
    }),
    response: recentContactPage,
  }),
  'lists.refresh': route({
    id: 'lists.refresh',
    retry: 'safe',
    method: 'POST',
    path: '/contacts/v1/lists/:list_id/refresh',
    summary: 'Re-evaluate a dynamic list',
    scopes: WRITE,
    params: listId,
    body: z.looseObject({}).optional(),
  }),
  'lists.add': route({
    id: 'lists.add',
    retry: 'safe', // membership is a set
    method: 'POST',
    path: '/contacts/v1/lists/:list_id/add',
    summary: 'Add contacts (by vid or email) to a static list',
    scopes: WRITE,
    params: listId,
    body: members,
    response: membershipChange,
  }),
  'lists.remove': route({
    id: 'lists.remove',
    retry: 'safe', // membership is a set
    method: 'POST',
    path: '/contacts/v1/lists/:list_id/remove',
    summary: 'Remove contacts (by vid or email) from a static list',
    scopes: WRITE,
    params: listId,
    body: members,
    response: membershipChange,
  }),
};
