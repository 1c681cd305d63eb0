/** Paged reads as async iterators, each following its route's own cursor and bounded by
 * `maxItems` / `maxPages`. Pages are fetched one at a time, only when the loop asks for more:
 *   for await (const contact of client.contacts.all({ property: ['email'] }, { maxItems: 500 })) ... */
import type { RouteId } from '@svc/api';
import type { CallOptions } from './call-options';
import type { Api, Input, Output } from './types';

export interface PageBounds extends CallOptions {
  /** Stop after this many items. */
  maxItems?: number;
  /** Stop after this many pages (requests). */
  maxPages?: number;
}

type Cursor = Record<string, string | number>;

/** Fetches pages with `fetch(cursor)` until `next` finds no cursor, a page is empty, or a bound is reached. */
export async function* paged<P, T>(
  fetch: (cursor: Cursor) => Promise<P>,
  items: (p: P) => readonly T[],
  next: (p: P) => Cursor | undefined,
  bounds: PageBounds = {},
) {
  const maxItems = bounds.maxItems ?? Infinity;
  const maxPages = bounds.maxPages ?? Infinity;
  let cursor: Cursor = {};
  let yielded = 0;
  for (let pages = 0; pages < maxPages && yielded < maxItems; pages++) {
    const page = await fetch(cursor);
    const list = items(page);
    for (const item of list) {
      yield item;
      if (++yielded >= maxItems) return;
    }
    const n = next(page);
    // An empty page ends the loop even if the server says there is more: never spin on it.
    if (!n || !list.length) return;
    cursor = n;
  }
}

/** The call options of one page request (the bounds are the iterator's business). */
const callOptions = ({ maxItems: _i, maxPages: _p, ...options }: PageBounds): CallOptions => options;

type Query<K extends RouteId> = Exclude<Input<K>, undefined>;

/** Content API v2 lists share one envelope: `{limit, offset, total, objects}`. */
const CONTENT_AREAS = [
  'blogPosts',
  'comments',
  'blogAuthors',
  'topics',
  'pages',
  'templates',
  'urlMappings',
  'domains',
  'siteMaps',
  'layouts',
  'blogs',
  'files',
  'folders',
] as const;
type ContentArea = (typeof CONTENT_AREAS)[number];
type ContentList<A extends ContentArea> = Extract<RouteId, `content.${A}.list`>;
type ContentItem<A extends ContentArea> = Output<ContentList<A>> extends { objects: readonly (infer T)[] } ? T : never;
interface ContentPage<T> {
  offset: number;
  total?: number;
  total_count: number;
  objects: readonly T[];
}

type Pages<T> = AsyncGenerator<T, void, undefined>;
/** The element type of an array field of a route's answer. */
type Items<K extends RouteId, F extends string> = Output<K> extends { [P in F]: readonly (infer T)[] } ? T : never;

/** The iterators, by area; they join the routes' methods on the client. */
export interface Pagers {
  contacts: {
    all(query?: Query<'contacts.getAll'>, bounds?: PageBounds): Pages<Items<'contacts.getAll', 'contacts'>>;
    recent(
      query?: Query<'contacts.getRecentlyUpdated'>,
      bounds?: PageBounds,
    ): Pages<Items<'contacts.getRecentlyUpdated', 'contacts'>>;
    created(
      query?: Query<'contacts.getRecentlyCreated'>,
      bounds?: PageBounds,
    ): Pages<Items<'contacts.getRecentlyCreated', 'contacts'>>;
    searchAll(query: Query<'contacts.search'>, bounds?: PageBounds): Pages<Items<'contacts.search', 'contacts'>>;
  };
  lists: {
    all(query?: Query<'lists.list'>, bounds?: PageBounds): Pages<Items<'lists.list', 'lists'>>;
    allStatic(query?: Query<'lists.listStatic'>, bounds?: PageBounds): Pages<Items<'lists.listStatic', 'lists'>>;
    allDynamic(query?: Query<'lists.listDynamic'>, bounds?: PageBounds): Pages<Items<'lists.listDynamic', 'lists'>>;
    contacts(
      listId: string | number,
      query?: Query<'lists.getContacts'>,
      bounds?: PageBounds,
    ): Pages<Items<'lists.getContacts', 'contacts'>>;
    recentContacts(
      listId: string | number,
      query?: Query<'lists.getRecentContacts'>,
      bounds?: PageBounds,
    ): Pages<Items<'lists.getRecentContacts', 'contacts'>>;
  };
  email: {
    campaigns(
      query?: Query<'email.listCampaigns'>,
      bounds?: PageBounds,
    ): Pages<Items<'email.listCampaigns', 'campaigns'>>;
    events(
      campaignId: string | number,
      query?: Query<'email.campaignEvents'>,
      bounds?: PageBounds,
    ): Pages<Items<'email.campaignEvents', 'events'>>;
  };
  events: {
    /** A contact's events (its timeline), `events.list` page after page. */
    all(query: Query<'events.list'>, bounds?: PageBounds): Pages<Items<'events.list', 'results'>>;
  };
  prospects: {
    timelineAll(
      query?: Query<'prospects.timeline'>,
      bounds?: PageBounds,
    ): Pages<Items<'prospects.timeline', 'prospects'>>;
  };
  content: { [A in ContentArea]: { all(query?: Query<ContentList<A>>, bounds?: PageBounds): Pages<ContentItem<A>> } };
}

