/** §4.2 Contacts. */
import { Reply, type Handlers } from './handler';
import { notFound } from '../domain/errors';
import { reading, type Queryable } from '../db/engine';
import type { Services } from '../services/wiring';
import type { ContactRow, ReadOptions } from '../store/contacts';

export function contactHandlers({ contacts }: Services): Handlers {
  const profile = (db: Queryable, row: ContactRow, query: ReadOptions) =>
    contacts.record(db, row, { ...query, profile: true });
  /** Batch reads answer value_only by default, keyed by `key`; `rows` are found side by side. */
  const keyed = async (db: Queryable, pairs: Promise<[string, ContactRow | undefined]>[], query: ReadOptions) => {
    const found = (await Promise.all(pairs)).filter(([, row]) => row);
    const records = await Promise.all(
      found.map(([, row]) => contacts.record(db, row!, { propertyMode: 'value_only', ...query, profile: true })),
    );
    return Object.fromEntries(found.map(([key], i) => [key, records[i]]));
  };
  const byVid = (db: Queryable, portalId: number, vids: number[]) =>
    vids.map(async (v): Promise<[string, ContactRow | undefined]> => [String(v), await contacts.get(db, portalId, v)]);
  const byEmail = (db: Queryable, portalId: number, emails: string[]) =>
    emails.map(async (e): Promise<[string, ContactRow | undefined]> => {
      const row = await contacts.getByEmail(db, portalId, e);
      return [String(row?.vid), row];
    });
  const byUtk = (db: Queryable, portalId: number, utks: string[]) =>
    utks.map(async (u): Promise<[string, ContactRow | undefined]> => [u, await contacts.getByUtk(db, portalId, u)]);

  /** A newest-first feed page: the cursor is the last row's (time, vid). */
  const recentPage = async (
    db: Queryable,
    page: { rows: ContactRow[]; hasMore: boolean },
    opts: ReadOptions,
    at: (row: ContactRow) => number,
    timeOffset?: number,
    vidOffset?: number,
  ) => {
    const last = page.rows.at(-1);
    return {
      contacts: await contacts.records(db, page.rows, opts, at),
      'has-more': page.hasMore,
      'vid-offset': last?.vid ?? vidOffset ?? 0,
      'time-offset': last ? at(last) : (timeOffset ?? 0),
    };
  };
  /** The row, or the legacy API's 404. */
  const found = (row: ContactRow | undefined) => {
    if (!row) throw notFound('resource not found');
    return row;
  };
  return {
    'contacts.create': async ({ db, portalId, body }) =>
      profile(db, await contacts.require(db, portalId, await contacts.create(db, portalId, body.properties)), {}),
    'contacts.update': async ({ db, portalId, params, body }) => {
      await contacts.update(db, portalId, params.contact_id, body.properties);
    },
    'contacts.createOrUpdate': ({ db, portalId, params, body }) =>
      contacts.upsertByEmail(db, portalId, params.contact_email, body.properties),
    'contacts.batch': async ({ db, portalId, body }) => {
      await contacts.batch(
        db,
        portalId,
        body.map((i) => ({ vid: i.vid, email: i.email, properties: i.properties })),
      );
      return new Reply(202);
    },
    'contacts.delete': async ({ db, portalId, params }) => {
      await contacts.remove(db, portalId, params.contact_id);
      return { vid: params.contact_id, deleted: true, reason: 'OK' };
    },
    // A page's reads after its rows are two statements (identities, submissions), which run side
    // by side on two pool connections: on one (`reading`) they measured no faster on PostgreSQL.
    'contacts.getAll': async ({ db, portalId, query: { count, vidOffset, ...opts } }) => {
      const { rows, hasMore } = await contacts.page(db, portalId, count, vidOffset);
      return {
        contacts: await contacts.records(db, rows, opts, (r) => r.created_at),
        'has-more': hasMore,
        'vid-offset': rows.at(-1)?.vid ?? vidOffset ?? 0,
      };
    },
    'contacts.getRecentlyUpdated': async ({ db, portalId, query: { count, timeOffset, vidOffset, ...opts } }) =>
      recentPage(
        db,
        await contacts.recent(db, portalId, count, timeOffset, vidOffset),
        opts,
        (r) => r.updated_at,
        timeOffset,
        vidOffset,
      ),
    'contacts.getRecentlyCreated': async ({ db, portalId, query: { count, timeOffset, vidOffset, ...opts } }) =>
      recentPage(
        db,
        await contacts.created(db, portalId, count, timeOffset, vidOffset),
        opts,
        (r) => r.created_at,
        timeOffset,
        vidOffset,
      ),
    // A profile's or a batch's reads on one connection (`reading`; PostgreSQL: the reads a step
    // issues together go in one write and one round trip, not one pool connection each: a batch
    // of 100 made hundreds of statements, each its own write).
    'contacts.getByVid': ({ db, portalId, params, query }) =>
      reading(db, async (r) => profile(r, await contacts.require(r, portalId, params.contact_id), query)),
    'contacts.getByEmail': ({ db, portalId, params, query }) =>
      reading(db, async (r) => profile(r, found(await contacts.getByEmail(r, portalId, params.contact_email)), query)),
    'contacts.getByUtk': ({ db, portalId, params, query }) =>
      reading(db, async (r) => profile(r, found(await contacts.getByUtk(r, portalId, params.contact_utk)), query)),
    // The path's list is vids or email addresses (the catalog tells them apart); `vid`s in the
    // query add to it either way. Keyed by vid alike.
    'contacts.getBatchByVids': ({ db, portalId, params: { contact_ids }, query: { vid, ...query } }) =>
      reading(db, (r) =>
        keyed(
          r,
          [...byVid(r, portalId, [...contact_ids.vids, ...vid]), ...byEmail(r, portalId, contact_ids.emails)],
          query,
        ),
      ),
    'contacts.getBatchByEmails': ({ db, portalId, params, query: { email, ...query } }) =>
      reading(db, (r) => keyed(r, byEmail(r, portalId, [...params.contact_emails, ...email]), query)),
    'contacts.getBatchByUtks': ({ db, portalId, params, query: { utk, ...query } }) =>
      reading(db, (r) => keyed(r, byUtk(r, portalId, [...params.contact_utk, ...utk]), query)),
    'contacts.getBatchByVidsQuery': ({ db, portalId, query: { vid, ...query } }) =>
      reading(db, (r) => keyed(r, byVid(r, portalId, vid), query)),
    'contacts.getBatchByEmailsQuery': ({ db, portalId, query: { email, ...query } }) =>
      reading(db, (r) => keyed(r, byEmail(r, portalId, email), query)),
    'contacts.getBatchByUtksQuery': ({ db, portalId, query: { utk, ...query } }) =>
      reading(db, (r) => keyed(r, byUtk(r, portalId, utk), query)),
    'contacts.search': async ({ db, portalId, query: { q, count, offset = 0, property, sort, order } }) => {
      const { rows, total } = await contacts.search(
        db,
        portalId,
        q,
        count,
        offset,
        sort ? { property: sort, order } : undefined,
      );
      return {
        query: q,
        offset: offset + rows.length,
        'has-more': offset + rows.length < total,
        total,
        contacts: await contacts.records(db, rows, { property }, (r) => r.created_at),
      };
    },
    'contacts.statistics': ({ db, portalId }) => contacts.statistics(db, portalId),
  };
}
