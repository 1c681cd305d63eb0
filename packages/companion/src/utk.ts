/** The visitor's identity as the browser sends it: the tracker's `svcutk` cookie (a utk, see
 * @svc/protocol) and its consent cookie. Anything else is an unknown visitor, never an error. */
import { isUtk, OPT_OUT_COOKIE, OPTED_OUT, UTK_COOKIE } from '@svc/protocol';

type Cookies = Readonly<Record<string, string | undefined>>;

/** The tracker's consent cookie says no (`__svc_opt_out=yes`). */
export const optedOut = (cookies: Cookies) => cookies[OPT_OUT_COOKIE] == OPTED_OUT;

/** The visitor's utk, or undefined when missing, malformed, or the visitor opted out. */
export function visitorUtk(cookies: Cookies): string | undefined {
  if (optedOut(cookies)) return undefined;
  const utk = cookies[UTK_COOKIE];
  return isUtk(utk) ? utk : undefined;
}
