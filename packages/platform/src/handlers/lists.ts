/** §4.3 Contact lists. */
import type { Queryable } from '../db/engine';
import type { Handlers } from './handler';
import type { Services } from '../services/wiring';
import type { MemberRow } from '../store/lists';
import type { ReadOptions } from '../store/contacts';

export function listHandlers({ lists, contacts }: Services): Handlers {
  /** Contacts of a list carry `addedAt`: the time they joined it. */
  const members = (db: Queryable, rows: MemberRow[], opts: ReadOptions) =>
    contacts.records(db, rows, opts, (r) => (r as MemberRow).added_at);
  const page = ({ lists: found, hasMore }: Awaited<ReturnType<typeof lists.page>>, offset = 0) => ({
    lists: found,
    offset: offset + found.length,
    'has-more': hasMore,
  });

  return {
    'lists.create': ({ db, portalId, body }) => lists.create(db, portalId, body),
    'lists.update': ({ db, portalId, params, body }) => lists.update(db, portalId, params.list_id, body),
    'lists.delete': ({ db, portalId, params }) => lists.remove(db, portalId, params.list_id),
    'lists.get': ({ db, portalId, params }) => lists.get(db, portalId, params.list_id),
    'lists.list': async ({ db, portalId, query: { count, offset } }) =>
      page(await lists.page(db, portalId, count, offset), offset),
    'lists.listStatic': async ({ db, portalId, query: { count, offset } }) =>
      page(await lists.page(db, portalId, count, offset, 'STATIC'), offset),
    'lists.listDynamic': async ({ db, portalId, query: { count, offset } }) =>
      page(await lists.page(db, portalId, count, offset, 'DYNAMIC'), offset),
    'lists.getBatch': async ({ db, portalId, query }) => ({ lists: await lists.getMany(db, portalId, query.listId) }),
    'lists.getContacts': async ({ db, portalId, params, query: { count, vidOffset, ...opts } }) => {
      const { rows, hasMore } = await lists.members(db, portalId, params.list_id, count, vidOffset);
      return {
        contacts: await members(db, rows, opts),
        'has-more': hasMore,
        'vid-offset': rows.at(-1)?.vid ?? vidOffset ?? 0,
      };
    },
    'lists.getRecentContacts': async ({ db, portalId, params, query: { count, timeOffset, vidOffset, ...opts } }) => {
      const { rows, hasMore } = await lists.recentMembers(db, portalId, params.list_id, count, timeOffset, vidOffset);
      const last = rows.at(-1);
      return {
        contacts: await members(db, rows, opts),
        'has-more': hasMore,
        'vid-offset': last?.vid ?? vidOffset ?? 0,
        'time-offset': last?.added_at ?? timeOffset ?? 0,
      };
    },
    'lists.refresh': ({ db, portalId, params }) => lists.refresh(db, portalId, params.list_id),
    'lists.add': ({ db, portalId, params, body }) =>
      lists.addMembers(db, portalId, params.list_id, body.vids ?? [], body.emails ?? []),
    'lists.remove': ({ db, portalId, params, body }) =>
      lists.removeMembers(db, portalId, params.list_id, body.vids ?? [], body.emails ?? []),
  };
}
