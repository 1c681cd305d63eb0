/** Page views and custom events as stored: once per event id and visitor, with the contact they
 * count for, and summed into that contact's analytics properties. Storage only: which events come
 * in, who they identify and when a visitor is linked is decided by services/tracking-intake.ts and
 * services/visitor-links.ts. */
import { type Engine, perRow, type Queryable, sql } from '../db/engine';
import { eachOrAll, pair, pick } from '../db/statements';
import { readVersionsAhead } from '../db/shared-cache';
import { txContext } from '../db/tx-context';
import type { ContactStore } from './contacts';
import { type Totals, merge, totalsWrites, visitTotals } from './analytics-totals';
import { VISITOR_ROW, visitorRows, type SessionSummary, type VisitorKey } from './sessions';

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
  /** Page URL, title and referrer (page views). */
  url?: string;
  title?: string;
  referrer?: string;
  /** Custom event id or name, and value. */
  name?: string;
  value?: number;
  /** The caller's own id of the event (the events API). */
  externalId?: string;
  /** `identify` data or contact properties sent with the event; `email` identifies. */
  contact?: Record<string, string>;
  /** The event as it arrived (the wire event, or the events API's query or body): stored but for
   * what the row's columns hold (`storedData`), the only place a custom event's properties and a
   * page view's referrer are kept (store/event-occurrences.ts reads them for the timeline). */
  received: object;
}

/** The wire fields of a tracker event that its row's columns hold (fromWire). */
const IN_COLUMNS = new Set(['eid', 'a', 'k', 'vi', 'cts', 'pu', 't', 'n', 'm']);

/** The `data` an event is stored with: what arrived beyond its row's columns. A tracker event's
 * other wire fields (its `_` properties, referrer, path, identify data, protocol version, and its
 * browser's time when the event is not dated by it): about half of a page view's bytes, written
 * again by every checkpoint, are in the columns already. An events API call's parameters, whole. */
export function storedData(e: TrackedEvent): string {
  if (e.source != 'tracker') return JSON.stringify(e.received);
  const rest: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(e.received)) if (!IN_COLUMNS.has(field)) rest[field] = value;
  // The browser's time when the event is not dated by it (services/tracking-intake.ts eventTime).
  const { cts } = e.received as { cts?: string };
  if (Number(cts) !== e.timestamp) rest.cts = cts;
  return JSON.stringify(rest);
}

/** A page view's effect on its visitor's sessions (services/sessions.ts). */
export interface VisitOfEvent {
  at: number;
  started?: SessionSummary;
  referrer: string | null;
  /** Whether it is its visitor's first page view in its UTC hour and in its UTC day. */
  firstIn: { hour: boolean; day: boolean };
}

/** The columns an event is stored with, in a JSON row (insertAll on PostgreSQL). */
const EVENT_ROW = {
  eid: 'text',
  portal_id: 'integer',
  kind: 'integer',
  utk: 'text',
  vid: 'integer',
  timestamp: 'integer',
  received_at: 'integer',
  data: 'text',
  source: 'text',
  url: 'text',
  title: 'text',
  event_name: 'text',
  value: 'real',
  external_id: 'text',
} as const;

