/** The tracking collector's wire format (packages/tracker/README.md, "Wire format"): where the
 * tracker sends, what an event carries, and the one check of an event that the platform's
 * collector runs. The check returns a problem instead of throwing a server's error type, so any
 * side (a proxy, a test, another collector) can use it without our HTTP layer. */
import { UTK_PATTERN } from './utk';

/** Relative to the tracker's `collector` base URL: a JSON array of events, POSTed. */
export const BATCH_FILE = 'e';
/** Relative to the tracker's `collector` base URL: one event as query parameters → 1×1 GIF. */
export const PIXEL_FILE = 'p.gif';
/** Where the platform (and the companion, mirroring it) mounts the collector. */
export const COLLECT_PATH = '/collect';
/** `POST {base_url}/collect/e` */
export const COLLECT_BATCH_PATH = `${COLLECT_PATH}/${BATCH_FILE}` as const;
/** `GET {base_url}/collect/p.gif?{event}` */
export const COLLECT_PIXEL_PATH = `${COLLECT_PATH}/${PIXEL_FILE}` as const;

/** The most events one batch may hold (the tracker sends at most 10). */
export const MAX_BATCH_EVENTS = 50;
/** The most bytes one batch body may have. */
export const MAX_BATCH_BYTES = 64 * 1024;
/** The longest value of one event field. */
export const MAX_FIELD_LENGTH = 8192;

/** The wire format version (`v`). */
export const WIRE_VERSION = '1';
/** Event kinds (`k`). */
export const PAGE_VIEW = '1';
export const CUSTOM_EVENT = '3';

/** One event on the wire. Every value is a string; names are the anchor's pixel parameters. */
export interface WireEvent {
  /** Event id: 32 lower-case hex, unique per event; the deduplication key. Always. */
  eid: string;
  /** Kind: `1` page view, `3` custom event. Always. */
  k: string;
  /** Portal id (digits). Always. */
  a: string;
  /** Wire format version, `1`. */
  v?: string;
  /** Client time, ms since the epoch (digits). Always. */
  cts: string;
  /** Page URL. */
  pu?: string;
  /** Document title. */
  t?: string;
  /** Browser language, e.g. `en-GB`. */
  ln?: string;
  /** The visitor's utk; with cookies allowed. */
  vi?: string;
  /** The raw `__svctc` value; with cookies allowed. */
  u?: string;
  /** The raw `__svcsc` value; with cookies allowed. */
  b?: string;
  /** `1` when this send created the utk (new visitor), else `0`; with cookies allowed. */
  nc?: string;
  /** `false`: sent without identifiers (declined or cookieless). */
  ce?: string;
  /** `identify` properties as a URL-encoded form string; first send after `identify`. */
  i?: string;
  /** Page path (or the `setPath` value); page views. */
  po?: string;
  /** Previous path; page views after a `setPath` or SPA navigation. */
  rpo?: string;
  /** Referrer; page views: `document.referrer` for the page's first view (empty when the
   * browser gives none: `""`); for a single-page-app navigation, the URL before it, one of the
   * site's own (attribution counts those as internal, not as a source). */
  r?: string;
  /** Content type; page views after `setContentType`. */
  ct?: string;
  /** Custom event id or name; required for `k=3`. */
  n?: string;
  /** Custom event value, a decimal number; `k=3`, when given. */
  m?: string;
  /** `_<name>`: custom event property `<name>`; any other field is kept as sent. */
  [field: string]: string | undefined;
}

/** A custom event's property `<name>` travels as the field `_<name>`. */
export const PROPERTY_PREFIX = '_';

/** A custom event's own properties (the `_<name>` fields of a wire event, checked or not), by name. */
export function eventProperties(e: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [field, value] of Object.entries(e))
    if (field.startsWith(PROPERTY_PREFIX) && field.length > 1 && value !== undefined) out[field.slice(1)] = value;
  return out;
}

/** An event that passed {@link checkWireEvent}, or the problem with it (names the field). */
export type WireCheck = { ok: true; event: WireEvent } | { ok: false; problem: string };

const DIGITS = /^\d{1,15}$/;
const NUMBER = /^-?\d+(\.\d+)?$/;

/** The collector's check of one event as received (a parsed JSON object or query parameters). */
export function checkWireEvent(raw: unknown): WireCheck {
  const no = (problem: string): WireCheck => ({ ok: false, problem });
  if (typeof raw != 'object' || raw === null || Array.isArray(raw)) return no('must be an object');
  for (const [key, value] of Object.entries(raw)) {
    if (typeof value != 'string') return no(`"${key}" must be a string`);
    if (value.length > MAX_FIELD_LENGTH) return no(`"${key}" is longer than ${MAX_FIELD_LENGTH} characters`);
  }
  const e = raw as WireEvent;
  if (!UTK_PATTERN.test(e.eid ?? '')) return no('"eid" must be 32 lower-case hex characters');
  if (e.k != PAGE_VIEW && e.k != CUSTOM_EVENT) return no('"k" must be "1" (page view) or "3" (custom event)');
  if (!DIGITS.test(e.a ?? '')) return no('"a" must be a portal id');
  if (!DIGITS.test(e.cts ?? '')) return no('"cts" must be a timestamp in milliseconds');
  if (e.k == CUSTOM_EVENT && !e.n) return no('"n" (the event id or name) is required for a custom event');
  if (e.m !== undefined && !NUMBER.test(e.m)) return no('"m" must be a number');
  if (e.vi !== undefined && !UTK_PATTERN.test(e.vi)) return no('"vi" must be a visitor token (32 hex)');
  return { ok: true, event: e };
}
