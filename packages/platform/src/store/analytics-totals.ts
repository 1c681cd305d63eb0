/** What a contact's tracked events add up to, as its analytics properties: page views, events,
 * revenue, first and last visit and URL, and what its sessions add (count, original and latest
 * source, referrers). Pure: the tracking store (store/tracking.ts) gathers the totals of a batch
 * and writes them once per contact. */
import type { Write } from './contacts';
import { ANALYTICS } from './default-properties';
import type { SessionSummary } from './sessions';

/** What sessions add to a contact: how many started, the first and last of them, and the first
 * and last external referrers. */
export interface VisitTotals {
  count: number;
  first: SessionSummary | null;
  last: SessionSummary | null;
  firstReferrer: { at: number; url: string } | null;
  lastReferrer: { at: number; url: string } | null;
}

export interface Totals {
  visits?: VisitTotals;
  views: number;
  events: number;
  revenue: number;
  first_at: number | null;
  last_at: number | null;
  first_url: string | null;
  last_url: string | null;
}

/** `a` and `b` summed; the first and last URL from whichever saw them first and last. */
export function merge(a: Totals, b: Totals): Totals {
  const visits = a.visits && b.visits ? mergeVisits(a.visits, b.visits) : (a.visits ?? b.visits);
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
    ...(visits ? { visits } : {}),
  };
}

/** The contact's analytics properties (now `p`) after `t`. */
export function totalsWrites(p: Record<string, string>, t: Totals): Write[] {
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
  if (t.visits) writes.push(...visitWrites(p, t.visits, t.views));
  return writes;
}

/** Sessions that started (oldest first) and external referrers seen (oldest first), as totals. */
export function visitTotals(started: SessionSummary[], referrers: { at: number; url: string }[]): VisitTotals {
  return {
    count: started.length,
    first: started[0] ?? null,
    last: started.at(-1) ?? null,
    firstReferrer: referrers[0] ?? null,
    lastReferrer: referrers.at(-1) ?? null,
  };
}

function mergeVisits(a: VisitTotals, b: VisitTotals): VisitTotals {
  const earliest = <T>(x: T | null, y: T | null, at: (v: T) => number) =>
    x === null ? y : y === null ? x : at(y) < at(x) ? y : x;
  const latest = <T>(x: T | null, y: T | null, at: (v: T) => number) =>
    x === null ? y : y === null ? x : at(y) >= at(x) ? y : x;
  return {
    count: a.count + b.count,
    first: earliest(a.first, b.first, (s) => s.started_at),
    last: latest(a.last, b.last, (s) => s.started_at),
    firstReferrer: earliest(a.firstReferrer, b.firstReferrer, (r) => r.at),
    lastReferrer: latest(a.lastReferrer, b.lastReferrer, (r) => r.at),
  };
}

/**
 * The contact's session properties after `v` (and `views` more page views): the number of
 * sessions and page views per session; the original source from its first session, unless the
 * contact was made offline (OFFLINE) before it; the latest source from its newest session; the
 * first and last external referrers. An empty value clears a detail the new source lacks.
 */
function visitWrites(p: Record<string, string>, v: VisitTotals, views: number): Write[] {
  const writes: Write[] = [];
  const set = (property: string, value: string | number | null) =>
    writes.push({ property, value: value == null ? '' : String(value) });
  const n = (name: string) => Number(p[name] ?? 0);
  const firstAt = p[ANALYTICS.firstSession] ? n(ANALYTICS.firstSession) : undefined;
  const lastAt = p[ANALYTICS.lastSession] ? n(ANALYTICS.lastSession) : undefined;
  const visits = n(ANALYTICS.visits) + v.count;
  if (v.count) set(ANALYTICS.visits, visits);
  if (visits) set(ANALYTICS.averagePageViews, Math.round(((n(ANALYTICS.pageViews) + views) / visits) * 100) / 100);
  if (v.first && (firstAt === undefined || v.first.started_at < firstAt)) {
    set(ANALYTICS.firstSession, v.first.started_at);
    const madeOfflineBefore = p[ANALYTICS.source] == 'OFFLINE' && n('createdate') <= v.first.started_at;
    if (!madeOfflineBefore) {
      set(ANALYTICS.source, v.first.source);
      set(ANALYTICS.sourceData1, v.first.source_data_1);
      set(ANALYTICS.sourceData2, v.first.source_data_2);
    }
  }
  if (v.last && (lastAt === undefined || v.last.started_at >= lastAt)) {
    set(ANALYTICS.lastSession, v.last.started_at);
    set(ANALYTICS.latestSource, v.last.source);
    set(ANALYTICS.latestSourceData1, v.last.source_data_1);
    set(ANALYTICS.latestSourceData2, v.last.source_data_2);
  }
  if (v.firstReferrer && (!p[ANALYTICS.firstReferrer] || (firstAt !== undefined && v.firstReferrer.at < firstAt)))
    set(ANALYTICS.firstReferrer, v.firstReferrer.url);
  if (v.lastReferrer && (lastAt === undefined || v.lastReferrer.at >= lastAt))
    set(ANALYTICS.lastReferrer, v.lastReferrer.url);
  return writes;
}
