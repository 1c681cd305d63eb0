// The peer of bench/platform.mjs: a collector that speaks the tracker's wire format
// (packages/tracker/README.md) and stores nothing, served by plain node:http. Run in a child
// process: `node bench/echo-collector.mjs` prints "listening <port>" on stderr.
import http from 'node:http';
import { pathToFileURL } from 'node:url';
import {
  checkWireEvent,
  COLLECT_BATCH_PATH,
  COLLECT_PATH,
  COLLECT_PIXEL_PATH,
  MAX_BATCH_BYTES as MAX_BODY,
  MAX_BATCH_EVENTS as MAX_BATCH,
} from '../packages/protocol/dist/index.js';

export function createEchoCollectorServer() {
  const collector = createDevEchoCollector();
  return http.createServer((req, res) => {
    const { pathname } = new URL(req.url, 'http://localhost');
    if (pathname.startsWith(COLLECT_PATH + '/')) return collector(req, res, pathname);
    res.writeHead(404).end();
  });
}

// ---------------------------------------------------------------------------------------------
// An in-memory echo collector: validates, de-duplicates and remembers events, stores nothing.
// bench:platform measures it beside the platform's collector as the no-storage ceiling.
//
//   POST /collect/e       body: JSON array of 1..50 events (text/plain or application/json)
//                         → 200 {accepted, duplicates, rejected: [{eid, message}]}
//   GET  /collect/p.gif   one event as query parameters → 1x1 transparent GIF (also for duplicates)
//   GET  /collect/recent  the last 200 accepted events, newest last (for the demo page's panel)
//
// An event is checked by @svc/protocol's checkWireEvent, the same check as the platform's.
// ---------------------------------------------------------------------------------------------

const SEEN_EIDS = 10_000;
const RECENT = 200;
const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
  'Access-Control-Allow-Headers': 'Content-Type',
  'Access-Control-Max-Age': '86400',
};

class InvalidEvent extends Error {}

function createDevEchoCollector() {
  /** The last SEEN_EIDS event ids, oldest first (a Set keeps insertion order). */
  const seen = new Set();
  /** The last RECENT accepted events, oldest first. */
  const recent = [];

  /** Logs and remembers the event unless its eid was seen before; true when accepted. */
  const accept = (event) => {
    if (seen.has(event.eid)) {
      return false;
    }
    seen.add(event.eid);
    if (seen.size > SEEN_EIDS) seen.delete(seen.values().next().value);
    recent.push(event);
    if (recent.length > RECENT) recent.shift();
    return true;
  };

  return async (req, res, pathname) => {
    for (const [name, value] of Object.entries(CORS)) res.setHeader(name, value);
    const route = `${req.method} ${pathname}`;
    try {
      if (req.method === 'OPTIONS' && (pathname === COLLECT_BATCH_PATH || pathname === COLLECT_PIXEL_PATH)) {
        res.writeHead(204);
        return res.end();
      }
      if (route === `POST ${COLLECT_BATCH_PATH}`) {
        // A bad body is a 400; within a good one, invalid events are rejected one by one so the
        // valid ones are kept (the tracker drops a batch answered 400).
        const result = { accepted: 0, duplicates: 0, rejected: [] };
        for (const [i, event] of parseBatch(await readBody(req), req.headers['content-type']).entries()) {
          try {
            if (accept(checkEvent(event, `event ${i}`))) result.accepted++;
            else result.duplicates++;
          } catch (err) {
            if (!(err instanceof InvalidEvent)) throw err;
            result.rejected.push({ eid: event?.eid, message: err.message });
          }
        }
        return sendJson(res, 200, result);
      }
      if (route === `GET ${COLLECT_PIXEL_PATH}` || route === `HEAD ${COLLECT_PIXEL_PATH}`) {
        const query = new URL(req.url, 'http://localhost').searchParams;
        accept(checkEvent(Object.fromEntries(query), 'query'));
        res.writeHead(200, { 'Content-Type': 'image/gif', 'Content-Length': GIF.length, 'Cache-Control': 'no-store' });
        return res.end(GIF);
      }
      if (route === `GET ${COLLECT_PATH}/recent`) {
        return sendJson(res, 200, recent);
      }
      const known = [COLLECT_BATCH_PATH, COLLECT_PIXEL_PATH, `${COLLECT_PATH}/recent`].includes(pathname);
      sendJson(res, known ? 405 : 404, {
        status: 'error',
        message: known ? `${req.method} not allowed` : 'no such endpoint',
      });
    } catch (err) {
      if (res.headersSent) return;
      // An unread (oversized) body is not worth keeping the connection for.
      if (!req.complete) res.setHeader('Connection', 'close');
      if (err instanceof InvalidEvent) return sendJson(res, 400, { status: 'error', message: err.message });
      console.error('dev echo collector:', err);
      sendJson(res, 500, { status: 'error', message: 'internal error' });
    }
  };
}

/** The request body as text, at most MAX_BODY bytes. */
function readBody(req) {
  return new Promise((resolve, reject) => {
    const tooLarge = () => new InvalidEvent(`body exceeds ${MAX_BODY / 1024} KB`);
    if (+req.headers['content-length'] > MAX_BODY) return reject(tooLarge());
    const chunks = [];
    let size = 0;
    const onData = (chunk) => {
      size += chunk.length;
      if (size <= MAX_BODY) return chunks.push(chunk);
      // Stop collecting; Node discards the rest and closes the connection after the answer.
      req.off('data', onData);
      reject(tooLarge());
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** The (unchecked) events of a POST body; throws InvalidEvent when it is not a batch. */
function parseBatch(text, contentType = 'text/plain') {
  const type = contentType.split(';')[0].trim().toLowerCase();
  if (type !== 'text/plain' && type !== 'application/json') {
    throw new InvalidEvent(`content-type must be text/plain or application/json, not ${type}`);
  }
  let batch;
  try {
    batch = JSON.parse(text);
  } catch {
    throw new InvalidEvent('body is not valid JSON');
  }
  if (!Array.isArray(batch)) throw new InvalidEvent('body must be a JSON array of events');
  if (batch.length < 1 || batch.length > MAX_BATCH) {
    throw new InvalidEvent(`a batch holds 1 to ${MAX_BATCH} events, got ${batch.length}`);
  }
  return batch;
}

/** Returns the event when it is valid; throws InvalidEvent naming the problem otherwise. */
function checkEvent(event, where) {
  const checked = checkWireEvent(event);
  if (!checked.ok) throw new InvalidEvent(`${where}: ${checked.problem}`);
  return checked.event;
}

function sendJson(res, status, body) {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(JSON.stringify(body));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = createEchoCollectorServer().listen(0, '127.0.0.1', () =>
    console.error(`listening ${server.address().port}`),
  );
}
