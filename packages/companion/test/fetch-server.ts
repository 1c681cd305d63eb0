/** The fetch handler served over HTTP the plainest way: a `node:http` server that builds Node's own
 * `Request` from each request, calls the handler with the socket's address, and writes the
 * `Response` back — what a framework's adapter does, without a framework. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FetchHandler } from '../src/fetch';

/** Runs before the handler; true when it answered the request itself. */
export type Before = (req: IncomingMessage, res: ServerResponse) => boolean;

/** Node's request body as a web stream. Cancelled (the companion refuses a body past its limit),
 * the rest is still read and dropped, so that the answer goes out on a clean connection. */
function bodyStream(req: IncomingMessage) {
  let open = true;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      req.on('data', (chunk: Buffer) => open && controller.enqueue(new Uint8Array(chunk)));
      req.on('end', () => open && ((open = false), controller.close()));
      req.on('error', (e) => open && ((open = false), controller.error(e)));
    },
    cancel() {
      open = false;
      req.resume();
    },
  });
}

export function toRequest(req: IncomingMessage): Request {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
  const body = req.method == 'GET' || req.method == 'HEAD' ? undefined : bodyStream(req);
  return new Request(`http://${req.headers.host}${req.url}`, {
    method: req.method,
    headers,
    body,
    duplex: 'half',
  } as RequestInit);
}

export async function writeResponse(res: ServerResponse, response: Response) {
  res.statusCode = response.status;
  for (const [name, value] of response.headers) if (name != 'set-cookie') res.setHeader(name, value);
  const cookies = response.headers.getSetCookie();
  if (cookies.length) res.setHeader('set-cookie', cookies);
  res.end(response.body ? Buffer.from(await response.arrayBuffer()) : undefined);
}

export async function serveFetch(handler: FetchHandler, before?: Before): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    if (before?.(req, res)) return;
    handler(toRequest(req), { clientAddress: req.socket.remoteAddress })
      .then((response) => writeResponse(res, response))
      .catch((e: unknown) => {
        // The handler must never throw: make it loud.
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`the fetch handler threw: ${String(e)}`);
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
