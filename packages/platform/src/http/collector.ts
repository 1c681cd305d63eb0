/** The tracking collector, the wire format of packages/tracker/README.md:
 *   POST {base_url}/collect/e       JSON array of events (text/plain or application/json)
 *   GET  {base_url}/collect/p.gif   one event as query parameters → 1×1 GIF
 * Valid events of a batch are recorded even when others are rejected (the tracker drops a
 * batch answered 400); a batch whose every event needs a tier the portal lacks is a 403. */
import express, { type Request, type Response, type Router } from 'express';
import type { TrackedEvent, TrackingStore } from '../store/tracking';
import { ApiError, errorBody } from './errors';

const MAX_BATCH = 50;
export const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const CORS = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Methods': 'GET, POST, OPTIONS', 'Access-Control-Allow-Headers': 'Content-Type' };

/** Turns one wire event into a TrackedEvent, or throws ApiError(400) naming the problem. */
export function parseWireEvent(raw: unknown, where: string): TrackedEvent {
  const bad = (message: string) => new ApiError(400, `${where}: ${message}`);
  if (typeof raw != 'object' || raw === null || Array.isArray(raw)) throw bad('must be an object');
  const e = raw as Record<string, unknown>;
  for (const [key, value] of Object.entries(e)) {
    if (typeof value != 'string') throw bad(`"${key}" must be a string`);
    if (value.length > 8192) throw bad(`"${key}" is longer than 8192 characters`);
  }
  const s = e as Record<string, string>;
  if (!/^[0-9a-f]{32}$/.test(s.eid ?? '')) throw bad('"eid" must be 32 lower-case hex characters');
  if (s.k != '1' && s.k != '3') throw bad('"k" must be "1" (page view) or "3" (custom event)');
  if (!/^\d{1,15}$/.test(s.a ?? '')) throw bad('"a" must be a portal id');
  if (!/^\d{1,15}$/.test(s.cts ?? '')) throw bad('"cts" must be a timestamp in milliseconds');
  if (s.k == '3' && !s.n) throw bad('"n" (the event id or name) is required for a custom event');
  if (s.m !== undefined && !/^-?\d+(\.\d+)?$/.test(s.m)) throw bad('"m" must be a number');
  if (s.vi !== undefined && !/^[0-9a-f]{32}$/.test(s.vi)) throw bad('"vi" must be a visitor token (32 hex)');
  let contact: Record<string, string> | undefined;
  if (s.i) contact = Object.fromEntries(new URLSearchParams(s.i));
  return {
    eid: s.eid,
    portalId: Number(s.a),
    kind: s.k == '1' ? 1 : 3,
    utk: s.vi,
    timestamp: Number(s.cts),
    url: s.pu,
    name: s.n,
    value: s.m === undefined ? undefined : Number(s.m),
    contact,
    raw: e,
  };
}

/** `coalesce` runs a batch as one transaction with one dynamic-list recheck per contact. */
export function collectorRouter(tracking: TrackingStore, coalesce: <T>(fn: () => T) => T): Router {
  const router = express.Router();
  router.use((_req, res, next) => (res.set(CORS), next()));
  router.options(['/e', '/p.gif'], (_req, res) => res.status(204).end());

  router.post('/e', express.text({ type: ['text/plain', 'application/json'], limit: '64kb' }), (req: Request, res: Response) => {
    let batch: unknown;
    try {
      batch = JSON.parse(typeof req.body == 'string' ? req.body : '');
    } catch {
      return res.status(400).json(errorBody('body is not a JSON array of events (text/plain or application/json)'));
    }
    if (!Array.isArray(batch) || batch.length < 1 || batch.length > MAX_BATCH)
      return res.status(400).json(errorBody(`body must be a JSON array of 1 to ${MAX_BATCH} events`));
    const result = { accepted: 0, duplicates: 0, rejected: [] as { eid?: unknown; message: string }[] };
    let forbidden = 0;
    coalesce(() => batch.forEach((raw, i) => {
      try {
        const event = parseWireEvent(raw, `event ${i}`);
        tracking.check(event.portalId, event.kind);
        if (tracking.record(event)) result.accepted++;
        else result.duplicates++;
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        if (err.status == 403) forbidden++;
        result.rejected.push({ eid: (raw as { eid?: unknown } | null)?.eid, message: err.message });
      }
    }));
    if (forbidden == batch.length) return res.status(403).json(errorBody(result.rejected[0].message, { category: 'TIER_REQUIRED' }));
    res.status(200).json(result);
  });

  router.get('/p.gif', (req: Request, res: Response) => {
    try {
      const event = parseWireEvent({ ...req.query }, 'query');
      tracking.check(event.portalId, event.kind);
      tracking.record(event);
      res.status(200).set({ 'Content-Type': 'image/gif', 'Cache-Control': 'no-store' }).send(GIF);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      res.status(err.status).json(errorBody(err.message, err.extra));
    }
  });
  return router;
}
