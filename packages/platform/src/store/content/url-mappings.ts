/** URL mappings (§4.8) as the site server applies them, following the real API's fields: a request
 * whose path (or, with `is_match_full_url`, whole URL; with `is_match_query_string`, its query too)
 * is a mapping's `route_prefix` is redirected to its `destination` with `redirect_style` (301 or
 * 302), the request's query string carried over unless the mapping matched on it. When several match, the lowest `precedence` wins (then the oldest). A mapping with
 * `is_only_after_not_found` applies only where no published post or page lives; the others win over
 * one. A trailing slash is not significant. Deleted mappings are never passed in. */
import type { Record_ } from './collections';

/** A request to a portal's site, as mappings compare it. */
export interface SiteRequest {
  /** The path inside the site (`/old-page`), decoded. */
  path: string;
  /** The query string without `?` ('' for none). */
  query: string;
  /** The site's root as the public reaches it (`https://svc.example.com/sites/62515`). */
  root: string;
}

export interface Redirect {
  status: 301 | 302;
  location: string;
}

const isTrue = (v: unknown) => v === true || v === 'true';
const withoutTrailingSlash = (s: string) => (s.length > 1 && s.endsWith('/') ? s.slice(0, -1) : s);

/** `route_prefix` as it is compared: a path gets its leading slash; a trailing one is dropped. */
function normalPrefix(mapping: Record_) {
  const raw = String(mapping.route_prefix ?? '');
  const cut = raw.indexOf('?');
  let path = cut < 0 ? raw : raw.slice(0, cut);
  if (!isTrue(mapping.is_match_full_url) && !path.startsWith('/')) path = `/${path}`;
  return withoutTrailingSlash(path) + (cut < 0 ? '' : raw.slice(cut));
}

/** What of the request a mapping compares its route_prefix with. */
function requested(mapping: Record_, req: SiteRequest) {
  const where = withoutTrailingSlash(isTrue(mapping.is_match_full_url) ? `${req.root}${req.path}` : req.path);
  return isTrue(mapping.is_match_query_string) && req.query ? `${where}?${req.query}` : where;
}

/** Lowest precedence first; the older mapping on a tie. */
const byPrecedence = (a: Record_, b: Record_) =>
  Number(a.precedence ?? 0) - Number(b.precedence ?? 0) || Number(a.id) - Number(b.id);

/** A destination that is a URL is used as it is; a path is inside the site, as a mapping's own
 * route_prefix is (the site lives under `root`, not at the host's root). */
function locationOf(destination: string, root: string) {
  return /^([a-z][a-z\d+.-]*:|\/\/)/i.test(destination) ? destination : `${root}/${destination.replace(/^\/+/, '')}`;
}

/** The redirect the request gets, if any; `pageExists` says whether a live post or page is there. */
export function redirectFor(mappings: Record_[], req: SiteRequest, pageExists: boolean): Redirect | undefined {
  const winner = mappings
    .filter((m) => normalPrefix(m) == requested(m, req) && !(pageExists && isTrue(m.is_only_after_not_found)))
    .sort(byPrecedence)[0];
  if (!winner) return undefined;
  const location = locationOf(String(winner.destination ?? ''), req.root);
  // The request's query goes along (a campaign link's utm_… keep telling where the visit came
  // from), unless the mapping matched on it: then the destination is all there is.
  const carried = req.query && !isTrue(winner.is_match_query_string) ? withQuery(location, req.query) : location;
  return { status: Number(winner.redirect_style) == 302 ? 302 : 301, location: carried };
}

/** `url` with `query` added to its own (before its fragment). */
function withQuery(url: string, query: string) {
  const hash = url.indexOf('#');
  const [base, fragment] = hash < 0 ? [url, ''] : [url.slice(0, hash), url.slice(hash)];
  return `${base}${base.includes('?') ? '&' : '?'}${query}${fragment}`;
}
