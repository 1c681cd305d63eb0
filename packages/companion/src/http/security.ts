/** The headers every companion answer carries, through either door: security headers (helmet) and
 * CORS for an allow-list of origins with credentials (never `*`). Both libraries are Node
 * middleware; they run here against a small recorder of the headers they set, so the same
 * library code decides both doors' headers. helmet's headers do not depend on the request: they are
 * worked out once, at creation. */
import cors from 'cors';
import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';
import type { CoreRequest, ReplyHeaders } from './exchange';

export function checkOrigins(origins: readonly string[]) {
  for (const o of origins) {
    if (o == '*')
      throw new TypeError(
        'allowedOrigins cannot contain "*": the companion answers with credentials; list the origins',
      );
    let url: URL;
    try {
      url = new URL(o);
    } catch {
      throw new TypeError(`allowedOrigins: "${o}" is not an origin such as https://www.example.com`);
    }
    if (url.origin != o.replace(/\/$/, ''))
      throw new TypeError(`allowedOrigins: "${o}" must be an origin (scheme, host, port), without a path`);
  }
  return new Set(origins.map((o) => o.replace(/\/$/, '')));
}

/** What a Node middleware did to a response: the headers it set and removed, and whether it ended it. */
function recorder() {
  const set: ReplyHeaders = {};
  const removed: string[] = [];
  const res = {
    statusCode: 200,
    ended: false,
    setHeader: (name: string, value: string | number | readonly string[]) =>
      void (set[name.toLowerCase()] = typeof value == 'object' ? Array.from(value, String) : String(value)),
    getHeader: (name: string) => set[name.toLowerCase()],
    removeHeader: (name: string) => void (delete set[name.toLowerCase()], removed.push(name.toLowerCase())),
    end: () => void (res.ended = true),
  };
  return { res, set, removed };
}

export interface SecurityHeaders {
  set: ReplyHeaders;
  /** Headers a host app may have set that must go (helmet removes `X-Powered-By`). */
  remove: string[];
}

/** helmet's headers for `options`, once. Directives computed per request (functions, for nonces)
 * are refused: the companion's pages need none, and its headers are the same on every answer. */
export function securityHeaders(options: HelmetOptions | false): SecurityHeaders {
  if (options === false) return { set: {}, remove: [] };
  const directives =
    typeof options.contentSecurityPolicy == 'object' ? options.contentSecurityPolicy.directives : undefined;
  for (const [name, value] of Object.entries(directives ?? {}))
    if (typeof value == 'function' || (Array.isArray(value) && value.some((v) => typeof v == 'function')))
      throw new TypeError(
        `helmet: the directive ${name} is a function; the companion sends the same headers on every answer, give it a value`,
      );
  const { res, set, removed } = recorder();
  let failed: unknown;
  helmet(options)({} as IncomingMessage, res as unknown as ServerResponse, (e?: unknown) => void (failed = e));
  if (failed) throw new TypeError(`helmet: ${failed instanceof Error ? failed.message : 'its options are not valid'}`);
  return { set, remove: removed };
}

export interface CorsAnswer {
  headers: ReplyHeaders;
  /** A preflight (OPTIONS from an allowed origin): answered with these headers alone, `status`. */
  preflight?: number;
}

/** The `cors` package's answer to a request, for an allow-list of origins with credentials. */
export function corsFor(allowedOrigins: Set<string>) {
  const middleware = cors({
    origin: (origin, cb) => cb(null, origin !== undefined && allowedOrigins.has(origin) ? origin : false),
    credentials: true,
    methods: ['GET', 'HEAD', 'PUT', 'POST'],
    allowedHeaders: ['content-type', 'x-csrf-token'],
    maxAge: 600,
  });
  return (req: CoreRequest): CorsAnswer | undefined => {
    const origin = req.header('origin');
    // Without Origin (same-origin GETs, servers) cors sets nothing: skip the work.
    if (origin === undefined || !allowedOrigins.has(origin)) return undefined;
    const { res, set } = recorder();
    const headers = { origin, 'access-control-request-headers': req.header('access-control-request-headers') };
    middleware({ method: req.method, headers }, res, () => undefined);
    return res.ended ? { headers: set, preflight: res.statusCode } : { headers: set };
  };
}
