/** The tracking collector, the wire format of packages/tracker/README.md:
 *   POST {base_url}/collect/e       JSON array of events (text/plain or application/json)
 *   GET  {base_url}/collect/p.gif   one event as query parameters → 1×1 GIF
 * Valid events of a batch are recorded even when others are rejected (the tracker drops a
 * batch answered 400); a batch whose every event needs a tier the portal lacks is a 403. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  checkWireEvent,
  COLLECT_BATCH_PATH,
  COLLECT_PATH,
  COLLECT_PIXEL_PATH,
  MAX_BATCH_BYTES as MAX_BODY,
  MAX_BATCH_EVENTS as MAX_BATCH,
  PAGE_VIEW,
} from '@svc/protocol';
import type { TrackedEvent, TrackingStore } from '../store/tracking';
import { PlatformError } from '../domain/errors';
import { GIF } from '../handlers/gif';
import { httpAnswer, internalError } from './errors';

const CORS = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Methods': 'GET, POST, OPTIONS', 'Access-Control-Allow-Headers': 'Content-Type' };

/** Turns one wire event into a TrackedEvent, or throws PlatformError('invalid') naming the problem; the
 * check itself is @svc/protocol's, the one every side of the wire format shares. */
export function parseWireEvent(raw: unknown, where: string): TrackedEvent {
  const checked = checkWireEvent(raw);
  if (!checked.ok) throw new PlatformError('invalid', `${where}: ${checked.problem}`);
  const s = checked.event;
  return {
    eid: s.eid,
    portalId: Number(s.a),
    kind: s.k == PAGE_VIEW ? 1 : 3,
    utk: s.vi,
    timestamp: Number(s.cts),
    url: s.pu,
    name: s.n,
    value: s.m === undefined ? undefined : Number(s.m),
    contact: s.i ? Object.fromEntries(new URLSearchParams(s.i)) : undefined,
    raw: s,
  };
}

type Write = <T>(fn: () => T) => Promise<Awaited<T>>;

/** A batch's outcome: what was kept, what was seen before, what was wrong (by event). */
interface Outcome {
  accepted: number;
  duplicates: number;
  rejected: { eid?: unknown; message: string }[];
}

/** Told of each new page view with the visitor's address (prospects map addresses to organisations). */
export type PageViewListener = (event: TrackedEvent, ip: string) => void;

/** Proxies believed by default: this machine's own (the companion next to the platform). */
export const LOOPBACK = ['127.0.0.1', '::1', '::ffff:127.0.0.1'];

/**
 * The collector as a plain Node request handler: the hottest endpoint of the platform gets no
 * framework in its way (Express's routing and body parsing cost it a third of its throughput).
 * Answers `/collect/e` and `/collect/p.gif` (and their CORS preflights); returns false for any
 * other path or method so the caller can pass the request on.
 *
 * `write` runs a batch as one savepoint of the group commit (db/group-commit.ts) with one
 * dynamic-list recheck per contact; the answer waits until it is durable.
 *
 * The visitor's address is the first `X-Forwarded-For` entry only when the request comes from a
 * trusted proxy (`trustedProxies`, by default loopback: the companion on the same machine);
 * anyone else could name any address, and with it any organisation, in that header.
 */
export function collector(
  tracking: TrackingStore,
  write: Write,
  log: { error: (obj: object, msg: string) => void },
  onPageView: PageViewListener = () => {},
  trustedProxies: readonly string[] = LOOPBACK,
) {
  const trusted = new Set(trustedProxies);
  const clientIp = (req: IncomingMessage) => {
    const peer = req.socket.remoteAddress ?? '';
    const forwarded = trusted.has(peer) ? String(req.headers['x-forwarded-for'] ?? '').split(',')[0].trim() : '';
    return forwarded || peer;
  };
  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const payload = Buffer.isBuffer(body) ? body : JSON.stringify(body);
    res.writeHead(status, { ...CORS, 'Content-Type': 'application/json; charset=utf-8', ...headers });
    res.end(payload);
  };
  const fail = (res: ServerResponse, err: unknown) => {
    if (res.headersSent) return;
    const answer = httpAnswer(err);
    if (!answer) log.error({ err }, 'collector error');
    const { status, body } = answer ?? internalError();
    send(res, status, body);
  };

  async function batch(req: IncomingMessage, res: ServerResponse) {
    const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (type != 'text/plain' && type != 'application/json')
      throw new PlatformError('unsupported-type', 'send the events as text/plain or application/json', { category: 'VALIDATION_ERROR' });
    let events: unknown;
    try {
      events = JSON.parse(await readBody(req, MAX_BODY));
    } catch (err) {
      if (err instanceof PlatformError) throw err;
      throw new PlatformError('invalid', 'body is not a JSON array of events (text/plain or application/json)');
    }
    if (!Array.isArray(events) || events.length < 1 || events.length > MAX_BATCH)
      throw new PlatformError('invalid', `body must be a JSON array of 1 to ${MAX_BATCH} events`);
    const result: Outcome = { accepted: 0, duplicates: 0, rejected: [] };
    const ip = clientIp(req);
    let forbidden = 0;
    await write(() =>
      tracking.batch(() =>
        events.forEach((raw, i) => {
          try {
            const event = parseWireEvent(raw, `event ${i}`);
            tracking.check(event.portalId, event.kind);
            if (tracking.record(event)) {
              result.accepted++;
              if (event.kind == 1) onPageView(event, ip);
            } else result.duplicates++;
          } catch (err) {
            if (!(err instanceof PlatformError)) throw err;
            if (err.kind == 'forbidden') forbidden++;
            result.rejected.push({ eid: (raw as { eid?: unknown } | null)?.eid, message: err.message });
          }
        }),
      ),
    );
    if (forbidden == events.length) throw new PlatformError('forbidden', result.rejected[0].message, { category: 'TIER_REQUIRED' });
    send(res, 200, result);
  }

  async function pixel(req: IncomingMessage, res: ServerResponse, query: URLSearchParams) {
    const event = parseWireEvent(Object.fromEntries(query), 'query');
    tracking.check(event.portalId, event.kind);
    await write(() => tracking.record(event) && event.kind == 1 && onPageView(event, clientIp(req)));
    send(res, 200, GIF, { 'Content-Type': 'image/gif', 'Cache-Control': 'no-store' });
  }

  /** Handles the request if it is the collector's; false otherwise. */
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const url = req.url ?? '';
    if (!url.startsWith(COLLECT_PATH + '/')) return false;
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    if (path != COLLECT_BATCH_PATH && path != COLLECT_PIXEL_PATH) return false;
    if (req.method == 'OPTIONS') {
      res.writeHead(204, CORS).end();
      return true;
    }
    const run =
      path == COLLECT_BATCH_PATH && req.method == 'POST'
        ? batch(req, res)
        : path == COLLECT_PIXEL_PATH && req.method == 'GET'
          ? pixel(req, res, new URLSearchParams(q < 0 ? '' : url.slice(q + 1)))
          : undefined;
    if (!run) return false;
    run.catch((err) => fail(res, err));
    return true;
  };
}

/** The request body as text, refusing more than `limit` bytes (413) or a content encoding (415). */
function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const encoding = req.headers['content-encoding'];
    if (encoding && encoding != 'identity') return reject(new PlatformError('unsupported-type', `content-encoding ${encoding} is not supported`));
    if (Number(req.headers['content-length'] ?? 0) > limit) return reject(new PlatformError('too-large', `request body exceeds ${limit} bytes`));
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new PlatformError('too-large', `request body exceeds ${limit} bytes`));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
