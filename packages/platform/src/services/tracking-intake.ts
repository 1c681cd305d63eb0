/** Tracking intake: every page view and custom event (the collector's, the events API's) goes
 * through the same small steps, and any step may drop it with a typed reason:
 *
 *   read      wire event → TrackedEvent            invalid (the protocol's check failed)
 *   admit     the portal exists and may take it    unknown-portal, tier-required
 *   store     once per event id and visitor        duplicate
 *   visit     a page view continues or starts its visitor's session (services/sessions.ts)
 *   identify  an email makes or updates the contact, a new visitor is linked to it
 *   count     the contact's analytics properties, and the dashboard's rollups
 *   notify    page views reach prospects with the visitor's address
 *
 * A batch runs its events in one unit of analytics totals (tracking.batch). */
import { PAGE_VIEW, type WireEvent } from '@svc/protocol';
import { isTransaction, type Queryable } from '../db/engine';
import { PlatformError } from '../domain/errors';
import { SOURCE_TYPES } from '../domain/traffic-sources';
import type { ContactStore } from '../store/contacts';
import { ANALYTICS } from '../store/default-properties';
import type { PortalStore, Tier } from '../store/portals';
import { METRICS, pageKey, type RollupStore, type RollupSums } from '../store/rollups';
import { isEmail, type PropertyStore } from '../store/properties';
import type { VisitorKey } from '../store/sessions';
import type { TrackedEvent, TrackingStore, VisitOfEvent } from '../store/tracking';
import type { VisitSessions } from './sessions';
import type { VisitorLinks } from './visitor-links';

export type DropReason = 'invalid' | 'unknown-portal' | 'tier-required' | 'duplicate';

/** What became of one event. */
export type Intake = { kept: true; event: TrackedEvent } | { kept: false; reason: DropReason; message: string };

const drop = (reason: DropReason, message: string): Intake => ({ kept: false, reason, message });

/** An event's visitor, as the keys of a batch's maps name it. */
const visitorOf = (e: TrackedEvent) => `${e.portalId} ${e.utk}`;

/** The error a refused event answers with; none when it was kept or is a repeat (accepted again). */
export function refusalOf(outcome: Intake): PlatformError | undefined {
  if (outcome.kept || outcome.reason == 'duplicate') return undefined;
  if (outcome.reason == 'tier-required')
    return new PlatformError('forbidden', outcome.message, { category: 'TIER_REQUIRED' });
  return new PlatformError(outcome.reason == 'unknown-portal' ? 'not-found' : 'invalid', outcome.message);
}

/** How far back a tracker event may be dated: the tracker keeps unsent events 7 days by its clock
 * (tracker/src/transport.ts), and a day more allows for clocks. */
export const OLDEST_EVENT_MS = 8 * 86_400_000;

/** When a tracker event happened as far as the server believes its browser's clock (`cts`): never
 * after it arrived (a clock ahead, or a made-up date that would keep a visitor "live" for good),
 * nor before the tracker would have kept it (a clock far behind, or made up); such an event
 * counts from when it arrived. */
export const eventTime = (cts: number, received: number) =>
  cts > received || cts < received - OLDEST_EVENT_MS ? received : cts;

/** A checked wire event as the platform keeps it: named fields, the wire event as received. */
export function fromWire(w: WireEvent): TrackedEvent {
  return {
    eid: w.eid,
    portalId: Number(w.a),
    kind: w.k == PAGE_VIEW ? 1 : 3,
    utk: w.vi,
    timestamp: Number(w.cts),
    source: 'tracker',
    url: w.pu,
    title: w.t,
    referrer: w.r,
    name: w.n,
    value: w.m === undefined ? undefined : Number(w.m),
    contact: w.i ? Object.fromEntries(new URLSearchParams(w.i)) : undefined,
    received: w,
  };
}

/** Told of each new page view with the visitor's address (prospects map addresses to organisations),
 * and where the intake runs (its caller's transaction): what it writes is part of the event's. It
 * returns what to wait for, if anything (most page views come from no known organisation). */
export type PageViewListener = (db: Queryable, event: TrackedEvent, ip: string) => Promise<unknown> | undefined;

