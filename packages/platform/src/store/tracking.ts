/** Page views and custom events as stored: once per event id and visitor, with the contact they
 * count for, and summed into that contact's analytics properties. Storage only: which events come
 * in, who they identify and when a visitor is linked is decided by services/tracking-intake.ts and
 * services/visitor-links.ts. */
import { type Queryable, sql } from '../db/engine';
import { txContext } from '../db/tx-context';
import type { ContactStore, Write } from './contacts';
import { ANALYTICS } from './default-properties';

/** Where an event came from: the tracker (collector), or the HTTP events API by GET or POST. */
export type EventSource = 'tracker' | 'events-get' | 'events-post';

export interface TrackedEvent {
  /** Deduplication key (per visitor). */
  eid: string;
  portalId: number;
  /** 1 page view, 3 custom event. */
  kind: 1 | 3;
  utk?: string;
  timestamp: number;
  source: EventSource;
  /** Page URL and title (page views). */
  url?: string;
  title?: string;
  /** Custom event id or name, and value. */
  name?: string;
  value?: number;
  /** The caller's own id of the event (the events API). */
  externalId?: string;
  /** `identify` data or contact properties sent with the event; `email` identifies. */
  contact?: Record<string, string>;
  /** The event as it arrived (the wire event, or the events API's query or body): kept for
   * audits, and the only place a custom event's properties and a page view's referrer are kept
   * (store/event-occurrences.ts reads them for the timeline). */
  received: object;
}

interface Totals {
  views: number;
  events: number;
  revenue: number;
  first_at: number | null;
  last_at: number | null;
  first_url: string | null;
  last_url: string | null;
}

