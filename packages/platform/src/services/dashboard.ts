/** The inspector's dashboard: one answer per panel, for a range of UTC days (or today's hours),
 * read from the rollups kept at ingest (store/rollups.ts) and, for the live view, the sessions.
 * Conversion rate per source = contacts made from it / its sessions. */
import type { Queryable } from '../db/engine';
import { badRequest } from '../domain/errors';
import type { DashboardStore } from '../store/dashboard';
import { DAY, HOUR, METRICS, dayOf } from '../store/rollups';

export const RANGES = { today: 1, '7d': 7, '30d': 30, '90d': 90 } as const;
export type RangeName = keyof typeof RANGES;

/** The visitors the live view counts: a page view in the last minutes. */
export const LIVE_WINDOW = 5 * 60_000;
const TOP = 10;

export interface Range {
  name: RangeName;
  /** First millisecond, and the one after the last. */
  from: number;
  to: number;
  grain: 'hour' | 'day';
  /** The first millisecond of each bucket. */
  buckets: number[];
}

/** The range `name` ending today (UTC): today by the hour, else the last N days by the day. */
export function rangeOf(name: unknown, now: number): Range {
  if (typeof name != 'string' || !Object.hasOwn(RANGES, name))
    throw badRequest(`range must be one of ${Object.keys(RANGES).join(', ')}; got ${JSON.stringify(name ?? null)}`);
  const days = RANGES[name as RangeName];
  const to = dayOf(now) + DAY;
  const from = to - days * DAY;
  const step = days == 1 ? HOUR : DAY;
  return {
    name: name as RangeName,
    from,
    to,
    grain: days == 1 ? 'hour' : 'day',
    buckets: Array.from({ length: (to - from) / step }, (_, i) => from + i * step),
  };
}

const rate = (part: number, whole: number) => (whole ? Math.round((part / whole) * 10_000) / 10_000 : null);

