/** The OpenAPI 3.1 document of the catalog (JSON Schema from zod's own `toJSONSchema`). */
import { z } from 'zod';
import { routes } from './catalog';
import { errorBody } from './common';
import type { RouteDef } from './route';

type Json = Record<string, unknown>;

/** JSON Schema of what a route accepts (`io: 'input'`) or answers (`'output'`). */
const schema = (s: z.ZodType, io: 'input' | 'output'): Json => {
  try {
    return z.toJSONSchema(s, { io, unrepresentable: 'any' });
  } catch {
    return {};
  }
};

/** `/a/:b/c.:ext` → `/a/{b}/c.{ext}` */
const openApiPath = (path: string) => path.replace(/:([A-Za-z_]\w*)/g, '{$1}');

const MEDIA: Record<RouteDef['bodyType'], string> = {
  none: '',
  json: 'application/json',
  urlencoded: 'application/x-www-form-urlencoded',
  multipart: 'multipart/form-data',
  atom: 'application/atom+xml',
};

function parameters(route: RouteDef) {
  const out: Json[] = [];
  for (const [where, object] of [
    ['path', route.params],
    ['query', route.query],
  ] as const) {
    const props = (schema(object, 'input').properties || {}) as Record<string, Json>;
    const required = new Set((schema(object, 'input').required as string[]) || []);
    for (const [name, s] of Object.entries(props))
      out.push({ name, in: where, required: where == 'path' || required.has(name), schema: s });
  }
  return out;
}

function operation(route: RouteDef) {
  const security = route.auth.filter((a) => a != 'none').map((a) => ({ [a]: route.scopes }));
  const op: Json = {
    operationId: route.id,
    summary: route.summary,
    tags: [route.id.split('.').slice(0, -1).join('.')],
    parameters: parameters(route),
    security: route.auth.includes('none') ? [{}, ...security] : security,
    servers:
      route.host == 'forms'
        ? [{ url: '{forms_url}', variables: { forms_url: { default: 'http://127.0.0.1:3201' } } }]
        : undefined,
    responses: {
      [route.status]:
        route.status == 204 || route.status == 202
          ? { description: 'No content' }
          : { description: 'Success', content: { 'application/json': { schema: schema(route.response, 'output') } } },
      default: { description: 'Error', content: { 'application/json': { schema: schema(errorBody, 'output') } } },
    },
    // The catalog's facts for consumers, as extensions (tools ignore what they do not know).
    'x-svc-resource': route.resource,
    'x-svc-id-param': route.idParam,
    'x-svc-retry': route.retry,
    'x-svc-writes': route.writes,
    'x-svc-atom-entry': route.atomEntry,
    'x-svc-default-body': route.defaultBody,
    'x-svc-redirects': route.redirects,
  };
  if (route.bodyType != 'none') {
    const media = route.urlencodedToo ? [MEDIA[route.bodyType], MEDIA.urlencoded] : [MEDIA[route.bodyType]];
    op.requestBody = {
      required: true,
      content: Object.fromEntries(media.map((m) => [m, { schema: schema(route.body, 'input') }])),
    };
  }
  return op;
}

export function openApiDocument(): Json {
  const paths: Record<string, Json> = {};
  for (const route of routes) (paths[openApiPath(route.path)] ||= {})[route.method.toLowerCase()] = operation(route);
  return {
    openapi: '3.1.0',
    info: { title: 'svc platform API', version: '1.0.0', description: 'Generated from the @svc/api catalog.' },
    servers: [{ url: '{base_url}', variables: { base_url: { default: 'http://127.0.0.1:3200' } } }],
    components: {
      securitySchemes: {
        oauth: { type: 'http', scheme: 'bearer', description: 'OAuth access token from POST /auth/v1/refresh' },
        privateApp: { type: 'http', scheme: 'bearer', description: 'Private-app access token' },
        hapikey: { type: 'apiKey', in: 'query', name: 'hapikey' },
      },
    },
    paths,
  };
}
