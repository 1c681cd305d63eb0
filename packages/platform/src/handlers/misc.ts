/** §4.10 Keywords, settings and social broadcasts. */
import type { Handlers } from './handler';
import type { Services } from '../services';

export function miscHandlers({ keywords, settings, social }: Services): Handlers {
  return {
    'keywords.list': ({ db, portalId, query }) => keywords.list(db, portalId, query.search),
    'keywords.get': ({ db, portalId, params }) => keywords.get(db, portalId, params.keyword_guid),
    'keywords.create': ({ db, portalId, body }) => keywords.create(db, portalId, body),
    'keywords.delete': ({ db, portalId, params }) => keywords.remove(db, portalId, params.keywords_guid),

    'settings.get': ({ db, portalId, query }) => settings.get(db, portalId, query.name),
    'settings.create': ({ db, portalId, body }) => settings.put(db, portalId, body),
    'settings.update': ({ db, portalId, body }) => settings.put(db, portalId, body),
    'settings.delete': ({ db, portalId, query }) => settings.remove(db, portalId, query.name),

    'social.listChannels': ({ portalId, query }) => social.listChannels(portalId, query.settings ?? true),
    'social.getChannel': ({ portalId, params }) => social.getChannel(portalId, params.channel_guid),
    'social.listBroadcasts': ({ portalId, query }) => social.list(portalId, query),
    'social.getBroadcast': ({ portalId, params }) => social.get(portalId, params.broadcast_guid),
    'social.createBroadcast': ({ portalId, body }) => social.create(portalId, body),
    'social.cancelBroadcast': ({ portalId, params }) => social.cancel(portalId, params.broadcast_guid),
  };
}