export function trackingStore(contacts: ContactStore, now: () => number) {
  const q = {
    insert: sql<[string, number, number, string, number | null, number, number, string, string, string | null, string | null, string | null, number | null, string | null]>(
      `INSERT INTO tracking_events (eid, portal_id, kind, utk, vid, timestamp, received_at, data, source, url, title, event_name, value, external_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    ),
    linked: sql<[number, string], { vid: number }>('SELECT vid FROM utks WHERE portal_id = ? AND utk = ?'),
    totals: sql<[number, string, number, string, number, string], Totals>(
      `SELECT sum(CASE WHEN kind = 1 THEN 1 ELSE 0 END) AS views, sum(CASE WHEN kind = 3 THEN 1 ELSE 0 END) AS events,
              coalesce(sum(CASE WHEN kind = 3 THEN value END), 0) AS revenue,
              min(timestamp) AS first_at, max(timestamp) AS last_at,
              (SELECT url FROM tracking_events WHERE portal_id = ? AND utk = ? AND vid IS NULL AND kind = 1 ORDER BY timestamp LIMIT 1) AS first_url,
              (SELECT url FROM tracking_events WHERE portal_id = ? AND utk = ? AND vid IS NULL AND kind = 1 ORDER BY timestamp DESC LIMIT 1) AS last_url
       FROM tracking_events WHERE portal_id = ? AND utk = ? AND vid IS NULL`,
    ),
    claim: sql<[number, number, string]>('UPDATE tracking_events SET vid = ? WHERE portal_id = ? AND utk = ? AND vid IS NULL'),
    own: sql<[number, number, string, string]>('UPDATE tracking_events SET vid = ? WHERE portal_id = ? AND utk = ? AND eid = ?'),
  };

  /** Inside `batch`: totals per contact, written once at its end (a tracker batch is usually
   * ten events of one visitor: one contact update instead of ten). */
  const batches = txContext<Map<number, { portalId: number; totals: Totals; source: string }>>();

  async function addTotals(db: Queryable, portalId: number, vid: number, t: Totals, source: string) {
    const pending = batches.of(db);
    if (!pending) return applyTotals(db, portalId, vid, t, source);
    const before = pending.get(vid);
    pending.set(vid, { portalId, totals: before ? merge(before.totals, t) : t, source: before?.source ?? source });
  }

  async function applyTotals(db: Queryable, portalId: number, vid: number, t: Totals, source: string) {
    const row = await contacts.getToWrite(db, portalId, vid);
    if (!row || !(t.views || t.events)) return;
    const p: Record<string, string> = JSON.parse(row.properties);
    const n = (name: string) => Number(p[name] ?? 0);
    const writes: Write[] = [];
    const set = (property: string, value: unknown) => value != null && writes.push({ property, value: String(value) });
    if (t.views) {
      set(ANALYTICS.pageViews, n(ANALYTICS.pageViews) + t.views);
      if (!p[ANALYTICS.firstUrl] || t.first_at! < n(ANALYTICS.firstVisit)) set(ANALYTICS.firstUrl, t.first_url);
      if (t.last_at! >= n(ANALYTICS.lastVisit)) set(ANALYTICS.lastUrl, t.last_url);
    }
    if (t.events) {
      set(ANALYTICS.eventCompletions, n(ANALYTICS.eventCompletions) + t.events);
      if (t.revenue) set(ANALYTICS.revenue, n(ANALYTICS.revenue) + t.revenue);
    }
    if (!p[ANALYTICS.firstVisit] || t.first_at! < n(ANALYTICS.firstVisit)) set(ANALYTICS.firstVisit, t.first_at);
    if (t.last_at! > n(ANALYTICS.lastVisit)) set(ANALYTICS.lastVisit, t.last_at);
    await contacts.update(db, portalId, vid, writes, { type: 'ANALYTICS', id: source }, true);
  }

  /** `a` and `b` summed; the first and last URL from whichever saw them first and last. */
  function merge(a: Totals, b: Totals): Totals {
    const earlier = b.first_url != null && (a.first_url == null || b.first_at! < a.first_at!) ? b : a;
    const later = b.last_url != null && (a.last_url == null || b.last_at! >= a.last_at!) ? b : a;
    return {
      views: a.views + b.views,
      events: a.events + b.events,
      revenue: a.revenue + b.revenue,
      first_at: Math.min(a.first_at ?? Infinity, b.first_at ?? Infinity),
      last_at: Math.max(a.last_at ?? -Infinity, b.last_at ?? -Infinity),
      first_url: earlier.first_url,
      last_url: later.last_url,
    };
  }

  return {
    /** Runs `fn` (which stores events through the handle it is given) with analytics totals
     * written once per contact at its end. */
    async batch<T>(db: Queryable, fn: (db: Queryable) => Promise<T>): Promise<T> {
      if (batches.of(db)) return fn(db);
      const pending = new Map<number, { portalId: number; totals: Totals; source: string }>();
      const result = await fn(batches.bind(db, pending));
      for (const [vid, p] of pending) await applyTotals(db, p.portalId, vid, p.totals, p.source);
      return result;
    },

    /** The contact a visitor token is linked to, if any. */
    linkedVid: async (db: Queryable, portalId: number, utk: string): Promise<number | undefined> => (await db.get(q.linked, portalId, utk))?.vid,

    /** Stores the event for contact `vid` (or none yet); false when its id was seen before. */
    async insert(db: Queryable, e: TrackedEvent, vid: number | undefined): Promise<boolean> {
      const changed = await db.run(q.insert, e.eid, e.portalId, e.kind, e.utk ?? '', vid ?? null, e.timestamp, now(), JSON.stringify(e.received), e.source,
        e.url ?? null, e.title ?? null, e.name ?? null, e.value ?? null, e.externalId ?? null);
      return changed > 0;
    },

    /** The stored event counts for contact `vid` from now on. */
    own: async (db: Queryable, vid: number, e: TrackedEvent) => void (await db.run(q.own, vid, e.portalId, e.utk ?? '', e.eid)),

    /** Adds one event to the contact's analytics properties (once per contact at the end of a batch). */
    count(db: Queryable, vid: number, e: TrackedEvent) {
      const single: Totals = {
        views: +(e.kind == 1),
        events: +(e.kind == 3),
        revenue: e.value ?? 0,
        first_at: e.timestamp,
        last_at: e.timestamp,
        // Like the totals query: only page views have URLs that count.
        first_url: e.kind == 1 ? (e.url ?? null) : null,
        last_url: e.kind == 1 ? (e.url ?? null) : null,
      };
      return addTotals(db, e.portalId, vid, single, e.eid);
    },

    /** A visitor token was linked to a contact: its unattributed events now count for the contact. */
    async attribute(db: Queryable, portalId: number, utk: string, vid: number) {
      const totals = await db.get(q.totals, portalId, utk, portalId, utk, portalId, utk);
      if (!totals?.views && !totals?.events) return;
      await db.run(q.claim, vid, portalId, utk);
      await addTotals(db, portalId, vid, totals, `utk:${utk}`);
    },
  };
}

export type TrackingStore = ReturnType<typeof trackingStore>;
