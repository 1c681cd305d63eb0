/** Visitors' sessions: each page view of a visitor either continues its session or starts a new
 * one, which takes its source from the page view's URL and referrer (domain/attribution.ts).
 * A new session starts after SESSION_TIMEOUT without a page view, when a page view comes from
 * another source (a campaign link, another search engine or site), or when the session would
 * last longer than MAX_SESSION_MS (a tab that reloads itself all day, a bot); coming back from
 * the site itself or directly does not interrupt a session.
 *
 * In a batch (one collector request) a visitor's newest session is read once, kept in memory
 * while its page views pass, and written once at the end.
 *
 * Sessions also tell whether a page view is its visitor's first in its hour and in its day, which
 * the dashboard counts as visitors: a page view lies within its session's span, and a session has
 * one at least every SESSION_TIMEOUT (half an hour, less than an hour), so a visitor had a page
 * view in an hour or a day exactly when one of its sessions overlaps it. Nothing is stored for it:
 * the visitor's newest session answers most page views, and the others read the spans of the
 * visitor's sessions that overlap the day (none for a visitor without sessions). */
import type { Queryable } from '../db/engine';
import { txContext } from '../db/tx-context';
import { INTERNAL, classify, sameSource } from '../domain/attribution';
import { DAY, HOUR, METRICS, campaignOf, dayOf, hourOf, referrerHost, type RollupStore } from '../store/rollups';
import {
  MAX_SESSION_MS,
  type Session,
  type SessionStore,
  type SessionSummary,
  type Span,
  type VisitorKey,
} from '../store/sessions';
import type { SettingStore } from '../store/settings';
import type { TrackedEvent, VisitOfEvent } from '../store/tracking';

export const SESSION_TIMEOUT = 30 * 60_000;

/** The portal setting naming the site's own domains besides the pages' (comma or space
 * separated): a referrer on one of them is the site itself, not a source. */
export const OWN_DOMAINS_SETTING = 'svc_tracking_domains';

/** What a page view did to its visitor's sessions: the session it started, if any, and the
 * external referrer it came with. */
type Visit = VisitOfEvent;

type Open = { session: Session; state: 'stored' | 'changed' | 'new'; startMoved?: boolean };
interface Batch {
  /** Per `portal:utk`: the visitor's newest session, null when it has none. */
  open: Map<string, Open | null>;
  domains: Map<number, Promise<string[]>>;
  /** The visitors that had no stored session when the batch first read them. */
  newcomers: Set<string>;
  /** Per `portal:utk day`: the visitor's stored sessions that overlap that UTC day. */
  spans: Map<string, Promise<Span[]>>;
  /** `portal:utk h|d bucket`: the hours and days a page view of the batch was in already. */
  counted: Set<string>;
}

/** A visitor's day, as `Batch.spans` keys it and as the store is asked for its spans. */
const visitorDay = (portalId: number, utk: string, day: number) =>
  [`${portalId}:${utk} ${day}`, { portal_id: portalId, utk, from: day, to: day + DAY }] as const;

/** Whether span `s` overlaps [start, start + length). */
const overlaps = (s: Span, start: number, length: number) => s.started_at < start + length && s.last_at >= start;