/** `catchUp`: brings the rollups up to date before a read (PostgreSQL's deltas, store/rollups.ts). */
export function dashboard(store: DashboardStore, now: () => number, catchUp: () => Promise<unknown> = async () => {}) {
  const total = (series: Map<number, number>) => [...series.values()].reduce((a, b) => a + b, 0);

  const panels = {
    /** Visitors, sessions and page views per bucket, and their totals. Visitors are distinct per
     * bucket; the total is the distinct visitors of each day, summed (exact for today). */
    async traffic(db: Queryable, portalId: number, r: Range) {
      const grain = r.grain == 'hour' ? 1 : 0;
      const [views, visitors, sessions, dayVisitors] = await Promise.all([
        store.series(db, portalId, METRICS.views[grain], r.from, r.to),
        store.series(db, portalId, METRICS.visitors[grain], r.from, r.to),
        store.series(db, portalId, METRICS.sessions[grain], r.from, r.to),
        grain ? store.series(db, portalId, METRICS.visitors[0], r.from, r.to) : undefined,
      ]);
      const at = (s: Map<number, number>) => r.buckets.map((b) => s.get(b) ?? 0);
      return {
        buckets: r.buckets,
        views: at(views),
        visitors: at(visitors),
        sessions: at(sessions),
        totals: { views: total(views), visitors: total(dayVisitors ?? visitors), sessions: total(sessions) },
      };
    },

    /** The most viewed pages. */
    async pages(db: Queryable, portalId: number, r: Range) {
      return {
        pages: (await store.top(db, portalId, METRICS.page, r.from, r.to, TOP, true)).map((p) => ({
          url: p.dim,
          views: p.n,
        })),
      };
    },

    /** Sessions and contacts made per source type, the top sources in detail (engine, site,
     * campaign), and the top referring sites. */
    async sources(db: Queryable, portalId: number, r: Range) {
      const [types, made, details, madeDetails, referrers] = await Promise.all([
        store.top(db, portalId, METRICS.source, r.from, r.to, 50, true),
        store.top(db, portalId, METRICS.contacts, r.from, r.to, 50, true),
        store.top(db, portalId, METRICS.source, r.from, r.to, TOP),
        store.top(db, portalId, METRICS.contacts, r.from, r.to, 200),
        store.top(db, portalId, METRICS.referrer, r.from, r.to, TOP, true),
      ]);
      const contactsOf = new Map(made.map((m) => [m.dim, m.n]));
      const sessionsOf = new Map(types.map((t) => [t.dim, t.n]));
      const names = [...new Set([...sessionsOf.keys(), ...contactsOf.keys()])];
      const byType = names
        .map((source) => ({ source, sessions: sessionsOf.get(source) ?? 0, contacts: contactsOf.get(source) ?? 0 }))
        .map((s) => ({ ...s, conversionRate: rate(s.contacts, s.sessions) }))
        .sort((a, b) => b.sessions - a.sessions || b.contacts - a.contacts || a.source.localeCompare(b.source));
      const detailContacts = new Map(madeDetails.map((m) => [`${m.dim}\u0000${m.dim2}`, m.n]));
      return {
        types: byType,
        details: details.map((d) => {
          const contacts = detailContacts.get(`${d.dim}\u0000${d.dim2}`) ?? 0;
          return { source: d.dim, detail: d.dim2, sessions: d.n, contacts, conversionRate: rate(contacts, d.n) };
        }),
        referrers: referrers.map((x) => ({ host: x.dim, sessions: x.n })),
      };
    },

    /** Sessions per UTM campaign (of the landing page) and the source type it came as. */
    async campaigns(db: Queryable, portalId: number, r: Range) {
      return {
        campaigns: (await store.top(db, portalId, METRICS.campaign, r.from, r.to, TOP)).map((c) => ({
          campaign: c.dim,
          source: c.dim2,
          sessions: c.n,
        })),
      };
    },

    /** Page views per country, from the addresses the prospects mapping knows. */
    async countries(db: Queryable, portalId: number, r: Range) {
      return {
        countries: (await store.top(db, portalId, METRICS.country, r.from, r.to, TOP, true)).map((c) => ({
          country: c.dim,
          views: c.n,
        })),
      };
    },

    /** Form submissions per form, and contacts made (all sources). */
    async conversions(db: Queryable, portalId: number, r: Range) {
      const [forms, made] = await Promise.all([
        store.top(db, portalId, METRICS.form, r.from, r.to, TOP, true),
        store.top(db, portalId, METRICS.contacts, r.from, r.to, 50, true),
      ]);
      const names = await store.formNames(
        db,
        portalId,
        forms.map((f) => f.dim),
      );
      return {
        forms: forms.map((f) => ({ guid: f.dim, name: names.get(f.dim) ?? null, submissions: f.n })),
        submissions: forms.reduce((a, f) => a + f.n, 0),
        contacts: made.reduce((a, m) => a + m.n, 0),
      };
    },

    /** Custom events per name: how many, and their values summed (revenue). */
    async events(db: Queryable, portalId: number, r: Range) {
      return {
        events: (await store.top(db, portalId, METRICS.event, r.from, r.to, 20, true)).map((e) => ({
          name: e.dim,
          count: e.n,
          revenue: e.amount,
        })),
      };
    },

    /** The visitors with a page view in the last LIVE_WINDOW: how many, and their sessions. */
    async live(db: Queryable, portalId: number) {
      const since = now() - LIVE_WINDOW;
      const { visitors, sessions } = await store.active(db, portalId, since, 20);
      return {
        since,
        visitors,
        sessions: sessions.map((s) => ({
          visitor: s.utk.slice(0, 8),
          contact: s.vid === null ? null : Number(s.vid),
          startedAt: Number(s.started_at),
          lastAt: Number(s.last_at),
          pageViews: Number(s.page_views),
          source: s.source,
          detail: s.source_data_1,
          landingUrl: s.landing_url,
        })),
      };
    },
  };
  type Panel = keyof typeof panels;

  return {
    panels: Object.keys(panels) as Panel[],
    isPanel: (name: string): name is Panel => Object.hasOwn(panels, name),
    /** Panel `panel` of portal `portalId` over range `range` (a name of RANGES; 400 otherwise). */
    async read(db: Queryable, portalId: number, panel: Panel, range: unknown) {
      const r = rangeOf(range ?? '7d', now());
      await catchUp();
      return {
        range: { name: r.name, from: r.from, to: r.to, grain: r.grain },
        ...(await panels[panel](db, portalId, r)),
      };
    },
  };
}

export type Dashboard = ReturnType<typeof dashboard>;
