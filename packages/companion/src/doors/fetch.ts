/** The fetch door: the companion as a web-standard handler, `fetch(request) → Promise<Response>`,
 * for Next.js route handlers, Hono, Bun, Deno — anything that hands over a `Request`. It turns the
 * `Request` into the core's request and the core's answer into a `Response`; the routes, headers
 * and errors are the core's, the same as the Express door's.
 *
 * Two things a `Request` does not carry, and where they come from here:
 * - where the companion is mounted: the `basePath` option (default `/svc`);
 * - the client's address (the rate limit is per address): `context.clientAddress` when the server
 *   knows the socket (Hono on Node: `getConnInfo(c).remote.address`), else the last address of
 *   `X-Forwarded-For`, which the nearest proxy appends (Next.js's own server, Vercel, nginx). */
import type { CompanionCore } from '../companion';
import { tooLarge } from '../http/body';
import { HttpError } from '../http/errors';
import { parseCookies, type Cookies, type CoreRequest, type Reply } from '../http/exchange';

/** What the server passes along with the request; only `clientAddress` is read, anything else (a
 * Next.js route context) is ignored. Typed `unknown` so that the handler can be exported as a
 * Next.js route handler (`export const GET = companion.fetch`) as it is. */
export interface FetchContext {
  /** The client's address as the server saw it (the socket's peer). */
  clientAddress?: string;
}

export type FetchHandler = (request: Request, context?: unknown) => Promise<Response>;

/** The body's bytes, at most `limit` (a declared length past it is refused before reading). */
async function readBody(request: Request, limit: number): Promise<Uint8Array> {
  if (Number(request.headers.get('content-length')) > limit) {
    await request.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!request.body) return new Uint8Array(0);
  if (request.bodyUsed)
    throw new HttpError(500, 'the request body was read before the companion got the request: hand it over unread');
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let next: ReadableStreamReadResult<Uint8Array>;
    try {
      next = await reader.read();
    } catch {
      throw new HttpError(400, 'the request was aborted');
    }
    if (next.done) break;
    size += next.value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(next.value);
  }
  return Buffer.concat(chunks, size);
}

class FetchRequest implements CoreRequest {
  readonly method: string;
  readonly path: string;
  readonly mounted: boolean;
  readonly search: string;
  readonly url: string;
  readonly secure: boolean;
  private jar?: Cookies;

  constructor(
    private readonly request: Request,
    basePath: string,
    readonly ip: string | undefined,
  ) {
    const url = new URL(request.url);
    this.method = request.method.toUpperCase();
    this.url = request.url;
    this.search = url.search;
    this.secure = url.protocol == 'https:';
    // Mount paths match without regard to case, as Express's do.
    const path = url.pathname.toLowerCase();
    const base = basePath.toLowerCase();
    this.mounted = path == base || path.startsWith(`${base}/`);
    this.path = this.mounted ? url.pathname.slice(basePath.length) || '/' : url.pathname;
  }

  header(name: string) {
    return this.request.headers.get(name) ?? undefined;
  }
  cookies() {
    return (this.jar ??= parseCookies(this.header('cookie')));
  }
  rawBody(limit: number) {
    return readBody(this.request, limit);
  }
}

function toResponse(reply: Reply, method: string): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(reply.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  // 204 and 304 have no body (a Response with one would throw); HEAD sends the headers only.
  const empty = reply.body === undefined || reply.status == 204 || reply.status == 304 || method == 'HEAD';
  if (method == 'HEAD' && reply.body !== undefined)
    headers.set('content-length', String(Buffer.byteLength(reply.body)));
  return new Response(empty ? null : (reply.body as BodyInit), { status: reply.status, headers });
}

export function fetchDoor(core: CompanionCore): FetchHandler {
  let warned = false;
  const addressOf = (request: Request, context: unknown) => {
    const given = (context as FetchContext | null | undefined)?.clientAddress;
    if (typeof given == 'string' && given) return given;
    const forwarded = request.headers.get('x-forwarded-for')?.split(',').pop()?.trim();
    if (forwarded) return forwarded;
    if (!warned) {
      warned = true;
      core.logger?.warn(
        'the fetch handler cannot tell clients apart (no context.clientAddress, no X-Forwarded-For): the rate limit counts them as one; pass { clientAddress } as its second argument',
      );
    }
    return undefined;
  };
  return async function fetch(request, context) {
    const reply = await core.handle(new FetchRequest(request, core.basePath, addressOf(request, context)));
    return toResponse(reply, request.method);
  };
}
