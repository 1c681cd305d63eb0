/** `createClient(options)`: a method per catalog route, grouped by area, plus paged iterators and
 * the form and event helpers, all over one chain of request steps composed here from the options.
 * Every piece of state (token bucket, tokens, retries) belongs to the instance; two clients never
 * share any. */
import type { Dispatcher } from 'undici';
import { credentials, type AuthOptions, type RefreshAnswer, type RefreshEvent } from './auth';
import type { CallOptions } from './call-options';
import { realClock, type Clock } from './clock';
import type { RateBudget } from './budget';
import { formSubmitter } from './form-submit';
import { limiter } from './limiter';
import { pagers, type Pagers } from './paging';
import { prepare, type Call } from './request';
import { routeTable, type RouteInfo } from './route-table';
import { bearer } from './steps/bearer';
import { decode } from './steps/decode';
import { exchange } from './steps/exchange';
import { pacing } from './steps/pacing';
import { refreshOn401 } from './steps/refresh-on-401';
import { retry, type RetryEvent } from './steps/retry';
import { compose } from './steps/step';
import { eventTracker } from './track-event';
import type { Api } from './types';
import { paramNames } from './url';

export interface ClientOptions {
  /** `{base_url}`, e.g. `http://127.0.0.1:3200`. */
  baseUrl: string;
  /** `{forms_url}`; default: baseUrl with port 3201 when baseUrl uses 3200 (the local platform), else baseUrl. */
  formsUrl?: string;
  auth: AuthOptions;
  /** Client-side token bucket; default 100 requests per 10 s (the platform's limit). `max: Infinity` turns it off. */
  rateLimit?: { max: number; windowMs?: number };
  /** A budget shared with other processes (e.g. the companion's, in Redis); it replaces `rateLimit`. */
  budget?: RateBudget;
  /** Requests in flight at once; default 10. */
  concurrency?: number;
  /** Per attempt, until the whole answer has arrived; default 30 s. */
  timeoutMs?: number;
  /** Retries of a transient failure (429; 5xx and network errors on repeatable calls); default 3. */
  retries?: number;
  /** Exponential backoff with full jitter: the n-th retry waits up to min(maxMs, baseMs · 2^n). Default 500 ms, 20 s. */
  backoff?: { baseMs?: number; maxMs?: number };
  /** A longer Retry-After is not waited for: the call fails with `retryAfterMs`. Default 60 s. */
  maxRetryAfterMs?: number;
  userAgent?: string;
  /** An undici dispatcher (Agent, Pool, ProxyAgent); default undici's global one. */
  dispatcher?: Dispatcher;
  /** Called before each retry; for logs and metrics (no credentials in it). */
  onRetry?: (e: RetryEvent) => void;
  /** Called after each OAuth refresh. */
  onRefresh?: (e: RefreshEvent) => void;
  /** The clock for token expiry, backoff and pacing; tests pass a moved one. Default: real time. */
  clock?: Partial<Clock>;
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');

export function createClient(options: ClientOptions): Client {
  const clock: Clock = { ...realClock, ...options.clock };
  const baseUrl = trimSlash(options.baseUrl);
  const { budget } = options;
  // A shared budget replaces the bucket; the cap on requests in flight and the hold stay local.
  const limit = limiter(
    {
      max: budget ? Infinity : (options.rateLimit?.max ?? 100),
      windowMs: options.rateLimit?.windowMs ?? 10_000,
      concurrency: options.concurrency ?? 10,
    },
    clock,
  );
  // The OAuth refresh itself is a call of this client, on its own chain (defined below; it runs only later).
  const auth = credentials(
    options.auth,
    (form) =>
      run<RefreshAnswer>({ id: 'auth.refresh', route: routeTable['auth.refresh'], params: {}, body: form }, unpaced),
    clock,
    options.onRefresh,
  );
  const target = {
    baseUrl,
    formsUrl: trimSlash(options.formsUrl ?? baseUrl.replace(/:3200$/, ':3201')),
    userAgent: options.userAgent ?? 'svc-client/0.1',
    credentials: auth,
  };

  const retrying = retry({
    retries: options.retries ?? 3,
    backoff: { baseMs: options.backoff?.baseMs ?? 500, maxMs: options.backoff?.maxMs ?? 20_000 },
    maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
    clock,
    onRetry: options.onRetry,
  });
  const send = exchange({ timeoutMs: options.timeoutMs ?? 30_000, dispatcher: options.dispatcher });
  // The request path, outermost step first (the README lists it). The token is taken after the
  // slot, so a call that waited in the bucket across an expiry is not sent with a stale one.
  const chain = decode(compose([retrying, refreshOn401(auth), pacing({ limit, budget, clock }), bearer(auth)], send));
  // The token refresh skips pacing and credentials: it is public and not paced per credential,
  // and calls holding every slot may be waiting for it.
  const unpaced = decode(compose([retrying], send));
  const run = async <T>(call: Call, path = chain) => (await path(await prepare(target, call))) as T;

  // One function per route, hung on the tree its dotted id describes: contacts.getByUtk → api.contacts.getByUtk.
  const tree: Record<string, unknown> = {};
  for (const [id, route] of Object.entries(routeTable) as [string, RouteInfo][]) {
    const names = paramNames(route.path);
    const method = (...args: unknown[]) => {
      const params: Record<string, unknown> = {};
      for (let i = 0; i < names.length; i++) params[names[i]] = args[i];
      // The catalog's default body, when the route has one: `client.content.blogPosts.publish(id)` publishes.
      const input = args[names.length] ?? route.defaultBody;
      const callOptions = args[names.length + 1] as CallOptions | undefined;
      const hasBody = route.body != 'none';
      return run({
        id,
        route,
        params,
        body: hasBody ? input : undefined,
        query: hasBody ? undefined : (input as Record<string, unknown> | undefined),
        options: callOptions,
      });
    };
    const parts = id.split('.');
    let node = tree;
    for (const p of parts.slice(0, -1)) node = (node[p] ??= {}) as Record<string, unknown>;
    node[parts.at(-1)!] = method;
  }
  const api = tree as unknown as Api;

  // Iterators and helpers join their areas: client.contacts.all(), client.forms.submitFields(), ...
  const iterators = pagers(api);
  const { content, ...areas } = iterators;
  for (const [area, fns] of Object.entries(areas)) Object.assign(tree[area] as object, fns);
  for (const [area, fns] of Object.entries(content)) Object.assign((tree.content as Record<string, object>)[area], fns);
  const helpers: Helpers = {
    forms: { submitFields: formSubmitter(api) },
    events: { track: eventTracker(api) },
  };
  for (const [area, fns] of Object.entries(helpers)) Object.assign(tree[area] as object, fns);

  const stats = () => limit.stats();
  return Object.assign(tree as unknown as Api & Pagers & Helpers, { stats });
}

/** The form and event helpers, by area. */
export interface Helpers {
  forms: { submitFields: ReturnType<typeof formSubmitter> };
  events: { track: ReturnType<typeof eventTracker> };
}

/** Intersections merge by key: `client.contacts` holds the routes' methods and the iterators. */
export type Client = Api &
  Pagers &
  Helpers & {
    /** Requests of this client running, and waiting for a slot or a token. */
    stats(): { running: number; queued: number };
  };
