/** The visitor's identity as the browser sends it: the tracker's `svcutk` cookie (a utk, see
 * @svc/protocol) and its consent cookie. Anything else is an unknown visitor, never an error. */
import { isUtk, OPT_OUT_COOKIE, OPTED_OUT, UTK_COOKIE } from '@svc/protocol';
import { parse } from 'cookie';
import type { Request } from 'express';

/** The request's cookies, parsed once per request (the host may have parsed them already). */
export function cookies(req: Request): Record<string, string | undefined> {
  const r = req as Request & { cookies?: Record<string, string | undefined>; svcCookies?: Record<string, string | undefined> };
  if (r.svcCookies) return r.svcCookies;
  const header = req.headers.cookie;
  r.svcCookies = header ? parse(header) : {};
  return r.svcCookies;
}

/** The visitor's utk, or undefined when missing, malformed, or the visitor opted out. */
export function visitorUtk(req: Request): string | undefined {
  const c = cookies(req);
  if (optedOut(req)) return undefined;
  const utk = c[UTK_COOKIE];
  return isUtk(utk) ? utk : undefined;
}

/** The tracker's consent cookie says no (`__svc_opt_out=yes`). */
export const optedOut = (req: Request) => cookies(req)[OPT_OUT_COOKIE] == OPTED_OUT;
