/** The tracking collector (the tracker's wire format, @svc/protocol): a batch of events, or one
 * event as the query of an image pixel. Both are public: the browser sends them. Every event is
 * checked by the protocol's `checkWireEvent`, the one check every side of the wire uses; a
 * batch's events are checked one by one (valid ones are kept even when others are refused), so the
 * body schema asks only for an array of the right size and `wireEvent` checks each. */
import {
  checkWireEvent,
  COLLECT_BATCH_PATH,
  COLLECT_PIXEL_PATH,
  MAX_BATCH_EVENTS,
  type WireEvent,
} from '@svc/protocol';
import { z } from 'zod';
import { route } from '../route';

/** One wire event, by @svc/protocol's check; its message is the protocol's problem. */
export const wireEvent = z.unknown().transform((raw, ctx): WireEvent => {
  const checked = checkWireEvent(raw);
  if (checked.ok) return checked.event;
  ctx.issues.push({ code: 'custom', message: checked.problem, input: raw });
  return z.NEVER;
});

/** What the collector did with a batch: kept, seen before (by `eid`), refused (each with why). */
export const collectOutcome = z.object({
  accepted: z.number().int(),
  duplicates: z.number().int(),
  rejected: z.array(z.object({ eid: z.unknown().optional(), message: z.string() })),
});

export const collectorRoutes = {
  'collect.batch': route({
    id: 'collect.batch',
    method: 'POST',
    path: COLLECT_BATCH_PATH,
    summary: `Tracking events, a JSON array of 1 to ${MAX_BATCH_EVENTS} (text/plain, so a browser sends it without a preflight)`,
    auth: ['none'],
    // Events carry their own id (eid): a repeat is counted once.
    retry: 'safe',
    resource: 'events',
    body: z
      .array(z.unknown())
      .min(1, `must hold 1 to ${MAX_BATCH_EVENTS} events`)
      .max(MAX_BATCH_EVENTS, `must hold 1 to ${MAX_BATCH_EVENTS} events`),
    response: collectOutcome,
  }),
  'collect.pixel': route({
    id: 'collect.pixel',
    method: 'GET',
    path: COLLECT_PIXEL_PATH,
    summary: 'One tracking event as query parameters, answered with a 1×1 GIF (where fetch is missing)',
    auth: ['none'],
    writes: true,
    resource: 'events',
    query: z.looseObject({}),
  }),
};