export function trackingStore(engine: Engine, contacts: ContactStore, now: () => number) {
  const q = {
    // PostgreSQL: a batch's events in one statement (one round trip), the stored ones returned.
    insertAll: sql<[string], { portal_id: number; utk: string; eid: string }>(
      `INSERT INTO tracking_events (${Object.keys(EVENT_ROW).join(', ')})
       SELECT ${Object.keys(EVENT_ROW).join(', ')} FROM (${engine.dialect.jsonRows('?', EVENT_ROW)}) AS x
       ON CONFLICT DO NOTHING RETURNING portal_id, utk, eid`,
    ),
    insert: sql<
      [
        string,
        number,
        number,
        string,
        number | null,
        number,
        number,
        string,
        string,
        string | null,
        string | null,
        string | null,
        number | null,
        string | null,
      ]
    >(
      `INSERT INTO tracking_events (eid, portal_id, kind, utk, vid, timestamp, received_at, data, source, url, title, event_name, value, external_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    ),
    linked: sql<[number, string], { vid: number }>('SELECT vid FROM utks WHERE portal_id = ? AND utk = ?'),
    // PostgreSQL: many visitors' links in one statement.
    linkedAll: sql<[string], VisitorKey & { vid: number }>(
      `SELECT x.portal_id, x.utk, x.vid ${perRow(engine.dialect.jsonRows('?', VISITOR_ROW), 'SELECT portal_id, utk, vid FROM utks WHERE portal_id = r.portal_id AND utk = r.utk LIMIT 1')}`,
    ),
    // `+vid`: not the vid index, which the first and last URL's ORDER BY timestamp would pick
    // (vid, timestamp) and then walk every anonymous event of every visitor; the visitor's own
    // events are few.
    totals: sql<[number, string, number, string, number, string], Totals>(
      `SELECT sum(CASE WHEN kind = 1 THEN 1 ELSE 0 END) AS views, sum(CASE WHEN kind = 3 THEN 1 ELSE 0 END) AS events,
              coalesce(sum(CASE WHEN kind = 3 THEN value END), 0) AS revenue,
              min(timestamp) AS first_at, max(timestamp) AS last_at,
              (SELECT url FROM tracking_events WHERE portal_id = ? AND utk = ? AND +vid IS NULL AND kind = 1 ORDER BY timestamp LIMIT 1) AS first_url,
              (SELECT url FROM tracking_events WHERE portal_id = ? AND utk = ? AND +vid IS NULL AND kind = 1 ORDER BY timestamp DESC LIMIT 1) AS last_url
       FROM tracking_events WHERE portal_id = ? AND utk = ? AND vid IS NULL`,
    ),
    claim: sql<[number, number, string]>(
      'UPDATE tracking_events SET vid = ? WHERE portal_id = ? AND utk = ? AND vid IS NULL',
    ),
    unflushed: sql('SET LOCAL synchronous_commit TO OFF'),
    own: sql<[number, number, string, string]>(
      'UPDATE tracking_events SET vid = ? WHERE portal_id = ? AND utk = ? AND eid = ?',
    ),
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

  function applyTotals(db: Queryable, portalId: number, vid: number, t: Totals, source: string) {
    if (!(t.views || t.events)) return;
    return contacts.updateFromAll(db, portalId, [
      { vid, compute: (p) => totalsWrites(p, t), source: { type: 'ANALYTICS', id: source } },
    ]);
  }

  /** The totals of a batch's contacts, portal by portal, each portal's contacts in one write. */
  async function applyAll(db: Queryable, pending: Map<number, { portalId: number; totals: Totals; source: string }>) {
    const byPortal = new Map<number, Parameters<ContactStore['updateFromAll']>[2]>();
    for (const [vid, { portalId, totals, source }] of pending) {
      if (!(totals.views || totals.events)) continue;
      const items = byPortal.get(portalId) ?? byPortal.set(portalId, []).get(portalId)!;
      items.push({ vid, compute: (p) => totalsWrites(p, totals), source: { type: 'ANALYTICS', id: source } });
    }
    for (const [portalId, items] of byPortal) await contacts.updateFromAll(db, portalId, items);
  }

  /** Stores the event for contact `vid` (or none yet); false when its id was seen before. */
  async function insert(db: Queryable, e: TrackedEvent, vid: number | undefined): Promise<boolean> {
    const changed = await db.run(
      q.insert,
      e.eid,
      e.portalId,
      e.kind,
      e.utk ?? '',
      vid ?? null,
      e.timestamp,
      now(),
      storedData(e),
      e.source,
      e.url ?? null,
      e.title ?? null,
      e.name ?? null,
      e.value ?? null,
      e.externalId ?? null,
    );
    return changed > 0;
  }

  type Linked = VisitorKey & { vid: number };
  type ToStore = { event: TrackedEvent; vid: number | undefined };
  /** What each engine does its own way. */
  const ways = pick(engine, {
    linkedOfAll: eachOrAll<(db: Queryable, visitors: readonly VisitorKey[]) => Promise<Linked[]>>(
      async (db, visitors) => {
        const vids = await Promise.all(visitors.map(async (v) => (await db.get(q.linked, v.portal_id, v.utk))?.vid));
        return visitors.flatMap((v, i) => (vids[i] === undefined ? [] : [{ ...v, vid: vids[i] }]));
      },
      (db, visitors) => db.all(q.linkedAll, visitorRows(visitors)),
    ),
    // SQLite: a statement per event costs less than one over a JSON array, and makes no round trip.
    insertAll: pair<(db: Queryable, events: ToStore[]) => Promise<Set<TrackedEvent>>>({
      async sqlite(db, events) {
        const stored = new Set<TrackedEvent>();
        for (const { event, vid } of events) if (await insert(db, event, vid)) stored.add(event);
        return stored;
      },
      async postgres(db, events) {
        const stored = new Set<TrackedEvent>();
        if (!events.length) return stored;
        const at = now();
        const rows = events.map(({ event: e, vid }) => ({
          eid: e.eid,
          portal_id: e.portalId,
          kind: e.kind,
          utk: e.utk ?? '',
          vid: vid ?? null,
          timestamp: e.timestamp,
          received_at: at,
          data: storedData(e),
          source: e.source,
          url: e.url ?? null,
          title: e.title ?? null,
          event_name: e.name ?? null,
          value: e.value ?? null,
          external_id: e.externalId ?? null,
        }));
        const key = (portalId: number, utk: string, eid: string) => `${portalId} ${utk} ${eid}`;
        const inserted = new Set(
          (await db.all(q.insertAll, JSON.stringify(rows))).map((r) => key(Number(r.portal_id), r.utk, r.eid)),
        );
        // The first event with an id is the one stored; a repeat later in `events` is not.
        for (const { event: e } of events) if (inserted.delete(key(e.portalId, e.utk ?? '', e.eid))) stored.add(e);
        return stored;
      },
    }),
    // SQLite's synchronous=NORMAL gives every commit this guarantee already (see commitUnflushed).
    commitUnflushed: pair<(db: Queryable) => Promise<void>>({
      sqlite: () => Promise.resolve(),
      postgres: (db) => db.send(q.unflushed),
    }),
  });

  return {
    /** Runs `fn` (which stores events through the handle it is given) with analytics totals
     * written once per contact at its end. */
    async batch<T>(db: Queryable, fn: (db: Queryable) => Promise<T>): Promise<T> {
      if (batches.of(db)) return fn(db);
      // What its events read from the shared cache (the portal's settings, property definitions)
      // is checked along with its first statements.
      readVersionsAhead(engine, db);
      const pending = new Map<number, { portalId: number; totals: Totals; source: string }>();
      const result = await fn(batches.bind(db, pending));
      await applyAll(db, pending);
      return result;
    },

    /** The contact a visitor token is linked to, if any. */
    linkedVid: async (db: Queryable, portalId: number, utk: string): Promise<number | undefined> =>
      (await db.get(q.linked, portalId, utk))?.vid,

    /** The contacts `visitors` are linked to (the linked ones only), each by the key. */
    linkedOfAll: ways.linkedOfAll,

    /** Stores the event for contact `vid` (or none yet); false when its id was seen before. */
    insert,

    /** Stores each event for its contact (`vid`), as `insert` one after another would: the ones
     * stored are returned, an id seen before (or earlier in `events`) is not. */
    insertAll: ways.insertAll,

    /** The transaction `db` runs in commits without waiting for the database server's disk
     * flush (PostgreSQL; a few ms a commit here, while the collector's next bulk waits: most of a
     * bulk's time). That is the guarantee SQLite's synchronous=NORMAL gives every write here:
     * what was acknowledged survives the platform's crash (the database has it); only a crash of
     * the database server itself can lose its last fraction of a second (wal_writer_delay). */
    commitUnflushed: ways.commitUnflushed,

    /** The stored event counts for contact `vid` from now on. */
    own: async (db: Queryable, vid: number, e: TrackedEvent) =>
      void (await db.run(q.own, vid, e.portalId, e.utk ?? '', e.eid)),

    /** Adds one event to the contact's analytics properties (once per contact at the end of a
     * batch); `visit`: what a page view did to its visitor's sessions. */
    count(db: Queryable, vid: number, e: TrackedEvent, visit?: VisitOfEvent) {
      const single: Totals = {
        views: +(e.kind == 1),
        events: +(e.kind == 3),
        revenue: e.value ?? 0,
        first_at: e.timestamp,
        last_at: e.timestamp,
        // Like the totals query: only page views have URLs that count.
        first_url: e.kind == 1 ? (e.url ?? null) : null,
        last_url: e.kind == 1 ? (e.url ?? null) : null,
        ...(visit
          ? {
              visits: visitTotals(
                [...(visit.started ? [visit.started] : [])],
                visit.referrer ? [{ at: visit.at, url: visit.referrer }] : [],
              ),
            }
          : {}),
      };
      return addTotals(db, e.portalId, vid, single, e.eid);
    },

    /** A visitor token was linked to a contact: its unattributed events, and the sessions that
     * `claimSessions` claims (those not counted for a contact yet, oldest first), now count for
     * the contact. The two are read at once: one round trip on PostgreSQL, not two. */
    async attribute(
      db: Queryable,
      portalId: number,
      utk: string,
      vid: number,
      claimSessions: () => Promise<SessionSummary[]>,
    ) {
      const [totals, sessions] = await Promise.all([
        db.get(q.totals, portalId, utk, portalId, utk, portalId, utk),
        claimSessions(),
      ]);
      if (!totals?.views && !totals?.events) return;
      await db.run(q.claim, vid, portalId, utk);
      const referrers = sessions.filter((s) => s.referrer).map((s) => ({ at: s.started_at, url: s.referrer! }));
      await addTotals(
        db,
        portalId,
        vid,
        { ...totals, ...(sessions.length ? { visits: visitTotals(sessions, referrers) } : {}) },
        `utk:${utk}`,
      );
    },
  };
}

export type TrackingStore = ReturnType<typeof trackingStore>;
