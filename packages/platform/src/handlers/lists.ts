/** §4.3 Contact lists. */
import type { Handlers } from './handler';
import type { Services } from '../services';
import type { MemberRow } from '../store/lists';
import type { ReadOptions } from '../store/contacts';

export function listHandlers({ lists, contacts }: Services): Handlers {
  /** Contacts of a list carry `addedAt`: the time they joined it. */
  const members = (rows: MemberRow[], opts: ReadOptions) => contacts.records(rows, opts, (r) => (r as MemberRow).added_at);
  const page = ({ lists: found, hasMore }: ReturnType<typeof lists.page>, offset = 0) => ({
    lists: found,
    offset: offset + found.length,
    'has-more': hasMore,
  });

  return {
    'lists.create': ({ portalId, body }) => lists.create(portalId, body),
    'lists.update': ({ portalId, params, body }) => lists.update(portalId, params.list_id, body),
    'lists.delete': ({ portalId, params }) => lists.remove(portalId, params.list_id),
    'lists.get': ({ portalId, params }) => lists.get(portalId, params.list_id),
    'lists.list': ({ portalId, query: { count, offset } }) => page(lists.page(portalId, count, offset), offset),
    'lists.listStatic': ({ portalId, query: { count, offset } }) => page(lists.page(portalId, count, offset, 'STATIC'), offset),
    'lists.listDynamic': ({ portalId, query: { count, offset } }) => page(lists.page(portalId, count, offset, 'DYNAMIC'), offset),
    'lists.getBatch': ({ portalId, query }) => ({ lists: lists.getMany(portalId, query.listId) }),
    'lists.getContacts': ({ portalId, params, query: { count, vidOffset, ...opts } }) => {
      const { rows, hasMore } = lists.members(portalId, params.list_id, count, vidOffset);
      return { contacts: members(rows, opts), 'has-more': hasMore, 'vid-offset': rows.at(-1)?.vid ?? vidOffset ?? 0 };
    },
    'lists.getRecentContacts': ({ portalId, params, query: { count, timeOffset, vidOffset, ...opts } }) => {
      const { rows, hasMore } = lists.recentMembers(portalId, params.list_id, count, timeOffset, vidOffset);
      const last = rows.at(-1);
      return {
        contacts: members(rows, opts),
        'has-more': hasMore,
        'vid-offset': last?.vid ?? vidOffset ?? 0,
        'time-offset': last?.added_at ?? timeOffset ?? 0,
      };
    },
    'lists.refresh': ({ portalId, params }) => lists.refresh(portalId, params.list_id),
    'lists.add': ({ portalId, params, body }) => lists.addMembers(portalId, params.list_id, body.vids ?? [], body.emails ?? []),
    'lists.remove': ({ portalId, params, body }) => lists.removeMembers(portalId, params.list_id, body.vids ?? [], body.emails ?? []),
  };
}
