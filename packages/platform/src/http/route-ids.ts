/** Which catalog route a method and path are, found the way the Express routes find it
 * (http/router.ts: literal segments before parameters), for what looks at a request before
 * Express does: the admin API's fault rules and request journal (http/twin-front.ts). */
import { routes as catalogRoutes, type RouteDef } from '@svc/api';
import { match } from 'path-to-regexp';

/** Literal segments sort before parameters, so `/lists/static` wins over `/lists/:list_id`. */
const specificity = (path: string) =>
  path
    .split('/')
    .map((s) => (s.startsWith(':') ? '2' : s.includes(':') ? '1' : '0'))
    .join('');

export interface FoundRoute {
  id: string;
  params: Record<string, string>;
}

/** `find(method, path)`: the route of `host` a request is, with its raw path parameters. */
export function routeFinder(host: RouteDef['host']) {
  const mine = catalogRoutes
    .filter((r) => r.host == host)
    .sort((a, b) => specificity(a.path).localeCompare(specificity(b.path)))
    .map((r) => ({ id: r.id, method: r.method, test: match(r.path, { decode: false }) }));
  return function find(method: string | undefined, path: string): FoundRoute | undefined {
    // Express routes are case-insensitive by default; so is this.
    const lower = path.toLowerCase();
    for (const r of mine) {
      if (r.method != method) continue;
      const m = r.test(path) || r.test(lower);
      if (m) return { id: r.id, params: m.params as Record<string, string> };
    }
    return undefined;
  };
}

/** Every catalog route id (an admin fault rule names one). */
export const ROUTE_IDS: ReadonlySet<string> = new Set(catalogRoutes.map((r) => r.id));
