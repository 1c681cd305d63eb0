/** Finds a request's route by method and path, as Express's router would: literal parts compared
 * without regard to case, a trailing slash allowed, HEAD answered by the GET route, and `:name`
 * parameters percent-decoded only for the route that matched. A parameter that does not decode is a
 * 400 that names it. */
import type { CoreRequest, Reply } from './exchange';
import { HttpError } from './errors';

export type Params = Record<string, string>;
export type Handler = (req: CoreRequest, params: Params) => Reply | Promise<Reply>;

export interface Route {
  method: 'GET' | 'POST' | 'PUT';
  /** `/visitor`, `/forms/:guid`, `/:script.:hash.js` */
  path: string;
  handler: Handler;
}

interface Compiled {
  route: Route;
  pattern: RegExp;
  names: string[];
}

/** `/forms/:guid` → /^\/forms\/([^/]+)\/?$/i; a parameter followed by a dot stops at dots. */
function compile(route: Route): Compiled {
  const names: string[] = [];
  const source = route.path.replace(/:(\w+)(\.)?|[^:]+/g, (part, name: string | undefined, dot: string | undefined) => {
    if (!name) return part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    names.push(name);
    return dot ? '([^/.]+)\\.' : '([^/]+)';
  });
  return { route, names, pattern: new RegExp(`^${source}\\/?$`, 'i') };
}

function decode(name: string, value: string) {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new HttpError(400, `the path parameter ${name} is not valid percent-encoding`);
  }
}

export function router(routes: Route[]) {
  // Paths without parameters, looked up directly: the hot routes (/visitor) cost one Map lookup.
  const exact = new Map<string, Route>();
  const patterns: Compiled[] = [];
  for (const route of routes) {
    if (route.path.includes(':')) patterns.push(compile(route));
    else exact.set(`${route.method} ${route.path.toLowerCase()}`, route);
  }

  /** The route for `req` and its decoded parameters; undefined when there is none. */
  return function match(req: CoreRequest): { handler: Handler; params: Params } | undefined {
    const method = req.method == 'HEAD' ? 'GET' : req.method;
    const path = req.path.length > 1 && req.path.endsWith('/') ? req.path.slice(0, -1) : req.path;
    const direct = exact.get(`${method} ${path.toLowerCase()}`);
    if (direct) return { handler: direct.handler, params: {} };
    for (const c of patterns) {
      if (c.route.method != method) continue;
      const m = c.pattern.exec(req.path);
      if (!m) continue;
      const params: Params = {};
      c.names.forEach((name, i) => (params[name] = decode(name, m[i + 1])));
      return { handler: c.route.handler, params };
    }
    return undefined;
  };
}
