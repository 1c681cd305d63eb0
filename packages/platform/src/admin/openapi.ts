/** The admin API's OpenAPI document (`GET /_admin/openapi.json`, behind the admin key like the
 * rest), made from the same zod schemas that check its input, so that it cannot drift from them.
 * Clock and snapshot routes add their entries to ADMIN_OPERATIONS' list beside their files. */
import { z } from 'zod';
import { CLOCK_OPERATIONS } from './clock-routes';
import { FaultRule } from './fault-routes';
import { JournalQuery } from './journal-routes';
import { OutboxQueries } from './outbox-routes';
import { NewPortal } from './portal-routes';
import { SNAPSHOT_OPERATIONS } from './snapshot-routes';

export interface AdminOperation {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  summary: string;
  body?: z.ZodType;
  query?: z.ZodObject;
  /** Status of success (default 200). */
  status?: number;
}

export const ADMIN_OPERATIONS: AdminOperation[] = [
  { method: 'get', path: '/portals', summary: 'Every portal: {portals: [{portalId, name, tier, createdAt}]}' },
  {
    method: 'post',
    path: '/portals',
    summary:
      'A new portal; answers its credentials {portalId, privateAppToken, apiKey, oauth: {clientId, clientSecret, refreshToken}}',
    body: NewPortal,
    status: 201,
  },
  { method: 'delete', path: '/portals/{id}', summary: 'Deletes the portal and everything of it', status: 204 },
  {
    method: 'post',
    path: '/portals/{id}/reset',
    summary: "Back to the portal's freshly-seeded state; its credentials keep working",
  },
  { method: 'get', path: '/faults', summary: 'The fault rules in order, with fired and remaining counts' },
  { method: 'post', path: '/faults', summary: 'Appends a fault rule; answers {id}', body: FaultRule, status: 201 },
  { method: 'delete', path: '/faults', summary: 'Removes every fault rule', status: 204 },
  { method: 'delete', path: '/faults/{id}', summary: 'Removes one fault rule', status: 204 },
  { method: 'get', path: '/journal', summary: 'The last requests, newest first', query: JournalQuery },
  { method: 'get', path: '/journal/count', summary: 'How many journal entries match: {count}', query: JournalQuery },
  { method: 'delete', path: '/journal', summary: 'Empties the journal', status: 204 },
  { method: 'get', path: '/outbox/emails', summary: 'Emails workflows sent, with bodies', query: OutboxQueries.emails },
  { method: 'delete', path: '/outbox/emails', summary: 'Forgets caught emails: {cleared}', query: OutboxQueries.clear },
  {
    method: 'get',
    path: '/outbox/webhooks',
    summary: 'Workflow webhook deliveries with their attempts',
    query: OutboxQueries.webhooks,
  },
  {
    method: 'delete',
    path: '/outbox/webhooks',
    summary: 'Forgets settled deliveries (pending ones stay): {cleared}',
    query: OutboxQueries.clear,
  },
  { method: 'get', path: '/outbox/tokens', summary: 'OAuth tokens issued', query: OutboxQueries.tokens },
  { method: 'delete', path: '/outbox/tokens', summary: 'Forgets issued tokens: {cleared}', query: OutboxQueries.clear },
  ...CLOCK_OPERATIONS,
  ...SNAPSHOT_OPERATIONS,
];

const jsonSchema = (schema: z.ZodType) => z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });

function operation(op: AdminOperation) {
  const parameters = [
    ...[...op.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
      name,
      in: 'path',
      required: true,
      schema: { type: 'string' },
    })),
    ...Object.entries(op.query?.shape ?? {}).map(([name, schema]) => ({
      name,
      in: 'query',
      required: false,
      schema: jsonSchema(schema as z.ZodType),
    })),
  ];
  const error = { description: 'The API error body naming the problem' };
  return {
    summary: op.summary,
    security: [{ adminKey: [] }],
    ...(parameters.length && { parameters }),
    ...(op.body && {
      requestBody: { required: false, content: { 'application/json': { schema: jsonSchema(op.body) } } },
    }),
    responses: {
      [String(op.status ?? 200)]: { description: 'Done' },
      '400': error,
      '401': error,
      '403': error,
      '404': error,
    },
  };
}

export function adminOpenApi(extra: AdminOperation[] = []) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of [...ADMIN_OPERATIONS, ...extra]) (paths[op.path] ??= {})[op.method] = operation(op);
  return {
    openapi: '3.1.0',
    info: {
      title: 'svc platform admin API',
      version: '1.0.0',
      description: 'The twin controls: off unless the platform runs with an admin key (svc-platform --admin).',
    },
    servers: [{ url: '{base_url}/_admin', variables: { base_url: { default: 'http://127.0.0.1:3200' } } }],
    components: { securitySchemes: { adminKey: { type: 'http', scheme: 'bearer', description: 'The admin key' } } },
    paths,
  };
}
