/** §4.2 Contacts. */
import { Reply, type Handlers } from './handler';
import { notFound } from '../domain/errors';
import type { Services } from '../services';
import type { ContactRow, ReadOptions } from '../store/contacts';

export function contactHandlers({ contacts }: Services): Handlers {
  const profile = (row: ContactRow, query: ReadOptions) => contacts.record(row, { ...query, profile: true });
  /** Batch reads answer value_only by default, keyed by `key`. */
  const keyed = (pairs: [string, ContactRow | undefined][], query: ReadOptions) =>
    Object.fromEntries(
      pairs.filter(([, row]) => row).map(([key, row]) => [key, contacts.record(row!, { propertyMode: 'value_only', ...query, profile: true })]),
    );

  /** A newest-first feed page: the cursor is the last row's (time, vid). */
  const recentPage = (
    page: { rows: ContactRow[]; hasMore: boolean },
    opts: ReadOptions,
    at: (row: ContactRow) => number,
    timeOffset?: number,
    vidOffset?: number,
  ) => {
    const last = page.rows.at(-1);
    return {
      contacts: contacts.records(page.rows, opts, at),
      'has-more': page.hasMore,
      'vid-offset': last?.vid ?? vidOffset ?? 0,
      'time-offset': last ? at(last) : (timeOffset ?? 0),
    };
  };
  return {
    'contacts.create': ({ portalId, body }) => profile(contacts.require(portalId, contacts.create(portalId, body.properties)), {}),
    'contacts.update': ({ portalId, params, body }) => {
      contacts.update(portalId, params.contact_id, body.properties);
    },
    'contacts.createOrUpdate': ({ portalId, params, body }) => contacts.upsertByEmail(portalId, params.contact_email, body.properties),
    'contacts.batch': ({ portalId, body }) => {
      contacts.batch(portalId, body.map((i) => ({ vid: i.vid, email: i.email, properties: i.properties })));
      return new Reply(202);
    },
    'contacts.delete': ({ portalId, params }) => {
      contacts.remove(portalId, params.contact_id);
      return { vid: params.contact_id, deleted: true, reason: 'OK' };
    },
    'contacts.getAll': ({ portalId, query: { count, vidOffset, ...opts } }) => {
      const { rows, hasMore } = contacts.page(portalId, count, vidOffset);
      return {
        contacts: contacts.records(rows, opts, (r) => r.created_at),
        'has-more': hasMore,
        'vid-offset': rows.at(-1)?.vid ?? vidOffset ?? 0,
      };
    },
    'contacts.getRecentlyUpdated': ({ portalId, query: { count, timeOffset, vidOffset, ...opts } }) =>
      recentPage(contacts.recent(portalId, count, timeOffset, vidOffset), opts, (r) => r.updated_at, timeOffset, vidOffset),
    'contacts.getRecentlyCreated': ({ portalId, query: { count, timeOffset, vidOffset, ...opts } }) =>
      recentPage(contacts.created(portalId, count, timeOffset, vidOffset), opts, (r) => r.created_at, timeOffset, vidOffset),
    'contacts.getByVid': ({ portalId, params, query }) => profile(contacts.require(portalId, params.contact_id), query),
    'contacts.getByEmail': ({ portalId, params, query }) => {
      const row = contacts.getByEmail(portalId, params.contact_email);
      if (!row) throw notFound('resource not found');
      return profile(row, query);
    },
    'contacts.getByUtk': ({ portalId, params, query }) => {
      const row = contacts.getByUtk(portalId, params.contact_utk);
      if (!row) throw notFound('resource not found');
      return profile(row, query);
    },
    'contacts.getBatchByVids': ({ portalId, params, query: { vid, ...query } }) =>
      keyed([...params.contact_ids, ...vid].map((v) => [String(v), contacts.get(portalId, v)]), query),
    'contacts.getBatchByEmails': ({ portalId, params, query: { email, ...query } }) =>
      keyed([...params.contact_emails, ...email].map((e) => contacts.getByEmail(portalId, e)).map((r) => [String(r?.vid), r]), query),
    'contacts.getBatchByUtks': ({ portalId, params, query: { utk, ...query } }) =>
      keyed([...params.contact_utk, ...utk].map((u) => [u, contacts.getByUtk(portalId, u)]), query),
    'contacts.getBatchByVidsQuery': ({ portalId, query: { vid, ...query } }) => keyed(vid.map((v) => [String(v), contacts.get(portalId, v)]), query),
    'contacts.getBatchByEmailsQuery': ({ portalId, query: { email, ...query } }) =>
      keyed(email.map((e) => contacts.getByEmail(portalId, e)).map((r) => [String(r?.vid), r]), query),
    'contacts.getBatchByUtksQuery': ({ portalId, query: { utk, ...query } }) => keyed(utk.map((u) => [u, contacts.getByUtk(portalId, u)]), query),
    'contacts.search': ({ portalId, query: { q, count, offset = 0, property, sort, order } }) => {
      const { rows, total } = contacts.search(portalId, q, count, offset, sort ? { property: sort, order } : undefined);
      return {
        query: q,
        offset: offset + rows.length,
        'has-more': offset + rows.length < total,
        total,
        contacts: contacts.records(rows, { property }, (r) => r.created_at),
      };
    },
    'contacts.statistics': ({ portalId }) => contacts.statistics(portalId),
  };
}
