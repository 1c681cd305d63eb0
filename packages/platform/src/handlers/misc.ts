/** §4.10 Keywords, settings and social broadcasts. */
import type { Handlers } from './handler';
import type { Services } from '../services/wiring';

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

    'social.listChannels': ({ db, portalId, query }) => social.listChannels(db, portalId, query.settings ?? true),
    'social.getChannel': ({ db, portalId, params }) => social.getChannel(db, portalId, params.channel_guid),
    'social.listBroadcasts': ({ db, portalId, query }) => social.list(db, portalId, query),
    'social.getBroadcast': ({ db, portalId, params }) => social.get(db, portalId, params.broadcast_guid),
    'social.createBroadcast': ({ db, portalId, body }) => social.create(db, portalId, body),
    'social.cancelBroadcast': ({ db, portalId, params }) => social.cancel(db, portalId, params.broadcast_guid),
  };
}
