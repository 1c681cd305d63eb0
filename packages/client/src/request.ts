/** One call from start to finish: URL with encoded path parameters, credentials, body encoding,
 * pacing, a timeout per attempt, retries of transient failures with backoff (honouring
 * Retry-After), one forced token refresh on EXPIRED_AUTHENTICATION, and an SvcApiError for every
 * failure. */
import { request, type Dispatcher } from 'undici';
import type { Credentials } from './auth';
import type { CallOptions } from './call-options';
import type { Clock } from './clock';
import { decodeBody, encodeBody } from './encoding';
import { redactPath, redactSecrets, SvcApiError, type ClientCategory, type SvcApiErrorInit } from './errors';
import type { Limiter } from './limiter';
import { backoffMs, isRepeatable, isTransient, retryAfterMs } from './retry';
import type { RouteInfo } from './route-table';
import { fillPath, queryString } from './url';

/** Reported before each retry (for logs and metrics; it carries no credential). */
export interface RetryEvent {
  /** The route's id, e.g. `contacts.getByUtk`. */
  route: string;
  /** 1 for the first retry. */
  retry: number;
  /** How long the client waits before it. */
  delayMs: number;
  /** The failed attempt's status (0: no answer). */
  status: number;
  category?: string;
}

export interface Transport {
  baseUrl: string;
  formsUrl: string;
  credentials: Credentials;
  limit: Limiter;
  clock: Clock;
  timeoutMs: number;
  retries: number;
  backoff: { baseMs: number; maxMs: number };
  /** A Retry-After longer than this is not waited for: the call fails with `retryAfterMs` set. */
  maxRetryAfterMs: number;
  userAgent: string;
  dispatcher?: Dispatcher;
  onRetry?: (e: RetryEvent) => void;
}

export interface Call {
  id: string;
  route: RouteInfo;
  params: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: unknown;
  options?: CallOptions;
}

type Headers = Record<string, string | string[] | undefined>;
type Attempt = { status: number; headers: Headers; bytes: Buffer } | { status: 0; failure: ClientCategory; reason: string };

const TIMED_OUT = Symbol('timed out');

