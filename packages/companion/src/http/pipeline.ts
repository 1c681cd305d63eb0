/** One request through the companion, whichever door it came in by: CORS (a preflight is answered
 * here), the route rate limit, the route, and any error turned into the JSON error body. Every
 * answer, errors and 429s included, carries the security headers and, for an allowed origin, the
 * CORS headers; the route's own headers win over them (a script's `Cross-Origin-Resource-Policy`). */
import type { Logger } from 'pino';
import { mergeHeaders, type CoreRequest, type Reply, type ReplyHeaders } from './exchange';
import { HttpError, replyForError } from './errors';
import type { Handler, Params } from './router';
import type { CorsAnswer, SecurityHeaders } from './security';

/** Counts a request from an address: its headers, and the 429 once past the limit (rate-limit.ts). */
export type RateLimit = (ip: string | undefined) => Promise<{ headers: ReplyHeaders; refused?: Reply } | undefined>;

export interface PipelineOptions {
  security: SecurityHeaders;
  cors: (req: CoreRequest) => CorsAnswer | undefined;
  /** Undefined when the limit is off. */
  rateLimit: RateLimit | undefined;
  match: (req: CoreRequest) => { handler: Handler; params: Params } | undefined;
  logger: Logger | undefined;
}

export type Handle = (req: CoreRequest) => Promise<Reply>;

export function pipeline(o: PipelineOptions): Handle {
  const route = (req: CoreRequest) => {
    const found = req.mounted ? o.match(req) : undefined;
    if (!found) throw new HttpError(404, `no companion route ${req.method} ${req.path.slice(0, 100)}`);
    return found.handler(req, found.params);
  };

  return async function handle(req) {
    const cors = o.cors(req);
    if (cors?.preflight) return { status: cors.preflight, headers: mergeHeaders(o.security.set, cors.headers) };
    let counted: Awaited<ReturnType<RateLimit>> = undefined;
    let reply: Reply;
    try {
      counted = await o.rateLimit?.(req.ip);
      reply = counted?.refused ?? (await route(req));
    } catch (e) {
      reply = replyForError(e, o.logger);
    }
    return { ...reply, headers: mergeHeaders(o.security.set, cors?.headers, counted?.headers, reply.headers) };
  };
}
