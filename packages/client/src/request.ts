/** One call, prepared once: the URL with encoded path parameters and query (an API key is part
 * of it, as `hapikey`, where the spec allows one), the encoded body, the headers every attempt
 * sends, whether it may be repeated, and how its errors are built. The chain of steps (./steps)
 * sends it. */
import type { Credentials } from './auth';
import type { CallOptions } from './call-options';
import { encodeBody } from './encoding';
import { redactPath, redactSecrets, SvcApiError } from './errors';
import { isRepeatable } from './retry';
import type { RouteInfo } from './route-table';
import type { Request } from './steps/step';
import { fillPath, queryString } from './url';

export interface Call {
  id: string;
  route: RouteInfo;
  params: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: unknown;
  options?: CallOptions;
}

/** What every call of a client shares. */
export interface Target {
  baseUrl: string;
  formsUrl: string;
  userAgent: string;
  credentials: Credentials;
}

export async function prepare(t: Target, call: Call): Promise<Request> {
  const { id, route, options = {} } = call;
  const auth = t.credentials;
  const query: Record<string, unknown> = { ...call.query, ...options.query };
  if (!route.public && auth.apiKey) {
    if (!route.auth.includes('hapikey'))
      throw new TypeError(
        `${id} needs an OAuth or private-app token: the spec allows API keys on the content API v2 only`,
      );
    query.hapikey = auth.apiKey;
  }
  const path = fillPath(route.path, call.params) + queryString(query);
  const shownPath = redactPath(path);
  const { body, contentType } = await encodeBody(route.body, call.body);
  const headers: Record<string, string> = { 'user-agent': t.userAgent, accept: 'application/json' };
  if (contentType) headers['content-type'] = contentType;
  return {
    id,
    route,
    url: (route.host == 'forms' ? t.formsUrl : t.baseUrl) + path,
    path: shownPath,
    headers,
    body,
    repeatable: isRepeatable(route, call.body, options.safe),
    options,
    fail: (init) =>
      new SvcApiError({
        ...init,
        message: redactSecrets(init.message, auth.secrets()),
        method: route.method,
        path: shownPath,
      }),
    secrets: () => auth.secrets(),
  };
}
