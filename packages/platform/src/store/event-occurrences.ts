/** A contact's page views and custom events as people and the events API read them: each with its
 * properties, which live only in what arrived with the event (tracking_events.data): the tracker's
 * `_<name>` fields, or what an events API call sent with the event. Read-only. */
import { eventProperties, type WireEvent } from '@svc/protocol';
import { PAGE_VIEW_EVENT_TYPE } from '@svc/api';
import { type Queryable, sql } from '../db/engine';
import type { EventSource } from './tracking';

/** A stored event, as the reads here need it. */
export interface EventRow {
  seq: number;
  eid: string;
  kind: number;
  timestamp: number;
  source: string;
  url: string | null;
  title: string | null;
  event_name: string | null;
  value: number | null;
  data: string;
}

/** Fields of the events API that say what and whom, not properties of the event. */
const API_FIELDS = new Set(['_n', '_a', '_m', 'email', 'utk', 'id', 'hapikey']);

/** The event's own properties: a custom event's `_<name>` fields (tracker); the parameters an
 * events API call sent beside `_n`, `_a`, `_m`, `email`, `utk` and `id` (GET), or its
 * `properties` (POST). A page view has none. */
export function ownProperties(source: string, data: string): Record<string, string> {
  const received = JSON.parse(data) as Record<string, unknown>;
  if ((source as EventSource) == 'tracker') return eventProperties(received as WireEvent);
  const given =
    source == 'events-post'
      ? (received.properties ?? {})
      : Object.fromEntries(Object.entries(received).filter(([k]) => !API_FIELDS.has(k)));
  return Object.fromEntries(
    Object.entries(given as Record<string, unknown>)
      .filter(([, v]) => v != null && typeof v != 'object')
      .map(([k, v]) => [k, String(v)]),
  );
}

/** Everything the platform knows of one event as properties, the way the real API names the page
 * fields (`svc_url`, `svc_title`, `svc_referrer`) and the value (`svc_value`); the event's own
 * properties win over those names. */
export function occurrenceProperties(e: EventRow): Record<string, string> {
  const known: Record<string, string> = {};
  if (e.url) known.svc_url = e.url;
  if (e.title) known.svc_title = e.title;
  if (e.kind == 1) {
    const referrer = (JSON.parse(e.data) as WireEvent).r;
    if (referrer) known.svc_referrer = referrer;
    return known;
  }
  if (e.value != null) known.svc_value = String(e.value);
  return { ...known, ...ownProperties(e.source, e.data) };
}

export interface OccurrenceQuery {
  portalId: number;
  vid: number;
  /** `e_visited_page`, or a custom event's id or name. */
  eventType?: string;
  /** Exclusive bounds, ms since the epoch. */
  occurredAfter?: number;
  occurredBefore?: number;
  sort: 'DESCENDING' | 'ASCENDING';
  limit: number;
  /** `timestamp-seq` of the last event of the previous page. */
  after?: string;
}

const COLUMNS = 'seq, eid, kind, timestamp, source, url, title, event_name, value, data';
/** One contact's events in a time window, of one type or all ('' for all), from a cursor on. */
const FILTER = `portal_id = ? AND vid = ? AND timestamp > ? AND timestamp < ?
  AND (? = '' OR (kind = 1 AND ? = '${PAGE_VIEW_EVENT_TYPE}') OR (kind = 3 AND event_name = ?))`;
type Params = [number, number, number, number, string, string, string, number, number, number, number];

export function eventOccurrenceStore() {
  const q = {
    // Keyset paging on (timestamp, seq): stable while events arrive, one index range per page.
    newest: sql<Params, EventRow>(
      `SELECT ${COLUMNS} FROM tracking_events WHERE ${FILTER} AND (timestamp < ? OR (timestamp = ? AND seq < ?))
       ORDER BY timestamp DESC, seq DESC LIMIT ?`,
    ),
    oldest: sql<Params, EventRow>(
      `SELECT ${COLUMNS} FROM tracking_events WHERE ${FILTER} AND (timestamp > ? OR (timestamp = ? AND seq > ?))
       ORDER BY timestamp, seq LIMIT ?`,
    ),
  };

  return {
    /** A page of the contact's events, and the cursor of the next page when there is one. */
    async page(db: Queryable, o: OccurrenceQuery): Promise<{ rows: EventRow[]; next?: string }> {
      const descending = o.sort == 'DESCENDING';
      const [at, seq] = o.after
        ? o.after.split('-').map(Number)
        : descending
          ? [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER]
          : [-1, -1];
      const type = o.eventType ?? '';
      const rows = await db.all(
        descending ? q.newest : q.oldest,
        o.portalId,
        o.vid,
        o.occurredAfter ?? -1,
        o.occurredBefore ?? Number.MAX_SAFE_INTEGER,
        type,
        type,
        type,
        at,
        at,
        seq,
        o.limit + 1,
      );
      if (rows.length <= o.limit) return { rows };
      const last = rows[o.limit - 1];
      return { rows: rows.slice(0, o.limit), next: `${last.timestamp}-${last.seq}` };
    },
  };
}

export type EventOccurrenceStore = ReturnType<typeof eventOccurrenceStore>;
