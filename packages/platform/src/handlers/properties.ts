/** §4.4 Contact properties and groups, and the deal property group read. */
import type { Handlers } from './handler';
import type { Services } from '../services';

export function propertyHandlers({ properties, removeProperty }: Services): Handlers {
  return {
    'properties.list': ({ portalId }) => [...properties.definitions(portalId).values()],
    'properties.create': ({ portalId, params, body }) => properties.create(portalId, params.property_name, body),
    'properties.update': ({ portalId, params, body }) => properties.update(portalId, params.property_name, body),
    'properties.delete': ({ portalId, params }) => removeProperty(portalId, params.property_name),
    'properties.getGroup': ({ portalId, params, query }) => properties.getGroup(portalId, params.group_name, !!query.includeProperties),
    'properties.createGroup': ({ portalId, params, body }) => properties.createGroup(portalId, params.group_name, body),
    'properties.updateGroup': ({ portalId, params, body }) => properties.updateGroup(portalId, params.group_name, body),
    'properties.deleteGroup': ({ portalId, params }) => properties.removeGroup(portalId, params.group_name),
    'deals.getPropertyGroup': ({ portalId, params, query }) =>
      properties.getGroup(portalId, params.property_group, !!query.includeProperties, 'deals'),
  };
}
