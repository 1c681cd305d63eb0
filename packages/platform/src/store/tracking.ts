/** Page views and custom events (from the collector and the HTTP events API): stored once per
 * event id, attributed to the contact their visitor token is linked to, and summed into the
 * contact's analytics properties. Events of a visitor not yet known are attributed when their
 * token gets linked (identify, form submission). Custom events need an Enterprise portal. */
import { type Db, transaction } from '../db/open';
import { PlatformError } from '../domain/errors';
import type { ContactStore, Write } from './contacts';
import { ANALYTICS } from './default-properties';
import type { PortalStore } from './portals';
import type { PropertyStore } from './properties';
import { isEmail } from './properties';

export interface TrackedEvent {
  /** Deduplication key. */
  eid: string;
  portalId: number;
  kind: 1 | 3;
  utk?: string;
  timestamp: number;
  /** Page URL (page views). */
  url?: string;
  /** Custom event id or name, and value. */
  name?: string;
  value?: number;
  /** `identify` data or contact properties sent with the event; `email` identifies. */
  contact?: Record<string, string>;
  /** The event as received, kept for the inspector. */
  raw: object;
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

export function trackingStore(db: Db, portals: PortalStore, contacts: ContactStore, properties: PropertyStore, now: () => number) {
  const q = {
    insert: db.prepare<[string, number, number, string, number | null, number, number, string]>(
      'INSERT OR IGNORE INTO tracking_events (eid, portal_id, kind, utk, vid, timestamp, received_at, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    linked: db.prepare<[number, string], { vid: number }>('SELECT vid FROM utks WHERE portal_id = ? AND utk = ?'),
    totals: db.prepare<[{ portal: number; utk: string }], Totals>(
      `SELECT sum(kind = 1) AS views, sum(kind = 3) AS events,
              coalesce(sum(CASE WHEN kind = 3 THEN json_extract(data, '$.m') END), 0) AS revenue,
              min(timestamp) AS first_at, max(timestamp) AS last_at,
              (SELECT json_extract(data, '$.pu') FROM tracking_events WHERE portal_id = @portal AND utk = @utk AND vid IS NULL AND kind = 1 ORDER BY timestamp LIMIT 1) AS first_url,
              (SELECT json_extract(data, '$.pu') FROM tracking_events WHERE portal_id = @portal AND utk = @utk AND vid IS NULL AND kind = 1 ORDER BY timestamp DESC LIMIT 1) AS last_url
       FROM tracking_events WHERE portal_id = @portal AND utk = @utk AND vid IS NULL`,
    ),
    claim: db.prepare<[number, number, string]>('UPDATE tracking_events SET vid = ? WHERE portal_id = ? AND utk = ? AND vid IS NULL'),
    own: db.prepare<[number, number, string, string]>('UPDATE tracking_events SET vid = ? WHERE portal_id = ? AND utk = ? AND eid = ?'),
  };

  /** Inside `batch`: totals per contact, written once at its end (a tracker batch is usually
   * ten events of one visitor: one contact update instead of ten). */
  let pending: Map<number, { portalId: number; totals: Totals; source: string }> | undefined;

  /** Adds `t` to the contact's analytics properties (at the end of the batch, inside one). */
  function addTotals(portalId: number, vid: number, t: Totals, source: string) {
    if (!pending) return applyTotals(portalId, vid, t, source);
    const before = pending.get(vid);
    pending.set(vid, { portalId, totals: before ? merge(before.totals, t) : t, source: before?.source ?? source });
  }

  function applyTotals(portalId: number, vid: number, t: Totals, source: string) {
    const row = contacts.get(portalId, vid);
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
    contacts.update(portalId, vid, writes, { type: 'ANALYTICS', id: source }, true);
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

  /** The valid contact property writes among `values` (identify data must not fail the event). */
  const validWrites = (portalId: number, values: Record<string, string>) =>
    Object.entries(values)
      .filter(([name]) => name != 'email')
      .map(([property, value]) => ({ property, value }))
      .filter((w) => !properties.validate(portalId, [w]).length);


  return {
    /** Whether the portal exists and may receive this kind of event: throws 404/403 otherwise. */
    check(portalId: number, kind: 1 | 3) {
      const tier = portals.tier(portalId);
      if (!tier) throw new PlatformError('not-found', `unknown portal ${portalId}`);
      if (kind == 3 && tier != 'enterprise')
        throw new PlatformError('forbidden', `Custom events need an Enterprise portal; portal ${portalId} is ${tier}.`, { category: 'TIER_REQUIRED' });
    },

    /** Runs `fn` (which records events) with analytics totals written once per contact at its end. */
    batch<T>(fn: () => T): T {
      if (pending) return fn();
      pending = new Map();
      try {
        const result = fn();
        for (const [vid, p] of pending) applyTotals(p.portalId, vid, p.totals, p.source);
        return result;
      } finally {
        pending = undefined;
      }
    },

    /** Stores the event once; false when its id was seen before. */
    record: transaction(db, (e: TrackedEvent): boolean => {
      const linked = e.utk ? q.linked.get(e.portalId, e.utk)?.vid : undefined;
      const inserted = q.insert.run(e.eid, e.portalId, e.kind, e.utk ?? '', linked ?? null, e.timestamp, now(), JSON.stringify(e.raw));
      if (!inserted.changes) return false;
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
      const email = e.contact?.email;
      if (email && isEmail(email)) {
        const writes = validWrites(e.portalId, e.contact!);
        const { vid } = contacts.upsertByEmail(e.portalId, email, writes, { type: 'ANALYTICS', id: e.eid });
        if (e.utk && !linked) {
          // A new visitor identified: linking attributes this event and the earlier ones.
          contacts.linkUtk(e.portalId, e.utk, vid);
          return true;
        }
        if (vid != linked) {
          q.own.run(vid, e.portalId, e.utk ?? '', e.eid);
          if (e.utk) contacts.linkUtk(e.portalId, e.utk, vid);
        }
        addTotals(e.portalId, vid, single, e.eid);
      } else if (linked) {
        if (e.contact) contacts.update(e.portalId, linked, validWrites(e.portalId, e.contact), { type: 'ANALYTICS', id: e.eid });
        addTotals(e.portalId, linked, single, e.eid);
      }
      return true;
    }),

    /** A visitor token was linked to a contact: its unattributed events now count for the contact. */
    attribute(portalId: number, utk: string, vid: number) {
      const totals = q.totals.get({ portal: portalId, utk });
      if (!totals?.views && !totals?.events) return;
      q.claim.run(vid, portalId, utk);
      addTotals(portalId, vid, totals, `utk:${utk}`);
    },
  };
}

export type TrackingStore = ReturnType<typeof trackingStore>;
