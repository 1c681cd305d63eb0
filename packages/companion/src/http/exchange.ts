/** What every route sees and gives back, whichever door the request came through (the Express
 * router or the fetch handler): a `CoreRequest` in, a `Reply` out. The doors (src/doors/) translate
 * to and from their framework; nothing below them knows Express or `Request`/`Response`, so each
 * route is written once. */
import { createHash } from 'node:crypto';
import { parse } from 'cookie';

export type Cookies = Readonly<Record<string, string | undefined>>;

export interface CoreRequest {
  /** Upper case: GET, HEAD, POST, PUT, OPTIONS, ... */
  readonly method: string;
  /** The path below the companion's mount, as sent (still percent-encoded), e.g. `/forms/abc`. */
  readonly path: string;
  /** False when the request is not under the mount (the fetch door's `basePath`): a 404. */
  readonly mounted: boolean;
  /** The query string with its `?`, or ``. */
  readonly search: string;
  /** The whole URL the client called (scheme, host, mount, path, query). */
  readonly url: string;
  /** The client's address, for the rate limit and the collector; undefined when unknown. */
  readonly ip: string | undefined;
  /** Whether the browser reached the site over https (the re-issued cookie's `Secure`). */
  readonly secure: boolean;
  /** A header by its lower-case name; undefined when absent. */
  header(name: string): string | undefined;
  /** The cookies, parsed once. */
  cookies(): Cookies;
  /** The body's bytes as sent (Content-Encoding not undone yet), up to `limit`, else a 413. */
  rawBody(limit: number): Promise<Uint8Array>;
  /** A body the host app already parsed (a body parser of its own in front), if any. */
  readonly parsedBody?: unknown;
}

/** Header names in lower case; `set-cookie` may repeat. */
export type ReplyHeaders = Record<string, string | string[]>;

export interface Reply {
  status: number;
  headers: ReplyHeaders;
  /** None for 204, 304 and HEAD (the doors leave it out). */
  body?: string | Uint8Array;
}

export const JSON_TYPE = 'application/json; charset=utf-8';

export const json = (status: number, body: unknown, headers: ReplyHeaders = {}): Reply => ({
  status,
  headers: { 'content-type': JSON_TYPE, ...headers },
  body: JSON.stringify(body),
});

/** One person's answer: never stored by anyone, and different per cookie. */
export const privateJson = (body: unknown): Reply =>
  json(200, body, { 'cache-control': 'private, no-store', vary: 'Cookie' });

/** The companion's error body, the one shape every failure has. */
export const errorReply = (status: number, message: string, headers: ReplyHeaders = {}) =>
  json(status, { status: 'error', message }, headers);

export const parseCookies = (header: string | undefined): Cookies => (header ? parse(header) : {});

/** A weak validator of a body, as Express makes them (`W/"<length>-<sha1>"`). */
export function etagOf(body: string | Uint8Array) {
  const hash = createHash('sha1').update(body).digest('base64').slice(0, 27);
  return `W/"${(typeof body == 'string' ? Buffer.byteLength(body) : body.length).toString(16)}-${hash}"`;
}

/** The browser's copy is current: `If-None-Match` names `etag` (weakly compared) and the request
 * does not ask to skip caches. */
export function notModified(req: CoreRequest, etag: string) {
  const match = req.header('if-none-match');
  if (!match || /(?:^|,)\s*no-cache\s*(?:,|$)/.test(req.header('cache-control') ?? '')) return false;
  const plain = etag.replace(/^W\//, '');
  return match.trim() == '*' || match.split(',').some((tag) => tag.trim().replace(/^W\//, '') == plain);
}

/** A cacheable answer with its validator: 304 without a body when the browser's copy is current. */
export function cacheable(
  req: CoreRequest,
  reply: Reply & { body: string | Uint8Array },
  etag = etagOf(reply.body),
): Reply {
  const headers = { ...reply.headers, etag };
  return notModified(req, etag) ? { status: 304, headers } : { ...reply, headers };
}

/** Header sets layered in order, later ones winning, except that `vary` and `set-cookie` add up. */
export function mergeHeaders(...layers: (ReplyHeaders | undefined)[]): ReplyHeaders {
  const out: ReplyHeaders = {};
  for (const layer of layers) {
    if (!layer) continue;
    for (const [name, value] of Object.entries(layer)) {
      const before = out[name];
      if (before !== undefined && name == 'vary') out.vary = `${String(before)}, ${String(value)}`;
      else if (before !== undefined && name == 'set-cookie') out[name] = [before, value].flat();
      else out[name] = value;
    }
  }
  return out;
}
