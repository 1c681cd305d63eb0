/** §4.10 OAuth refresh and enterprise events, §2.5 record limits. */
import { z } from 'zod';
import { visitorToken } from '../common';
import { route } from '../route';

const limitRow = z.object({
  objectTypeId: z.string(),
  singularLabel: z.string(),
  pluralLabel: z.string(),
  limit: z.number(),
  usage: z.number(),
  percentage: z.number(),
});

/** A server-side custom event: event id or name, portal, who (email or utk), value, properties. */
const eventParams = z.looseObject({
  _n: z.string('is required (the event id or name)').min(1, 'is required (the event id or name)').max(255),
  _a: z
    .string()
    .regex(/^\d{1,15}$/, 'must be a portal id')
    .transform(Number),
  _m: z
    .string()
    .regex(/^-?\d+(\.\d+)?$/, 'must be a number')
    .transform(Number)
    .optional(),
  email: z.string().max(254).optional(),
  utk: visitorToken.optional(),
  id: z.string().max(255).optional(),
});

/** A refresh-token exchange (two paths take it). */
const refresh = <const Id extends string, const Path extends string>(id: Id, path: Path, summary: string) => ({
  id,
  path,
  summary,
  retry: 'safe' as const,
  method: 'POST' as const,
  auth: ['none'] as const,
  bodyType: 'urlencoded' as const,
  body: z.object({
    refresh_token: z.string().min(1, 'is required'),
    client_id: z.string().min(1, 'is required'),
    client_secret: z.string().min(1, 'is required'),
    grant_type: z.literal('refresh_token', 'must be refresh_token'),
  }),
  response: z.object({
    access_token: z.string(),
    refresh_token: z.string(),
    expires_in: z.number(),
    token_type: z.literal('bearer'),
    portal_id: z.number(),
  }),
});

export const platformRoutes = {
  'auth.refresh': route(
    refresh(
      'auth.refresh',
      '/auth/v1/refresh',
      'Exchange a refresh token for an access token (urlencoded; rotation is configurable)',
    ),
  ),
  // The legacy client's refresh helper posts here (the real API's OAuth token endpoint).
  'auth.token': route(
    refresh(
      'auth.token',
      '/oauth/v1/token',
      'The same exchange at the OAuth token endpoint, for clients that call it (grant_type=refresh_token)',
    ),
  ),
  'limits.records': route({
    id: 'limits.records',
    method: 'GET',
    path: '/crm/v3/limits/records',
    summary: 'Record usage and limits of the portal, from real counts',
    response: z.object({
      svcDefinedObjectTypes: z.array(limitRow),
      customObjectTypes: z.object({
        byObjectType: z.array(limitRow.omit({ limit: true, percentage: true })),
        overallLimit: z.number(),
        overallUsage: z.number(),
        overallPercentage: z.number(),
      }),
    }),
  }),
  'events.trigger': route({
    id: 'events.trigger',
    writes: true, // the pixel records the event
    method: 'GET',
    path: '/v1/event',
    summary:
      'Trigger a custom event (Enterprise portals): `_n` event, `_a` portal, `email` or `utk`, `_m` value, ' +
      'any other parameter sets that contact property. Public like a pixel; answers a 1x1 GIF',
    auth: ['none'],
    query: eventParams,
    response: z.instanceof(Uint8Array),
  }),
  'events.send': route({
    id: 'events.send',
    retry: 'safe-with-id', // the platform drops a repeated event id
    method: 'POST',
    path: '/v1/event',
    summary: 'Send a server-side custom event (JSON, authenticated): same fields as the GET form',
    scopes: ['analytics.behavioral_events.send'],
    body: z.object({
      eventName: z.string().min(1).max(255),
      email: z.string().max(254).optional(),
      utk: visitorToken.optional(),
      value: z.number().finite().optional(),
      properties: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
      occurredAt: z.number().int().optional(),
      id: z.string().max(64).optional(),
    }),
  }),
};