/** One HTTP exchange, body read in full, bounded by `timeoutMs` and the caller's signal. */
async function exchange(t: Transport, url: string, init: { method: string; headers: Record<string, string>; body?: string | Uint8Array }, timeoutMs: number, signal?: AbortSignal): Promise<Attempt> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(TIMED_OUT), timeoutMs);
  const onAbort = () => ac.abort(signal!.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const res = await request(url, { ...init, signal: ac.signal, dispatcher: t.dispatcher });
    const bytes = Buffer.from(await res.body.arrayBuffer());
    return { status: res.statusCode, headers: res.headers, bytes };
  } catch (err) {
    if (signal?.aborted) return { status: 0, failure: 'ABORTED', reason: 'aborted' };
    if (ac.signal.reason === TIMED_OUT) return { status: 0, failure: 'TIMEOUT', reason: `timed out after ${timeoutMs} ms` };
    const e = err as Error & { code?: string };
    return { status: 0, failure: 'NETWORK_ERROR', reason: e.code ? `${e.code}: ${e.message}` : e.message };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

/** An error body as text with every known secret cut out, and parsed when it is JSON (some
 * servers answer errors as HTML; old endpoints send JSON as text/plain). */
function readErrorBody(h: Headers, bytes: Buffer, secrets: string[]) {
  const text = redactSecrets(bytes.toString('utf8'), secrets);
  try {
    const json = /json/.test(header(h, 'content-type') ?? '') || /^\s*\{/.test(text);
    return { text, parsed: json ? (JSON.parse(text) as Record<string, unknown>) : undefined };
  } catch {
    return { text, parsed: undefined };
  }
}

const header = (h: Headers, name: string) => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

export async function perform<T>(t: Transport, call: Call): Promise<T> {
  const { id, route, options = {} } = call;
  const auth = t.credentials;
  const isPublic = route.auth.includes('none');
  const query: Record<string, unknown> = { ...call.query, ...options.query };
  if (!isPublic && auth.apiKey) {
    if (!route.auth.includes('hapikey')) throw new TypeError(`${id} needs an OAuth or private-app token: the spec allows API keys on the content API v2 only`);
    query.hapikey = auth.apiKey;
  }
  const path = fillPath(route.path, call.params) + queryString(query);
  const url = (route.host == 'forms' ? t.formsUrl : t.baseUrl) + path;
  const shownPath = redactPath(path);
  const { body, contentType } = await encodeBody(route.body, call.body);
  const repeatable = isRepeatable(id, route.method, call.body, options.safe);
  const retries = options.retries ?? t.retries;
  const fail = (init: Omit<SvcApiErrorInit, 'method' | 'path'>) =>
    new SvcApiError({ ...init, message: redactSecrets(init.message, auth.secrets()), method: route.method, path: shownPath });
  const aborted = () => fail({ status: 0, category: 'ABORTED', message: `${route.method} ${shownPath} aborted` });
  let forcedRefresh = false;

  for (let attempt = 0; ; attempt++) {
    const headers: Record<string, string> = { 'user-agent': t.userAgent, accept: 'application/json' };
    if (contentType) headers['content-type'] = contentType;
    const token = isPublic || auth.apiKey ? undefined : await auth.bearer();
    if (token) headers.authorization = `Bearer ${token}`;

    await t.limit.acquire(options.signal).catch(() => {
      throw aborted();
    });
    let res: Attempt;
    try {
      res = await exchange(t, url, { method: route.method, headers, body }, options.timeoutMs ?? t.timeoutMs, options.signal);
    } finally {
      t.limit.release();
    }

    if ('failure' in res && res.failure == 'ABORTED') throw aborted();
    let waitMs: number | undefined;
    let error: SvcApiError;
    if ('failure' in res) {
      error = fail({ status: 0, category: res.failure, message: `${route.method} ${shownPath} failed: ${res.reason}` });
    } else {
      const { status, headers: h, bytes } = res;
      if (header(h, 'x-svc-ratelimit-remaining') == '0') t.limit.drain();
      if (status < 300) {
        if (!bytes.length) return undefined as T;
        try {
          return decodeBody(header(h, 'content-type') ?? '', bytes).value as T;
        } catch {
          throw fail({ status, category: 'INVALID_RESPONSE', message: `${route.method} ${shownPath} answered ${status} with a body that is not valid JSON` });
        }
      }
      if (status < 400) return { status, location: header(h, 'location') } as T;

      const { parsed, text } = readErrorBody(h, bytes, auth.secrets());
      const category = (parsed?.category ?? parsed?.errorType) as string | undefined;
      if (status == 401 && category == 'EXPIRED_AUTHENTICATION' && auth.canRefresh && token && !forcedRefresh) {
        // Once per call: a token the platform says expired is replaced, then the call repeats.
        forcedRefresh = true;
        await auth.expired(token);
        attempt--;
        continue;
      }
      waitMs = retryAfterMs(header(h, 'retry-after'), Date.now());
      if (status == 429) {
        const interval = Number(header(h, 'x-svc-ratelimit-interval-milliseconds'));
        // Every request of this client waits, not just this one.
        t.limit.hold(waitMs ?? (interval > 0 ? Math.min(interval, 1000) : 1000));
      }
      error = fail({
        status,
        category,
        message: typeof parsed?.message == 'string' ? parsed.message : `${route.method} ${shownPath} answered ${status}`,
        correlationId: parsed?.correlationId as string | undefined,
        requestId: parsed?.requestId as string | undefined,
        retryAfterMs: waitMs,
        body: parsed ?? (text ? text.slice(0, 2000) : undefined),
      });
    }

    if (attempt >= retries || !isTransient(error.status, repeatable) || (waitMs ?? 0) > t.maxRetryAfterMs) throw error;
    const delayMs = Math.max(waitMs ?? 0, backoffMs(attempt, t.backoff.baseMs, t.backoff.maxMs));
    t.onRetry?.({ route: id, retry: attempt + 1, delayMs, status: error.status, category: error.category });
    await t.clock.sleep(delayMs, options.signal).catch(() => {
      throw aborted();
    });
  }
}