export function visitSessions(store: SessionStore, settings: SettingStore, rollups: RollupStore) {
  const batches = txContext<Batch>();

  /** Adds session `s` to the rollups as starting at `at` (`sign` -1: takes it back from there). */
  async function rollUp(db: Queryable, s: Session, at: number, sign: 1 | -1): Promise<void> {
    const sums = rollups.sums(db);
    if (!sums) return rollups.batch(db, (b) => rollUp(b, s, at, sign));
    const add = (metric: string, dim?: string | null, dim2?: string | null) =>
      sums.add(s.portal_id, metric, at, dim, dim2, sign);
    for (const metric of METRICS.sessions) add(metric);
    add(METRICS.source, s.source, s.source_data_1);
    const host = referrerHost(s.referrer);
    if (host) add(METRICS.referrer, host);
    const campaign = campaignOf(s.landing_url);
    if (campaign) add(METRICS.campaign, campaign, s.source);
  }

  async function ownDomains(db: Queryable, portalId: number) {
    const value = await settings.value(db, portalId, OWN_DOMAINS_SETTING);
    return value
      ? value
          .toLowerCase()
          .split(/[\s,]+/)
          .filter(Boolean)
      : [];
  }

  /** Where a page view comes from; the portal's own domains are read only when its referrer is
   * another site (once per batch). */
  async function sourceOf(db: Queryable, batch: Batch | undefined, e: TrackedEvent) {
    const first = classify(e.url, e.referrer);
    if (first == INTERNAL || !first.referrer) return first;
    let domains = batch?.domains.get(e.portalId);
    if (!domains) {
      domains = ownDomains(db, e.portalId);
      batch?.domains.set(e.portalId, domains);
    }
    const own = await domains;
    return own.length ? classify(e.url, e.referrer, own) : first;
  }

  /** The visitor's stored sessions overlapping `day`, read once per batch. Read during the batch,
   * they may include sessions its earlier page views ended: those page views are counted already. */
  function spansOf(
    db: Queryable,
    batch: Batch | undefined,
    portalId: number,
    utk: string,
    day: number,
  ): Promise<Span[]> {
    const [key, wanted] = visitorDay(portalId, utk, day);
    let spans = batch?.spans.get(key);
    if (!spans) {
      spans = store.spansOfAll(db, [wanted]).then(([found]) => found);
      batch?.spans.set(key, spans);
    }
    return spans;
  }

  /** Whether a page view of visitor `utk` at `at` is its first in its hour and in its day (see
   * above); `before`: the visitor's newest session before it. */
  async function firstIn(
    db: Queryable,
    batch: Batch | undefined,
    portalId: number,
    utk: string,
    at: number,
    before: Session | undefined,
  ) {
    const visitor = `${portalId}:${utk}`;
    const hour = hourOf(at);
    const day = dayOf(at);
    const marks = [`${visitor} h ${hour}`, `${visitor} d ${day}`];
    const first = { hour: !batch?.counted.has(marks[0]), day: !batch?.counted.has(marks[1]) };
    for (const mark of marks) batch?.counted.add(mark);
    if (first.hour && before && overlaps(before, hour, HOUR)) first.hour = false;
    // A page view in the hour was one in the day too.
    if (!first.hour) return { hour: false, day: false };
    if (first.day && before && overlaps(before, day, DAY)) first.day = false;
    if (batch?.newcomers.has(visitor)) return first;
    const spans = await spansOf(db, batch, portalId, utk, day);
    if (spans.some((s) => overlaps(s, hour, HOUR))) return { hour: false, day: false };
    return { hour: true, day: first.day && !spans.some((s) => overlaps(s, day, DAY)) };
  }

  async function save(db: Queryable, o: Open) {
    if (o.state == 'new') o.session.id = await store.insert(db, o.session);
    else if (o.state == 'changed') await store.update(db, o.session, o.startMoved ?? false);
    o.state = 'stored';
    o.startMoved = false;
  }

  return {
    /** Runs `fn` with the sessions of the visitors it sees kept in memory, written at its end. */
    async batch<T>(db: Queryable, fn: (db: Queryable) => Promise<T>): Promise<T> {
      if (batches.of(db)) return fn(db);
      const batch: Batch = {
        open: new Map(),
        domains: new Map(),
        newcomers: new Set(),
        spans: new Map(),
        counted: new Set(),
      };
      const result = await fn(batches.bind(db, batch));
      const open = [...batch.open.values()].filter((o): o is Open => o !== null);
      // The new ones at once (a collector bulk starts a session for most of its visitors), and
      // none waited for: their ids are not needed any more.
      await store.sendAll(
        db,
        open.filter((o) => o.state == 'new').map((o) => o.session),
      );
      await store.updateAll(
        db,
        open
          .filter((o) => o.state == 'changed')
          .map((o) => ({ session: o.session, startMoved: o.startMoved ?? false })),
      );
      return result;
    },

    /** Reads what the page views `views` will need, for all of them at once rather than one at a
     * time (on PostgreSQL a round trip each): the newest session of each of their visitors not read
     * yet in the batch `db` runs in (see `batch`), then the spans of the visitors' sessions on the
     * days their newest sessions do not answer for (see firstIn). */
    async prefetch(db: Queryable, views: TrackedEvent[]) {
      const batch = batches.of(db);
      if (!batch) return;
      const visitors = new Map<string, VisitorKey>();
      for (const e of views)
        if (e.utk && !batch.open.has(`${e.portalId}:${e.utk}`))
          visitors.set(`${e.portalId}:${e.utk}`, { portal_id: e.portalId, utk: e.utk });
      for (const key of visitors.keys()) batch.open.set(key, null);
      for (const s of await store.latestOfAll(db, [...visitors.values()]))
        batch.open.set(`${s.portal_id}:${s.utk}`, { session: s, state: 'stored' });
      for (const key of visitors.keys()) if (batch.open.get(key) === null) batch.newcomers.add(key);
      const days = new Map<string, VisitorKey & { from: number; to: number }>();
      for (const e of views) {
        const newest = e.utk && batch.open.get(`${e.portalId}:${e.utk}`);
        if (!newest || overlaps(newest.session, hourOf(e.timestamp), HOUR)) continue;
        const [key, wanted] = visitorDay(e.portalId, e.utk!, dayOf(e.timestamp));
        if (!batch.spans.has(key)) days.set(key, wanted);
      }
      if (!days.size) return;
      const found = store.spansOfAll(db, [...days.values()]);
      [...days.keys()].forEach((key, i) =>
        batch.spans.set(
          key,
          found.then((all) => all[i]),
        ),
      );
      await found;
    },

    /** A page view of visitor `e.utk` (counting for contact `vid`, if linked): continues its
     * session or starts one. Undefined for a page view without a visitor token. */
    async pageView(db: Queryable, e: TrackedEvent, vid: number | undefined): Promise<Visit | undefined> {
      if (!e.utk || e.kind != 1) return undefined;
      const batch = batches.of(db);
      const key = `${e.portalId}:${e.utk}`;
      let open = batch?.open.get(key);
      if (open === undefined) {
        const stored = await store.latest(db, e.portalId, e.utk);
        open = stored ? { session: stored, state: 'stored' } : null;
        if (!stored) batch?.newcomers.add(key);
      }
      const first = await firstIn(db, batch, e.portalId, e.utk, e.timestamp, open?.session);
      const touch = await sourceOf(db, batch, e);
      const s = open?.session;
      const continues =
        s !== undefined &&
        e.timestamp - s.last_at <= SESSION_TIMEOUT &&
        s.started_at - e.timestamp <= SESSION_TIMEOUT &&
        Math.max(s.last_at, e.timestamp) - Math.min(s.started_at, e.timestamp) < MAX_SESSION_MS &&
        (touch == INTERNAL ||
          touch.source == 'DIRECT_TRAFFIC' ||
          sameSource(touch, { source: s.source, data1: s.source_data_1 }));
      let visit: Visit;
      if (continues) {
        if (e.timestamp < s.started_at) {
          // Its start moved: the rollups count it in its new day and hour.
          await rollUp(db, s, s.started_at, -1);
          await rollUp(db, s, e.timestamp, 1);
          s.started_at = e.timestamp;
          open!.startMoved = true;
        }
        s.last_at = Math.max(s.last_at, e.timestamp);
        s.page_views++;
        if (open!.state == 'stored') open!.state = 'changed';
        visit = { at: e.timestamp, referrer: touch == INTERNAL ? null : touch.referrer, firstIn: first };
      } else {
        // A session that begins on a page reached from the site itself (the visitor came back
        // after the timeout on an open tab) has no source of its own: direct.
        const from = touch == INTERNAL ? classify(e.url, undefined) : touch;
        if (from == INTERNAL) throw new Error('a page view without a referrer is never internal');
        const session: Session = {
          id: 0,
          portal_id: e.portalId,
          utk: e.utk,
          vid: vid ?? null,
          started_at: e.timestamp,
          last_at: e.timestamp,
          page_views: 1,
          source: from.source,
          source_data_1: from.data1,
          source_data_2: from.data2,
          referrer: from.referrer,
          landing_url: e.url ?? null,
        };
        // The session it ends is written now: the batch keeps only a visitor's newest.
        if (batch && open && open.state != 'stored') await save(db, open);
        open = { session, state: 'new' };
        await rollUp(db, session, session.started_at, 1);
        visit = { at: e.timestamp, started: session, referrer: from.referrer, firstIn: first };
      }
      if (batch) batch.open.set(key, open);
      else await save(db, open!);
      return visit;
    },

    /** Visitor `utk` was linked to contact `vid`: its sessions not yet counted for a contact,
     * oldest first, now count for it (the one kept in memory is written first). */
    async claim(db: Queryable, portalId: number, utk: string, vid: number): Promise<SessionSummary[]> {
      const open = batches.of(db)?.open.get(`${portalId}:${utk}`);
      if (open) await save(db, open);
      const claimed = await store.claim(db, portalId, utk, vid);
      if (open && open.session.vid === null) open.session.vid = vid;
      return claimed;
    },
  };
}

export type VisitSessions = ReturnType<typeof visitSessions>;
