/** `getVisitor(cookies)` for a page rendered on the server, without the companion at hand: it asks
 * the companion created last in this process (and not closed) — the one a site creates once in a
 * module of its own — so that a server component needs only the import. With several companions,
 * call `companion.getVisitor(cookies)` on the one meant, or pass it as the second argument. */
import type { CookieSource, VisitorAnswer } from './visitor';

/** What of a companion this asks (the core registers itself; no import of it, so no circle). */
interface VisitorSource {
  getVisitor(cookies: CookieSource): Promise<VisitorAnswer>;
}

const open: VisitorSource[] = [];

/** Called by the core: a new companion is the one `getVisitor` asks from now on. */
export function remember(companion: VisitorSource) {
  open.push(companion);
}

/** Called on close: the one created before it (if still open) is asked again. */
export function forget(companion: VisitorSource) {
  const i = open.lastIndexOf(companion);
  if (i >= 0) open.splice(i, 1);
}

/** What `GET /visitor` answers for these cookies (the `Cookie` header, or a store such as Next.js's
 * `cookies()`), from the same cache: `{known: false}` or `{known: true, vid, properties}`. */
export async function getVisitor(cookies: CookieSource, companion?: VisitorSource): Promise<VisitorAnswer> {
  const asked = companion ?? open.at(-1);
  if (!asked)
    throw new TypeError('getVisitor: no companion in this process: create one with createCompanion(options) first');
  return asked.getVisitor(cookies);
}
