/** Paged reads as async iterators, each following its route's own cursor, bounded by
 * `maxItems` / `maxPages`:
 *   for await (const contact of client.contacts.all({ property: ['email'] }, { maxItems: 500 })) ... */
import type { Catalog } from '@svc/api';
import type { z } from 'zod';
import type { CallOptions } from './request';
import type { Api, Output, QueryInput } from './types';

export interface PageBounds extends CallOptions {
  maxItems?: number;
  maxPages?: number;
}

type Query<K extends keyof Catalog> = QueryInput<z.input<Catalog[K]['query']>>;
type Item<K extends keyof Catalog, F extends keyof Output<Catalog[K]>> = Output<Catalog[K]>[F] extends (infer T)[] ? T : never;

/** Fetches pages with `fetch(cursor)` until `next` says there is none or a bound is reached. */
async function* paged<P, T>(fetch: (cursor: Record<string, unknown>) => Promise<P>, items: (p: P) => T[], next: (p: P) => Record<string, unknown> | undefined, bounds: PageBounds = {}) {
  let cursor: Record<string, unknown> = {};
  let yielded = 0;
  for (let pages = 0; pages < (bounds.maxPages ?? Infinity); pages++) {
    const page = await fetch(cursor);
    for (const item of items(page)) {
      if (yielded++ >= (bounds.maxItems ?? Infinity)) return;
      yield item;
    }
    const n = next(page);
    if (!n) return;
    cursor = n;
  }
}

export function pagers(api: Api) {
  const opts = (b: PageBounds): CallOptions => ({ signal: b.signal, timeoutMs: b.timeoutMs });
  return {
    contacts: {
      all: (query: Query<'contacts.getAll'> = {}, b: PageBounds = {}) =>
        paged(
          (c) => api.contacts.getAll({ count: 100, ...query, ...c }, opts(b)),
          (p) => p.contacts as Item<'contacts.getAll', 'contacts'>[],
          (p) => (p['has-more'] ? { vidOffset: String(p['vid-offset']) } : undefined),
          b,
        ),
      recent: (query: Query<'contacts.getRecentlyUpdated'> = {}, b: PageBounds = {}) =>
        paged(
          (c) => api.contacts.getRecentlyUpdated({ count: 100, ...query, ...c }, opts(b)),
          (p) => p.contacts as Item<'contacts.getRecentlyUpdated', 'contacts'>[],
          (p) => (p['has-more'] ? { vidOffset: String(p['vid-offset']), timeOffset: String(p['time-offset']) } : undefined),
          b,
        ),
      searchAll: (query: Query<'contacts.search'>, b: PageBounds = {}) =>
        paged(
          (c) => api.contacts.search({ count: 100, ...query, ...c }, opts(b)),
          (p) => p.contacts as Item<'contacts.search', 'contacts'>[],
          (p) => (p['has-more'] ? { offset: String(p.offset) } : undefined),
          b,
        ),
    },
    lists: {
      all: (query: Query<'lists.list'> = {}, b: PageBounds = {}) =>
        paged(
          (c) => api.lists.list({ count: 250, ...query, ...c }, opts(b)),
          (p) => p.lists as Item<'lists.list', 'lists'>[],
          (p) => (p['has-more'] ? { offset: String(p.offset) } : undefined),
          b,
        ),
      contacts: (listId: string | number, query: Query<'lists.getContacts'> = {}, b: PageBounds = {}) =>
        paged(
          (c) => api.lists.getContacts(listId, { count: 100, ...query, ...c }, opts(b)),
          (p) => p.contacts as Item<'lists.getContacts', 'contacts'>[],
          (p) => (p['has-more'] ? { vidOffset: String(p['vid-offset']) } : undefined),
          b,
        ),
    },
    email: {
      campaigns: (query: Query<'email.listCampaigns'> = {}, b: PageBounds = {}) =>
        paged(
          (c) => api.email.listCampaigns({ ...query, ...c }, opts(b)),
          (p) => p.campaigns as Item<'email.listCampaigns', 'campaigns'>[],
          (p) => (p.hasMore ? { offset: p.offset } : undefined),
          b,
        ),
      events: (campaignId: string | number, query: Query<'email.campaignEvents'> = {}, b: PageBounds = {}) =>
        paged(
          (c) => api.email.campaignEvents(campaignId, { ...query, ...c }, opts(b)),
          (p) => p.events as Item<'email.campaignEvents', 'events'>[],
          (p) => (p.hasMore ? { offset: p.offset } : undefined),
          b,
        ),
    },
  };
}
