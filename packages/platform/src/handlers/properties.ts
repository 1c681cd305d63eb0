/** §4.4 Contact properties and groups, and the deal property group read. */
import type { Handlers } from './handler';
import type { Services } from '../services/wiring';

export function propertyHandlers({ properties, removeProperty }: Services): Handlers {
  return {
    'properties.list': async ({ db, portalId }) => [...(await properties.definitions(db, portalId)).values()],
    'properties.create': ({ db, portalId, params, body }) =>
      properties.create(db, portalId, params.property_name, body),
    'properties.update': ({ db, portalId, params, body }) =>
      properties.update(db, portalId, params.property_name, body),
    'properties.delete': ({ db, portalId, params }) => removeProperty(db, portalId, params.property_name),
    'properties.getGroup': ({ db, portalId, params, query }) =>
      properties.getGroup(db, portalId, params.group_name, !!query.includeProperties),
    'properties.createGroup': ({ db, portalId, params, body }) =>
      properties.createGroup(db, portalId, params.group_name, body),
    'properties.updateGroup': ({ db, portalId, params, body }) =>
      properties.updateGroup(db, portalId, params.group_name, body),
    'properties.deleteGroup': ({ db, portalId, params }) => properties.removeGroup(db, portalId, params.group_name),
    'deals.getPropertyGroup': ({ db, portalId, params, query }) =>
      properties.getGroup(db, portalId, params.property_group, !!query.includeProperties, 'deals'),
  };
}
