/** The identity cookies: `svcutk`, the visitor cookie, the session cookies, do-not-track and the
 * consent decision. Formats follow the anchor's `__hstc`/`__hssc`/`__hssrc` (see README); the
 * names are @svc/protocol's, which the servers read too. */
import Cookies from 'js-cookie';
import {
  OPT_OUT_COOKIE as OPT_OUT,
  RESTART_COOKIE as RESTART,
  SESSION_COOKIE as SESSION,
  UTK_COOKIE as UTK,
  VISITOR_COOKIE as VISITOR,
} from '@svc/protocol';
import { isId, newId } from './ids';

/** Identifiers a send carries: utk, raw visitor and session cookies, new-visitor flag. */
export interface Ids {
  vi: string;
  u: string;
  b: string;
  nc: string;
}

let domain: string | undefined;
let days: number;
let hash: number;

/** Sets the cookie domain (`.example.com` for all subdomains) and the identity lifetime. */
export function configureCookies(cookieDomain: string | undefined, lifetimeDays: number) {
  domain = cookieDomain;
  days = lifetimeDays;
  hash = [...(domain || location.hostname)].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 1e9, 7);
}

/** A function, not `Cookies.get` itself: reading that property at load time would keep js-cookie
 * in bundles that import only {@link readUtk}. */
export const getCookie = (name: string): string | undefined => Cookies.get(name);

/** The visitor's `svcutk` when it is well-formed, else undefined. The form embed (@svc/forms)
 * imports this to send the token with submissions; it reads `document.cookie` itself (a utk is
 * plain hex, nothing to decode) so that the embed, which never writes a cookie, does not bundle
 * js-cookie. */
export const readUtk = (): string | undefined => {
  const utk = new RegExp(`(?:^|; )${UTK}=([^;]*)`).exec(document.cookie)?.[1];
  return isId(utk) ? utk : undefined;
};

/** Writes with the configured domain; falls back to host-only when the browser refuses it. */
export function setCookie(name: string, value: string, expires?: number) {
  // js-cookie adds `path=/` by default. A second round, host-only, when the domain did not stick.
  while (
    (Cookies.set(name, value, { expires, domain, sameSite: 'Lax', secure: location.protocol == 'https:' }),
    domain && getCookie(name) != value)
  )
    domain = undefined;
}

export function removeCookie(name: string) {
  Cookies.remove(name);
  if (domain) Cookies.remove(name, { domain });
}

/** Forgets the visitor: the next identified send creates a fresh utk. */
export const forgetVisitor = () => [UTK, VISITOR, SESSION, RESTART, OPT_OUT].forEach(removeCookie);

/** Reads or creates the identity, rolls the session over when it expired or the browser
 * restarted, counts a page view, and re-writes every identity cookie. */
export function visit(now: number, pageView: boolean): Ids {
  const v = (getCookie(VISITOR) || '').split('.');
  // svcutk first; the visitor cookie restores it when only that one survived.
  const found = [getCookie(UTK), v[1]].find(isId);
  const utk = found || newId();
  let [first, prev, cur, n] = v.slice(2).map(Number);
  let [, views, start] = (getCookie(SESSION) || '').split('.').map(Number);
  if (!(n > 0)) {
    first = prev = cur = now;
    n = 0;
  }
  if (!n || !getCookie(RESTART) || !(start > 0) || !(views >= 0)) {
    // (For a new visitor first, prev and cur are all `now` already.)
    prev = cur;
    cur = now;
    n++;
    views = 0;
    start = now;
  }
  if (pageView) views++;
  const u = [hash, utk, first, prev, cur, n].join('.');
  const b = [hash, views, start].join('.');
  setCookie(UTK, utk, days);
  setCookie(VISITOR, u, days);
  setCookie(SESSION, b, 1 / 48); // 30 minutes
  setCookie(RESTART, '1');
  return { vi: utk, u, b, nc: found ? '0' : '1' };
}
