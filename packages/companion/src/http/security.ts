/** The middleware every companion route sits behind: security headers (helmet), CORS for an
 * allow-list of origins with credentials (never `*`), and a per-IP rate limit. All inside the
 * router, so the host app is not affected. */
import cors from 'cors';
import type { RequestHandler } from 'express';
import { rateLimit, type Store } from 'express-rate-limit';
import helmet, { type HelmetOptions } from 'helmet';

export function checkOrigins(origins: string[]) {
  for (const o of origins) {
    if (o == '*') throw new TypeError('allowedOrigins cannot contain "*": the companion answers with credentials; list the origins');
    let url: URL;
    try {
      url = new URL(o);
    } catch {
      throw new TypeError(`allowedOrigins: "${o}" is not an origin such as https://www.example.com`);
    }
    if (url.origin != o.replace(/\/$/, '')) throw new TypeError(`allowedOrigins: "${o}" must be an origin (scheme, host, port), without a path`);
  }
  return new Set(origins.map((o) => o.replace(/\/$/, '')));
}

export function security(o: {
  allowedOrigins: Set<string>;
  helmet: HelmetOptions | false;
  /** `store`: where the counts live (default in memory; shared mode: Redis, so the limit holds across instances). */
  rateLimit: { limit: number; windowMs: number; store?: Store } | false;
}): RequestHandler[] {
  const out: RequestHandler[] = [];
  if (o.helmet !== false) out.push(helmet(o.helmet));
  out.push(
    cors({
      origin: (origin, cb) => cb(null, origin !== undefined && o.allowedOrigins.has(origin) ? origin : false),
      credentials: true,
      methods: ['GET', 'HEAD', 'PUT', 'POST'],
      allowedHeaders: ['content-type', 'x-csrf-token'],
      maxAge: 600,
    }),
  );
  if (o.rateLimit !== false)
    out.push(
      rateLimit({
        windowMs: o.rateLimit.windowMs,
        limit: o.rateLimit.limit,
        // draft-7 headers (RateLimit, RateLimit-Policy): draft-8 hashes the key on every request, ~10 % of a cached lookup.
        standardHeaders: 'draft-7',
        legacyHeaders: false,
        store: o.rateLimit.store,
        // Redis down: serve without the limit rather than refuse everything (scripts, the collector);
        // the routes that need Redis answer 503 on their own. The outage is logged once by the connection.
        ...(o.rateLimit.store && { passOnStoreError: true, logger: { error: () => undefined, warn: () => undefined } }),
        handler: (_req, res) => {
          res.status(429).json({ status: 'error', message: 'too many requests from this address; slow down' });
        },
      }),
    );
  return out;
}