export function trackingIntake(deps: {
  now: () => number;
  portals: PortalStore;
  tracking: TrackingStore;
  contacts: ContactStore;
  properties: PropertyStore;
  links: VisitorLinks;
  sessions: VisitSessions;
  rollups: RollupStore;
  onPageView: PageViewListener;
}) {
  const { now, portals, tracking, contacts, properties, links, sessions, rollups, onPageView } = deps;

  /** A tracker event's time as the server believes it (see eventTime). */
  function dated(events: TrackedEvent[]) {
    const received = now();
    for (const e of events) if (e.source == 'tracker') e.timestamp = eventTime(e.timestamp, received);
  }

  /** The dashboard's counters of a stored event (its session's are counted by sessions). */
  function rollUp(sums: RollupSums, e: TrackedEvent, visit: VisitOfEvent | undefined) {
    if (e.kind == 3) return sums.add(e.portalId, METRICS.event, e.timestamp, e.name, '', 1, e.value ?? 0);
    for (const metric of METRICS.views) sums.add(e.portalId, metric, e.timestamp);
    sums.add(e.portalId, METRICS.page, e.timestamp, pageKey(e.url));
    const [perDay, perHour] = METRICS.visitors;
    if (visit?.firstIn.day) sums.add(e.portalId, perDay, e.timestamp);
    if (visit?.firstIn.hour) sums.add(e.portalId, perHour, e.timestamp);
  }

  /** admit: the portal exists (it has a tier), and custom events need an Enterprise portal. */
  function admit(e: TrackedEvent, tier: Tier | undefined): Intake | undefined {
    if (!tier) return drop('unknown-portal', `unknown portal ${e.portalId}`);
    if (e.kind == 3 && tier != 'enterprise')
      return drop('tier-required', `Custom events need an Enterprise portal; portal ${e.portalId} is ${tier}.`);
    return undefined;
  }

  /** The valid contact property writes among `values` (identify data must not fail the event). */
  async function validWrites(db: Queryable, portalId: number, values: Record<string, string>) {
    const writes = Object.entries(values)
      .filter(([name]) => name != 'email')
      .map(([property, value]) => ({ property, value }));
    const invalid = new Set((await properties.validate(db, portalId, writes)).map((r) => r.name));
    return writes.filter((w) => !invalid.has(w.property));
  }

  /** An events API event keeps the source it is given (`svc_analytics_source` and its drill-downs
   * among its properties) as the contact's latest, and as its original when it makes the
   * contact; a contact it makes without one is an offline one (drill-down API), as one made
   * through the contacts API. Tracker events have their sources from their sessions. */
  async function keepSource(db: Queryable, e: TrackedEvent, vid: number, isNew: boolean) {
    if (e.source == 'tracker') return;
    const given = e.contact?.[ANALYTICS.source];
    const type = SOURCE_TYPES.find((t) => t == given);
    if (!type && !isNew) return;
    const [source, data1, data2] = type
      ? [type, e.contact![ANALYTICS.sourceData1] ?? '', e.contact![ANALYTICS.sourceData2] ?? '']
      : ['OFFLINE', 'API', ''];
    const writes: { property: string; value: string }[] = [
      { property: ANALYTICS.latestSource, value: source },
      { property: ANALYTICS.latestSourceData1, value: data1 },
      { property: ANALYTICS.latestSourceData2, value: data2 },
    ];
    if (isNew)
      writes.push(
        { property: ANALYTICS.source, value: source },
        { property: ANALYTICS.sourceData1, value: data1 },
        { property: ANALYTICS.sourceData2, value: data2 },
      );
    await contacts.update(db, e.portalId, vid, writes, { type: 'ANALYTICS', id: e.eid }, true);
  }

  /** identify and count, for an event already stored with the contact its visitor was linked to. */
  async function identifyAndCount(
    db: Queryable,
    e: TrackedEvent,
    linked: number | undefined,
    visit: VisitOfEvent | undefined,
  ) {
    const email = e.contact?.email;
    if (email && isEmail(email)) {
      const { vid, isNew } = await contacts.upsertByEmail(
        db,
        e.portalId,
        email,
        await validWrites(db, e.portalId, e.contact!),
        { type: 'ANALYTICS', id: e.eid },
      );
      await keepSource(db, e, vid, isNew);
      // A new visitor identified: linking counts this event and the earlier ones.
      if (e.utk && !linked) return links.link(db, e.portalId, e.utk, vid);
      if (vid != linked) {
        await tracking.own(db, vid, e);
        if (e.utk) await links.link(db, e.portalId, e.utk, vid);
      }
      return tracking.count(db, vid, e, visit);
    }
    if (linked === undefined) return;
    if (e.contact)
      await contacts.update(db, e.portalId, linked, await validWrites(db, e.portalId, e.contact), {
        type: 'ANALYTICS',
        id: e.eid,
      });
    await keepSource(db, e, linked, false);
    await tracking.count(db, linked, e, visit);
  }

  /** The contact `e`'s visitor is linked to, read once per batch (`linkOf`) until an identify. */
  async function linkedOf(db: Queryable, e: TrackedEvent, linkOf: Map<string, number | undefined>) {
    if (!e.utk) return undefined;
    const key = visitorOf(e);
    if (!linkOf.has(key)) linkOf.set(key, await tracking.linkedVid(db, e.portalId, e.utk));
    return linkOf.get(key);
  }

  /** One event through admit, store, identify, count and notify; `db`: where it runs (the caller's
   * transaction), `tier`: its portal's; `stored`: whether it was stored, for the events stored
   * already (the others are stored now). */
  async function accept(
    db: Queryable,
    e: TrackedEvent,
    tier: Tier | undefined,
    ip: string | undefined,
    linkOf = new Map<string, number | undefined>(),
    stored?: Map<TrackedEvent, boolean>,
  ): Promise<Intake> {
    const refused = admit(e, tier);
    if (refused) return refused;
    const linked = await linkedOf(db, e, linkOf);
    if (!(stored?.get(e) ?? (await tracking.insert(db, e, linked))))
      return drop('duplicate', `event ${e.eid} was received before`);
    const visit = await sessions.pageView(db, e, linked);
    rollUp(rollups.sums(db)!, e, visit);
    // Only an identifying event links its visitor (anew): the next one reads the link again.
    if (e.contact?.email) linkOf.delete(visitorOf(e));
    await identifyAndCount(db, e, linked, visit);
    if (e.kind == 1 && ip !== undefined) await onPageView(db, e, ip);
    return { kept: true, event: e };
  }

  /** Holds the events' visitors until the write ends: two writes of one visitor (two processes
   * on PostgreSQL) take turns, the second reading the session and link the first left (each
   * would otherwise start or grow the session it read, and one's page views be lost). Outside a
   * transaction (the engine itself) there is nothing to hold. */
  async function lockVisitors(db: Queryable, events: TrackedEvent[]) {
    if (isTransaction(db))
      await db.lock([...new Set(events.filter((e) => e.utk).map((e) => `visitor ${visitorOf(e)}`))]);
  }

  /** Reads what the events' visitors are linked to, and their newest sessions, for all of them
   * at once (on PostgreSQL one round trip for both, not one per visitor). */
  async function prefetch(db: Queryable, events: TrackedEvent[], linkOf: Map<string, number | undefined>) {
    await lockVisitors(db, events);
    const visitors = new Map<string, VisitorKey>();
    for (const e of events) if (e.utk) visitors.set(visitorOf(e), { portal_id: e.portalId, utk: e.utk });
    const unknown = [...visitors].filter(([key]) => !linkOf.has(key));
    for (const [key] of unknown) linkOf.set(key, undefined);
    const [links] = await Promise.all([
      tracking.linkedOfAll(
        db,
        unknown.map(([, v]) => v),
      ),
      sessions.prefetch(
        db,
        events.filter((e) => e.kind == 1 && e.utk),
      ),
    ]);
    for (const l of links) linkOf.set(`${l.portal_id} ${l.utk}`, l.vid);
  }

  /** Stores the admitted events of the visitors none of whose events identifies them (so no
   * link changes under them) at once: one statement on PostgreSQL (a round trip, not one per
   * event). Answers whether each was stored (a repeated id is not). */
  async function storeFirst(
    db: Queryable,
    events: TrackedEvent[],
    tiers: Map<number, Tier | undefined>,
    linkOf: Map<string, number | undefined>,
  ) {
    const identifying = new Set(events.filter((e) => e.contact).map(visitorOf));
    const rows = [];
    for (const e of events)
      if (!identifying.has(visitorOf(e)) && !admit(e, tiers.get(e.portalId)))
        rows.push({ event: e, vid: await linkedOf(db, e, linkOf) });
    const inserting = tracking.insertAll(db, rows);
    // Without identify data nothing links a visitor or changes a contact before the bulk's end: the
    // contacts its events count for are read (and locked) with the events (PostgreSQL: no round
    // trip of their own).
    if (!events.some((e) => e.contact)) {
      const linked = new Map<number, Set<number>>();
      for (const { event, vid } of rows)
        if (vid !== undefined)
          (linked.get(event.portalId) ?? linked.set(event.portalId, new Set()).get(event.portalId)!).add(vid);
      for (const [portalId, vids] of linked) contacts.readToWriteAhead(db, portalId, [...vids]);
    }
    const stored = await inserting;
    return new Map(rows.map(({ event }) => [event, stored.has(event)]));
  }

  return {
    accept: async (db: Queryable, e: TrackedEvent, ip?: string): Promise<Intake> => {
      dated([e]);
      await lockVisitors(db, [e]);
      const tier = await portals.tier(db, e.portalId);
      return rollups.batch(db, (r) => sessions.batch(r, (b) => accept(b, e, tier, ip)));
    },
    /** Batches of events (each from its `ip`), their events one after the other, with analytics
     * totals written once per contact (their portals' tiers found first) and each visitor's link
     * read once (a tracker batch is usually ten events of one visitor). What became of each
     * batch's events, batch by batch. */
    async acceptAll(db: Queryable, batches: { events: TrackedEvent[]; ip?: string }[]): Promise<Intake[][]> {
      const all = batches.flatMap((b) => b.events);
      dated(all);
      const tiers = new Map<number, Tier | undefined>();
      for (const id of new Set(all.map((e) => e.portalId))) tiers.set(id, await portals.tier(db, id));
      // Its rollups are summed in memory and kept once, at the end of the write it runs in.
      return rollups.batch(db, (r) =>
        sessions.batch(r, (s) =>
          tracking.batch(s, async (b) => {
            const linkOf = new Map<string, number | undefined>();
            await prefetch(b, all, linkOf);
            const stored = await storeFirst(b, all, tiers, linkOf);
            const outcomes: Intake[][] = [];
            for (const { events, ip } of batches) {
              const answers: Intake[] = [];
              for (const e of events) answers.push(await accept(b, e, tiers.get(e.portalId), ip, linkOf, stored));
              outcomes.push(answers);
            }
            return outcomes;
          }),
        ),
      );
    },
  };
}

export type TrackingIntake = ReturnType<typeof trackingIntake>;
