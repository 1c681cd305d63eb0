/** Hostile requests for a catalog route, and the rule every answer must keep: no 5xx; an error is
 * JSON `{status: 'error', message}`; a 400 for bad input names what was wrong. */
import fc from 'fast-check';
import { budget, report } from './budget';
import type { RouteDef } from '@svc/api';
import { z } from 'zod';
import { atomBody, hostileText, jsonBody, pathSegment, queryString } from './hostile';

/** A request as data (fast-check prints it when a run fails), turned into fetch arguments at send time. */
export interface FuzzRequest {
  label: string;
  /** The names the route's schemas know (path, query and body): what an error may name. */
  fields: string[];
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | { multipart: [string, string][]; file?: { name: string; type: string; text: string } };
}

/** The top-level keys a schema names, where it is an object (or an array of objects). */
export function keysOf(schema: z.ZodType): string[] {
  if (schema instanceof z.ZodObject) return Object.keys(schema.shape);
  if (schema instanceof z.ZodArray) return keysOf(schema.element as z.ZodType);
  if (schema instanceof z.ZodOptional) return keysOf(schema.unwrap() as z.ZodType);
  return [];
}

function bodyFor(route: RouteDef): fc.Arbitrary<Pick<FuzzRequest, 'body' | 'headers'>> {
  const keys = keysOf(route.body);
  switch (route.bodyType) {
    case 'none':
      return fc.constant({ headers: {} });
    case 'json':
      return jsonBody(keys).map((body) => ({ body, headers: { 'content-type': 'application/json' } }));
    case 'urlencoded':
      return fc
        .tuple(queryString(keys), jsonBody(['svcutk', 'hutk', 'pageUrl', 'redirectUrl', 'ipAddress']))
        .map(([q, context]) => ({
          body: `${q}&svc_context=${encodeURIComponent(context)}`,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        }));
    case 'multipart':
      return fc
        .record({
          fields: fc.array(
            fc.tuple(keys.length ? fc.oneof(fc.constantFrom(...keys), hostileText) : hostileText, hostileText),
            { maxLength: 4 },
          ),
          file: fc.option(
            fc.record({
              name: hostileText,
              type: fc.constantFrom('text/plain', 'image/png', 'application/x-msdownload', '', 'x'),
              text: hostileText,
            }),
          ),
        })
        .map(({ fields, file }) => ({ body: { multipart: fields, file: file ?? undefined }, headers: {} }));
    case 'atom':
      return atomBody.map((body) => ({ body, headers: { 'content-type': 'application/atom+xml' } }));
  }
}

/** Content v2 lists filter on any field with an operator (`created__gt`, `id__in`): keys no
 * schema names, whose values meet number and text columns alike. */
const CONTENT_FILTERS = [
  'id',
  'created',
  'updated',
  'publish_date',
  'content_group_id',
  'deleted_at',
  'name',
  'slug',
  'state',
].flatMap((f) =>
  ['', '__eq', '__ne', '__gt', '__lte', '__in', '__range', '__contains', '__icontains', '__is_null'].map(
    (op) => f + op,
  ),
);

/** Hostile requests for `route` on `origin`, authenticated with `auth` (left off now and then on public routes). */
export function requestsFor(route: RouteDef, origin: string, auth: Record<string, string>): fc.Arbitrary<FuzzRequest> {
  const names = [...route.path.matchAll(/:([A-Za-z_]\w*)/g)];
  const queryKeys = [
    ...keysOf(route.query),
    ...(route.method == 'GET' && route.path.startsWith('/content/api/v2/') ? CONTENT_FILTERS : []),
  ];
  return fc
    .record({
      params: fc.tuple(...names.map(() => pathSegment)),
      query: queryString(queryKeys),
      body: bodyFor(route),
      anonymous: route.public ? fc.boolean() : fc.constant(false),
    })
    .map(({ params, query, body, anonymous }) => {
      let i = 0;
      const path = route.path.replace(/:([A-Za-z_]\w*)/g, () => params[i++]);
      return {
        label: route.id,
        fields: [
          route.resource,
          route.resource.replace(/s$/, ''),
          ...names.map((m) => m[1]),
          ...queryKeys,
          ...keysOf(route.body),
        ],
        method: route.method,
        url: `${origin}${path}${query ? `?${query}` : ''}`,
        headers: { ...(anonymous ? {} : auth), ...body.headers },
        body: body.body,
      };
    });
}

