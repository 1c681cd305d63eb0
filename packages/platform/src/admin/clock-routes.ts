/** The admin surface's clock (util/clock.ts, services/clock-advance.ts):
 * - `GET /_admin/clock` → `{now, iso}`: the platform's time in ms since the epoch, and as ISO 8601;
 * - `POST /_admin/clock` with `{advanceMs}` (zero or more) or `{now}` (ms or an ISO 8601 time, not
 *   before the clock's): moves it, running what falls due on the way in time order (workflow
 *   steps and delays, webhook attempts, scheduled posts and broadcasts) before it answers
 *   `{now, iso, stops}` (`stops`: the due times it stepped through). The clock never goes
 *   backwards: an earlier time is a 400, as are a body with both fields, neither, or other keys. */
import express, { type Router } from 'express';
import { z } from 'zod';
import { badRequest } from '../domain/errors';
import type { AdminContext } from './context';
import { jsonBody, route } from './input';

/** The body of a move, for the OpenAPI document; `moveOf` checks it with messages of its own
 * (a union's "invalid input" would not say which field is wrong). */
const ClockMove = z.union([
  z.strictObject({ advanceMs: z.number().int().min(0).describe('milliseconds to move on by') }),
  z.strictObject({
    now: z.union([z.number().int(), z.string()]).describe('ms since the epoch, or ISO 8601 with its zone'),
  }),
]);

/** Its entries in the OpenAPI document (openapi.ts, which imports them: typed there). */
export const CLOCK_OPERATIONS = [
  { method: 'get', path: '/clock', summary: "The platform's time: {now (ms), iso}" },
  {
    method: 'post',
    path: '/clock',
    summary:
      'Moves the clock on by advanceMs, or to now (never back), running what falls due on the way in time order; answers {now, iso, stops}',
    body: ClockMove,
  },
] as const;

const view = (ms: number) => ({ now: ms, iso: new Date(ms).toISOString() });

/** `{now}` as milliseconds: a number, or a time ISO 8601 spells with its zone. */
function instantOf(value: unknown): number {
  if (typeof value == 'number') return value;
  if (typeof value == 'string' && /^\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:?\d{2})$/.test(value)) {
    const ms = Date.parse(value);
    if (!Number.isNaN(ms)) return ms;
  }
  throw badRequest(
    `now must be milliseconds since the epoch or an ISO 8601 time with its zone (2030-01-01T00:00:00Z), not ${JSON.stringify(value)}`,
  );
}

/** What a move asks for, checked: exactly one of advanceMs and now. */
function moveOf(body: unknown): { advanceMs: number } | { now: number } {
  if (typeof body != 'object' || body === null || Array.isArray(body))
    throw badRequest('body must be a JSON object: {"advanceMs": 60000} or {"now": "2030-01-01T00:00:00Z"}');
  const keys = Object.keys(body);
  const unknown = keys.filter((k) => k != 'advanceMs' && k != 'now');
  if (unknown.length) throw badRequest(`unknown field ${unknown.join(', ')}: the clock takes advanceMs or now`);
  if (keys.length != 1) throw badRequest('body: give one of advanceMs and now');
  const { advanceMs, now } = body as { advanceMs?: unknown; now?: unknown };
  if (now !== undefined) return { now: instantOf(now) };
  if (typeof advanceMs != 'number' || !Number.isSafeInteger(advanceMs) || advanceMs < 0)
    throw badRequest(
      `advanceMs must be a whole number of milliseconds, zero or more, not ${JSON.stringify(advanceMs)}`,
    );
  return { advanceMs };
}

export function clockRoutes({ clock, log }: Pick<AdminContext, 'clock' | 'log'>): Router {
  const router = express.Router();
  router.get(
    '/clock',
    route(log, (_req, res) => res.json(view(clock.now()))),
  );
  router.post(
    '/clock',
    ...jsonBody,
    route(log, async (req, res) => {
      const move = moveOf(req.body);
      try {
        const stops = 'now' in move ? await clock.set(move.now) : await clock.advance(move.advanceMs);
        res.json({ ...view(clock.now()), stops });
      } catch (err) {
        // The clock's own refusals (a time before its own, out of Date's range) name the problem.
        if (err instanceof RangeError) throw badRequest(err.message);
        throw err;
      }
    }),
  );
  return router;
}