export function pagers(api: Api): Pagers {
  /** Contacts pages: `vidOffset` (and `timeOffset` for recent changes) until `has-more` is false. */
  const contactCursor = (p: { 'has-more': boolean; 'vid-offset': number; 'time-offset'?: number }) =>
    p['has-more']
      ? { vidOffset: p['vid-offset'], ...(p['time-offset'] === undefined ? {} : { timeOffset: p['time-offset'] }) }
      : undefined;
  const offsetCursor = (p: { 'has-more': boolean; offset: number }) =>
    p['has-more'] ? { offset: p.offset } : undefined;

  /** Content API v2 lists: `offset` moves by the page's length until `total` is reached. */
  const content = <A extends ContentArea>(area: A) => ({
    all: (query: object = {}, b: PageBounds = {}) => {
      const list = api.content[area].list as unknown as (
        q: object,
        o: CallOptions,
      ) => Promise<ContentPage<ContentItem<A>>>;
      return paged(
        (c) => list({ limit: 100, ...query, ...c }, callOptions(b)),
        (p) => p.objects,
        (p) =>
          p.offset + p.objects.length < (p.total ?? p.total_count)
            ? { offset: p.offset + p.objects.length }
            : undefined,
        b,
      );
    },
  });

  return {
    contacts: {
      /** Every contact, oldest first. */
      all: (query: Query<'contacts.getAll'> = {}, b: PageBounds = {}) =>
        paged(
          (c) => api.contacts.getAll({ count: 100, ...query, ...c }, callOptions(b)),
          (p) => p.contacts,
          contactCursor,
          b,
        ),
      /** Recently created or updated contacts, newest first. */
      recent: (query: Query<'contacts.getRecentlyUpdated'> = {}, b: PageBounds = {}) =>
        paged(
          (c) => api.contacts.getRecentlyUpdated({ count: 100, ...query, ...c }, callOptions(b)),
          (p) => p.contacts,
          contactCursor,
          b,
        ),
      /** Contacts by creation, newest first. */
      created: (query: Query<'contacts.getRecentlyCreated'> = {}, b: PageBounds = {}) =>
        paged(
          (c) => api.contacts.getRecentlyCreated({ count: 100, ...query, ...c }, callOptions(b)),
          (p) => p.contacts,
          contactCursor,
          b,
        ),
      /** Every match of a search. */
      searchAll: (query: Query<'contacts.search'>, b: PageBounds = {}) =>
        paged(
          (c) => api.contacts.search({ count: 100, ...query, ...c }, callOptions(b)),
          (p) => p.contacts,
          offsetCursor,
          b,
        ),
    },
    lists: {
      all: (query: Query<'lists.list'> = {}, b: PageBounds = {}) =>
        paged(
          (c) => api.lists.list({ count: 250, ...query, ...c }, callOptions(b)),
          (p) => p.lists,
          offsetCursor,
          b,
        ),
      allStatic: (query: Query<'lists.listStatic'> = {}, b: PageBounds = {}) =>
        paged(
          (c) => api.lists.listStatic({ count: 250, ...query, ...c }, callOptions(b)),
          (p) => p.lists,
          offsetCursor,
          b,
        ),
      allDynamic: (query: Query<'lists.listDynamic'> = {}, b: PageBounds = {}) =>
        paged(
          (c) => api.lists.listDynamic({ count: 250, ...query, ...c }, callOptions(b)),
          (p) => p.lists,
          offsetCursor,
          b,
        ),
      /** Every member of a list. */
      contacts: (listId: string | number, query: Query<'lists.getContacts'> = {}, b: PageBounds = {}) =>
        paged(
          (c) => api.lists.getContacts(listId, { count: 100, ...query, ...c }, callOptions(b)),
          (p) => p.contacts,
          contactCursor,
          b,
        ),
      /** Members added to a list recently, newest first. */
      recentContacts: (listId: string | number, query: Query<'lists.getRecentContacts'> = {}, b: PageBounds = {}) =>
        paged(
          (c) => api.lists.getRecentContacts(listId, { count: 100, ...query, ...c }, callOptions(b)),
          (p) => p.contacts,
          contactCursor,
          b,
        ),
    },
    email: {
      campaigns: (query: Query<'email.listCampaigns'> = {}, b: PageBounds = {}) =>
        paged(
          (c) => api.email.listCampaigns({ ...query, ...c }, callOptions(b)),
          (p) => p.campaigns,
          (p) => (p.hasMore && p.offset ? { offset: p.offset } : undefined),
          b,
        ),
      events: (campaignId: string | number, query: Query<'email.campaignEvents'> = {}, b: PageBounds = {}) =>
        paged(
          (c) => api.email.campaignEvents(campaignId, { ...query, ...c }, callOptions(b)),
          (p) => p.events,
          (p) => (p.hasMore && p.offset ? { offset: p.offset } : undefined),
          b,
        ),
    },
    events: {
      all: (query: Query<'events.list'>, b: PageBounds = {}) =>
        paged(
          (c) => api.events.list({ ...query, ...c }, callOptions(b)),
          (p) => p.results,
          (p) => (p.paging ? { after: p.paging.next.after } : undefined),
          b,
        ),
    },
    prospects: {
      timelineAll: (query: Query<'prospects.timeline'> = {}, b: PageBounds = {}) =>
        paged(
          (c) => api.prospects.timeline({ ...query, ...c }, callOptions(b)),
          (p) => p.prospects,
          (p) =>
            p['has-more'] && p.timeOffset != null && p.orgOffset != null
              ? { timeOffset: p.timeOffset, orgOffset: p.orgOffset }
              : undefined,
          b,
        ),
    },
    content: Object.fromEntries(CONTENT_AREAS.map((a) => [a, content(a)])) as Pagers['content'],
  };
}