/** Sends the request; what came back, the body as text. */
export async function send(req: FuzzRequest) {
  let body: string | FormData | undefined;
  if (typeof req.body == 'object') {
    const form = new FormData();
    for (const [k, v] of req.body.multipart) form.append(k, v);
    if (req.body.file)
      form.append('files', new Blob([req.body.file.text], { type: req.body.file.type }), req.body.file.name);
    body = form;
  } else body = req.body;
  const res = await fetch(req.url, { method: req.method, headers: req.headers, body, redirect: 'manual' });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

/** Whether every percent sign of the URL's path starts a valid escape sequence. */
export const decodablePath = (url: string) => {
  try {
    decodeURIComponent(new URL(url).pathname);
    return true;
  } catch {
    return false;
  }
};

/** What is wrong with an answer to `req`, or undefined when it keeps the rule. */
export function problemWith(
  req: Pick<FuzzRequest, 'url' | 'fields'>,
  answer: { status: number; type: string; text: string },
): string | undefined {
  if (answer.status >= 500) return `answered ${answer.status}: ${answer.text.slice(0, 300)}`;
  if (answer.status < 400) return undefined;
  if (!answer.type.startsWith('application/json'))
    return `answered ${answer.status} as ${answer.type || 'nothing'}: ${answer.text.slice(0, 200)}`;
  let body: {
    status?: unknown;
    message?: unknown;
    category?: unknown;
    validationResults?: { name?: unknown }[];
    errors?: { in?: unknown }[];
  };
  try {
    body = JSON.parse(answer.text);
  } catch {
    return `answered ${answer.status} with a body that is not JSON: ${answer.text.slice(0, 200)}`;
  }
  if (body.status != 'error' || typeof body.message != 'string' || !body.message.trim())
    return `answered ${answer.status} without {status: 'error', message}: ${answer.text.slice(0, 200)}`;
  // A validation error says where: `body.email: ...`, `query.count: ...`, or a field by name
  // (`Form name is required`, the legacy wording).
  const named = (message: string) =>
    /^[\w.[\]-]+: |\b(body|query|path|parameter|field|svc_context)\b/i.test(message) ||
    req.fields.some((f) => new RegExp(`\\b${f.replace(/[^\w-]/g, '').replace(/-/g, '\\-')}\\b`, 'i').test(message));
  // The legacy bodies may name it in their details instead: `validationResults[].name`, `errors[].in`.
  const detailed = [
    ...(body.validationResults ?? []).map((r) => r.name),
    ...(Array.isArray(body.errors) ? body.errors.map((e) => e.in) : []),
  ].some((f) => typeof f == 'string' && f != '');
  if (answer.status == 400 && body.category == 'VALIDATION_ERROR' && !named(body.message) && !detailed)
    return `answered 400 without naming the field: ${body.message}`;
  // A path that does not percent-decode is the path's fault, not the body's.
  if (answer.status == 400 && !decodablePath(req.url) && !/path|parameter|percent/i.test(body.message))
    return `answered a path that does not percent-decode with: ${body.message}`;
  return undefined;
}

/** Sends hostile requests until the budget is spent, failing on the first that breaks the rule
 * (or `more`, a caller's rule on top). */
export async function fuzz(
  what: string,
  requests: fc.Arbitrary<FuzzRequest>,
  runs: number,
  more?: (req: FuzzRequest, answer: Awaited<ReturnType<typeof send>>) => string | undefined,
) {
  let sent = 0;
  await fc.assert(
    fc.asyncProperty(requests, async (req) => {
      sent++;
      const answer = await send(req);
      const problem = problemWith(req, answer) ?? more?.(req, answer);
      if (problem) throw new Error(`${req.label} ${req.method} ${req.url.slice(0, 300)}: ${problem}`);
    }),
    budget(runs),
  );
  report(what, sent);
}
