/** §4.4 Contact properties and groups, and the deal property group read (§4.1). */
import { z } from 'zod';
import { booleanString } from '../common';
import { route } from '../route';
import { groupWrite, property, propertyGroup, propertyWrite } from '../schemas/property';

const READ = ['crm.schemas.contacts.read', 'crm.schemas.contacts.write'];
const WRITE = ['crm.schemas.contacts.write'];
const name = z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/, 'must be a property name');
const propertyName = z.object({ property_name: name });
const groupName = z.object({ group_name: name });
const includeProperties = z.object({ includeProperties: booleanString.optional() });

export const propertyRoutes = {
  'properties.list': route({
    id: 'properties.list',
    method: 'GET',
    path: '/contacts/v1/properties',
    summary: 'All contact properties',
    scopes: READ,
    response: z.array(property),
  }),
  'properties.create': route({
    id: 'properties.create',
    method: 'PUT',
    path: '/contacts/v1/properties/:property_name',
    summary: 'Create a contact property (409 when it exists)',
    scopes: WRITE,
    params: propertyName,
    body: propertyWrite,
    response: property,
  }),
  'properties.update': route({
    id: 'properties.update',
    retry: 'safe',
    method: 'POST',
    path: '/contacts/v1/properties/:property_name',
    summary: 'Update a contact property',
    scopes: WRITE,
    params: propertyName,
    body: propertyWrite.partial(),
    response: property,
  }),
  'properties.delete': route({
    id: 'properties.delete',
    method: 'DELETE',
    path: '/contacts/v1/properties/:property_name',
    summary: 'Delete a custom contact property',
    scopes: WRITE,
    params: propertyName,
  }),
  'properties.getGroup': route({
    id: 'properties.getGroup',
    method: 'GET',
    path: '/contacts/v1/groups/:group_name',
    summary: 'A contact property group (with its properties when includeProperties=true)',
    scopes: READ,
    params: groupName,
    query: includeProperties,
    response: propertyGroup,
  }),
  'properties.createGroup': route({
    id: 'properties.createGroup',
    method: 'PUT',
    path: '/contacts/v1/groups/:group_name',
    summary: 'Create a contact property group (409 when it exists)',
    scopes: WRITE,
    params: groupName,
    body: groupWrite,
    response: propertyGroup,
  }),
  'properties.updateGroup': route({
    id: 'properties.updateGroup',
    retry: 'safe',
    method: 'POST',
    path: '/contacts/v1/groups/:group_name',
    summary: 'Update a custom contact property group',
    scopes: WRITE,
    params: groupName,
    body: groupWrite,
    response: propertyGroup,
  }),
  'properties.deleteGroup': route({
    id: 'properties.deleteGroup',
    method: 'DELETE',
    path: '/contacts/v1/groups/:group_name',
    summary: 'Delete a custom contact property group (its properties move to contactinformation)',
    scopes: WRITE,
    params: groupName,
  }),
  'deals.getPropertyGroup': route({
    id: 'deals.getPropertyGroup',
    method: 'GET',
    path: '/properties/v1/deals/groups/named/:property_group',
    summary: 'A deal property group (with its properties when includeProperties=true)',
    scopes: ['crm.schemas.deals.read'],
    params: z.object({ property_group: name }),
    query: includeProperties,
    response: propertyGroup,
  }),
};
