/** Fault rules: `GET /faults` (in order, with how often each fired and how many firings remain),
 * `POST /faults` (appended; answers `{id}`), `DELETE /faults` (all), `DELETE /faults/:id`. */
import express, { type Router } from 'express';
import { z } from 'zod';
import { PlatformError } from '../domain/errors';
import { MAX_LATENCY_MS } from '../http/fault-header';
import type { FaultSpec } from '../http/faults';
import { ROUTE_IDS } from '../http/route-ids';
import type { AdminContext } from './context';
import { jsonBody, parse, route } from './input';

const latency = z.number().int().min(0).max(MAX_LATENCY_MS);

export const FaultRule = z
  .strictObject({
    route: z
      .string()
      .refine((id) => ROUTE_IDS.has(id), { message: "is not a catalog route id (see /openapi.json's operationId)" })
      .optional(),
    method: z
      .enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'get', 'post', 'put', 'patch', 'delete'])
      .transform((m) => m.toUpperCase())
      .optional(),
    path: z.string().startsWith('/', 'must start with /').max(2000).optional(),
    portalId: z.number().int().min(1).optional(),
    probability: z.number().min(0).max(1).optional(),
    seed: z
      .number()
      .int()
      .min(0)
      .max(2 ** 32 - 1)
      .optional(),
    times: z.number().int().min(1).optional(),
    status: z.number().int().min(400).max(599).optional(),
    retryAfter: z.number().int().min(0).max(86_400).optional(),
    latencyMs: z
      .union([latency, z.tuple([latency, latency]).refine(([a, b]) => a <= b, { message: 'min must not exceed max' })])
      .optional(),
    drop: z.boolean().optional(),
  })
  .refine((r) => r.status !== undefined || r.drop || r.latencyMs !== undefined, {
    message: 'a rule needs an effect: status, latencyMs or drop',
  })
  .refine((r) => !(r.status !== undefined && r.drop), { message: 'status and drop are two answers: give one' })
  .refine((r) => r.retryAfter === undefined || r.status == 429 || r.status == 503, {
    message: 'retryAfter goes with status 429 or 503',
    path: ['retryAfter'],
  });

export function faultRoutes(ctx: AdminContext): Router {
  const { faults, log } = ctx;
  const router = express.Router();
  router.get(
    '/faults',
    route(log, (_req, res) => res.json({ faults: faults.list() })),
  );
  router.post(
    '/faults',
    ...jsonBody,
    route(log, (req, res) => {
      const spec: FaultSpec = parse(FaultRule, req.body, 'body');
      res.status(201).json({ id: faults.add(spec) });
    }),
  );
  router.delete(
    '/faults',
    route(log, (_req, res) => {
      faults.clear();
      res.status(204).end();
    }),
  );
  router.delete(
    '/faults/:id',
    route(log, (req, res) => {
      if (!faults.remove(req.params.id as string))
        throw new PlatformError('not-found', `no fault rule ${String(req.params.id).slice(0, 60)}`);
      res.status(204).end();
    }),
  );
  return router;
}
