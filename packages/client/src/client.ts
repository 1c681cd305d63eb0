/** `createClient(options)`: a method per catalog route, grouped by area, over one transport. */
import { catalog, type RouteDef } from '@svc/api';
import type { Dispatcher } from 'undici';
import { credentials, type AuthOptions } from './auth';
import { limiter } from './limiter';
import { pagers } from './paging';
import { perform, type Call, type CallOptions, type Transport } from './request';
import type { Api } from './types';

export interface ClientOptions {
  /** `{base_url}`, e.g. `http://127.0.0.1:3200`. */
  baseUrl: string;
  /** `{forms_url}`; default: baseUrl with port 3201 when baseUrl uses 3200, else baseUrl. */
  formsUrl?: string;
  auth: AuthOptions;
  /** Requests per 10 s; default 100 (the platform's limit). `Infinity` turns pacing off. */
  rateLimit?: { max: number; windowMs?: number };
  /** Requests in flight at once; default 10. */
  concurrency?: number;
  /** Per attempt; default 30 s. */
  timeoutMs?: number;
  /** Retries of a transient failure; default 3. */
  retries?: number;
  backoff?: { baseMs?: number; maxMs?: number };
  userAgent?: string;
  /** An undici dispatcher (Agent, Pool, MockAgent). */
  dispatcher?: Dispatcher;
  /** The clock deciding when a token is due for refresh (tests move it). */
  now?: () => number;
}

/** POST routes that can be repeated without changing the outcome. */
const SAFE_POSTS = [
  'contacts.update',
  'contacts.createOrUpdate',
  'contacts.batch',
  'lists.update',
  'lists.add',
  'lists.remove',
  'lists.refresh',
  'properties.update',
  'properties.updateGroup',
  'forms.update',
  'auth.refresh',
];

export function createClient(options: ClientOptions) {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const transport: Transport = {
    baseUrl,
    formsUrl: (options.formsUrl ?? baseUrl.replace(/:3200$/, ':3201')).replace(/\/+$/, ''),
    credentials: undefined!,
    limit: limiter({
      max: options.rateLimit?.max ?? 100,
      windowMs: options.rateLimit?.windowMs ?? 10_000,
      concurrency: options.concurrency ?? 10,
    }),
    timeoutMs: options.timeoutMs ?? 30_000,
    retries: options.retries ?? 3,
    backoff: { baseMs: options.backoff?.baseMs ?? 500, maxMs: options.backoff?.maxMs ?? 30_000 },
    userAgent: options.userAgent ?? 'svc-client/0.1',
    dispatcher: options.dispatcher,
    safeRoutes: new Set(SAFE_POSTS),
  };
  transport.credentials = credentials(
    options.auth,
    (form) => perform(transport, { route: catalog['auth.refresh'], params: {}, body: form }),
    options.now,
  );

  const call = <T>(c: Call) => perform<T>(transport, c);
  const api: Record<string, unknown> = {};
  for (const route of Object.values(catalog) as RouteDef[]) {
    const names = [...route.path.matchAll(/:([A-Za-z_]\w*)/g)].map((m) => m[1]);
    const method = (...args: unknown[]) => {
      const params = Object.fromEntries(names.map((n, i) => [n, args[i]]));
      const input = args[names.length] as Record<string, unknown> | undefined;
      const options = args[names.length + 1] as CallOptions | undefined;
      const hasBody = route.bodyType != 'none';
      return call({ route, params, body: hasBody ? input : undefined, query: hasBody ? undefined : input, options });
    };
    const parts = route.id.split('.');
    let node = api;
    for (const p of parts.slice(0, -1)) node = (node[p] ??= {}) as Record<string, unknown>;
    node[parts.at(-1)!] = method;
  }
  const typed = api as Api;
  // The iterators join their areas: client.contacts.all(), client.lists.contacts(id), ...
  const iterators = pagers(typed);
  for (const [area, fns] of Object.entries(iterators)) Object.assign(api[area] as object, fns);
  return Object.assign(typed as Api & { [A in keyof typeof iterators]: (typeof iterators)[A] }, {
    /** Requests running and waiting in this client. */
    stats: () => transport.limit.stats(),
  });
}

export type Client = ReturnType<typeof createClient>;
