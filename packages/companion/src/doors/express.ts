/** The Express door: the companion as middleware to mount in an Express 4 or 5 app
 * (`app.use('/svc', companion)`), or to call from a plain `node:http` server. It turns Node's
 * request into the core's and writes the core's answer; everything else is the core's.
 *
 * From Express it takes what the host app decided: the path below the mount, and the address and
 * scheme as its `trust proxy` setting reads them (`req.ip`, `req.protocol`). Nothing here imports
 * Express, so a site without it can use the fetch door alone. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { CompanionCore } from '../companion';
import { tooLarge } from '../http/body';
import { HttpError } from '../http/errors';
import { parseCookies, type Cookies, type CoreRequest, type Reply } from '../http/exchange';

/** Middleware: `(req, res, next)`. Express passes its own request and response, which are Node's. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => void;

/** What Express adds to Node's request, when it is there. */
type MaybeExpress = IncomingMessage & {
  originalUrl?: string;
  ip?: string;
  protocol?: string;
  body?: unknown;
  _body?: boolean;
};

/** The body's bytes, at most `limit`. Past the limit the rest is still read (and dropped) before the
 * 413, as Express's body parsers do: the answer then reaches the client on a clean connection. A body
 * a host app's own parser took already is used as it left it. */
function readBody(req: MaybeExpress, limit: number): Promise<Uint8Array> {
  if (req._body || req.readableEnded) {
    const b = req.body;
    return Promise.resolve(Buffer.isBuffer(b) ? b : typeof b == 'string' ? Buffer.from(b) : Buffer.alloc(0));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = Number(req.headers['content-length']) > limit;
    const onData = (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > limit) over = true;
      else chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      if (over) reject(tooLarge());
      else resolve(Buffer.concat(chunks, size));
    };
    const onAbort = () => {
      done();
      reject(new HttpError(400, 'the request was aborted'));
    };
    const done = () => req.off('data', onData).off('end', onEnd).off('error', onAbort).off('close', onAbort);
    req.on('data', onData).on('end', onEnd).on('error', onAbort).on('close', onAbort);
  });
}

class NodeRequest implements CoreRequest {
  readonly method: string;
  readonly path: string;
  readonly search: string;
  readonly mounted = true;
  private jar?: Cookies;

  constructor(private readonly req: MaybeExpress) {
    this.method = req.method ?? 'GET';
    // Express gives the path below the mount in `url` (the whole one in `originalUrl`).
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    this.path = q < 0 ? url : url.slice(0, q);
    this.search = q < 0 ? '' : url.slice(q);
  }

  get url() {
    const scheme = this.req.protocol ?? ((this.req.socket as TLSSocket).encrypted ? 'https' : 'http');
    return `${scheme}://${this.req.headers.host ?? ''}${this.req.originalUrl ?? this.req.url ?? ''}`;
  }
  get ip() {
    return 'ip' in this.req ? this.req.ip : this.req.socket.remoteAddress;
  }
  get secure() {
    return (this.req.protocol ?? ((this.req.socket as TLSSocket).encrypted ? 'https' : 'http')) == 'https';
  }
  get parsedBody() {
    return this.req._body ? this.req.body : undefined;
  }
  header(name: string) {
    const value = this.req.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  }
  cookies() {
    return (this.jar ??= parseCookies(this.header('cookie')));
  }
  rawBody(limit: number) {
    return readBody(this.req, limit);
  }
}

/** Writes the core's answer. `vary` and `set-cookie` add to what the host app set already. */
function write(res: ServerResponse, reply: Reply, remove: string[]) {
  for (const name of remove) res.removeHeader(name);
  for (const [name, value] of Object.entries(reply.headers)) {
    const before = name == 'vary' || name == 'set-cookie' ? res.getHeader(name) : undefined;
    if (before === undefined) res.setHeader(name, value);
    else if (name == 'vary') res.setHeader(name, `${String(before)}, ${String(value)}`);
    else res.setHeader(name, [before, value].flat().map(String));
  }
  const body = reply.status == 204 || reply.status == 304 ? undefined : reply.body;
  if (body !== undefined)
    res.setHeader('content-length', typeof body == 'string' ? Buffer.byteLength(body) : body.length);
  res.statusCode = reply.status;
  res.end(body);
}

export function expressDoor(core: CompanionCore): NodeHandler {
  return function svcCompanion(req, res, next) {
    core.handle(new NodeRequest(req)).then(
      (reply) => (res.headersSent ? undefined : write(res, reply, core.removeHeaders)),
      // The pipeline answers every error itself; this is a last resort.
      (e: unknown) => (next ? next(e) : res.writableEnded || res.destroy()),
    );
  };
}
