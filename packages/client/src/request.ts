/** One call: URL with encoded path parameters, auth, body encoding, pacing, timeout, retries with
 * exponential backoff and full jitter (honouring Retry-After), one forced token refresh on
 * EXPIRED_AUTHENTICATION, and SvcApiError for every failure. */
import type { RouteDef } from '@svc/api';
import { request as undiciRequest, type Dispatcher } from 'undici';
import type { Credentials } from './auth';
import { redactPath, SvcApiError } from './errors';
import type { limiter } from './limiter';

export interface CallOptions {
  /** Aborts the call (and its retries). */
  signal?: AbortSignal;
  /** Per attempt, in ms. Default: the client's `timeoutMs`. */
  timeoutMs?: number;
  /** Extra query parameters (for routes whose main input is the body). */
  query?: Record<string, unknown>;
  /** Allow retrying this non-idempotent call on 5xx and network errors. */
  safe?: boolean;
}

export interface Transport {
  baseUrl: string;
  formsUrl: string;
  credentials: Credentials;
  limit: ReturnType<typeof limiter>;
  timeoutMs: number;
  retries: number;
  backoff: { baseMs: number; maxMs: number };
  userAgent: string;
  dispatcher?: Dispatcher;
  /** POST routes that are idempotent by nature (upserts, membership changes). */
  safeRoutes: ReadonlySet<string>;
}

export interface Call {
  route: RouteDef;
  params: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: unknown;
  options?: CallOptions;
}

const IDEMPOTENT = new Set(['GET', 'PUT', 'DELETE']);

/** `/a/:b` with `{b: 'x/y'}` → `/a/x%2Fy`. Empty, `.` and `..` are refused: URL parsers would
 * drop or climb on them whatever their encoding. */
export function fillPath(path: string, params: Record<string, unknown>) {
  return path.replace(/:([A-Za-z_]\w*)/g, (_m, name: string) => {
    const value = params[name];
    const s = Array.isArray(value) ? value.join(',') : String(value ?? '');
    if (s == '' || s == '.' || s == '..') throw new TypeError(`path parameter ${name} must not be "${s}"`);
    return encodeURIComponent(s);
  });
}

function queryString(query: Record<string, unknown> | undefined) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {}))
    for (const item of Array.isArray(v) ? v : [v]) if (item !== undefined && item !== null) q.append(k, String(item));
  const s = q.toString();
  return s ? '?' + s : '';
}

function encodeBody(route: RouteDef, body: unknown): { body?: string | FormData; type?: string } {
  if (route.bodyType == 'none' || body === undefined) return {};
  if (route.bodyType == 'urlencoded') {
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(body as Record<string, unknown>))
      for (const item of Array.isArray(v) ? v : [v]) if (item !== undefined) form.append(k, String(item));
    return { body: form.toString(), type: 'application/x-www-form-urlencoded' };
  }
  if (route.bodyType == 'multipart') return { body: body as FormData };
  if (route.bodyType == 'atom') return { body: String(body), type: 'application/atom+xml' };
  return { body: JSON.stringify(body), type: 'application/json' };
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => (signal?.removeEventListener('abort', onAbort), resolve()), ms);
    const onAbort = () => (clearTimeout(t), reject(signal!.reason));
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** Seconds or an HTTP date → ms. */
const retryAfter = (value: string | string[] | undefined) => {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return undefined;
  const ms = /^\d+$/.test(v) ? Number(v) * 1000 : Date.parse(v) - Date.now();
  return Number.isFinite(ms) ? Math.max(0, ms) : undefined;
};

export async function perform<T>(t: Transport, call: Call): Promise<T> {
  const { route, options = {} } = call;
  const base = route.host == 'forms' ? t.formsUrl : t.baseUrl;
  const query: Record<string, unknown> = { ...call.query, ...options.query };
  const auth = t.credentials;
  if (!route.auth.includes('none') || auth.apiKey) {
    if (auth.apiKey && !route.auth.includes('hapikey') && !route.auth.includes('none'))
      throw new TypeError(`${route.id} needs an OAuth or private-app token: the spec allows API keys on the content API only`);
    if (auth.apiKey && route.auth.includes('hapikey')) query.hapikey = auth.apiKey;
  }
  const path = fillPath(route.path, call.params) + queryString(query);
  const shownPath = redactPath(path);
  const { body, type } = encodeBody(route, call.body);
  const retryable = IDEMPOTENT.has(route.method) || options.safe || t.safeRoutes.has(route.id);
  let refreshed = false;

  for (let attempt = 0; ; attempt++) {
    const headers: Record<string, string> = { 'user-agent': t.userAgent, accept: 'application/json' };
    if (type) headers['content-type'] = type;
    const token = route.auth.includes('none') && !auth.apiKey ? undefined : await auth.bearer();
    if (token) headers.authorization = `Bearer ${token}`;

    await t.limit.acquire();
    let status = 0;
    let text = '';
    let resHeaders: Record<string, string | string[] | undefined> = {};
    let failure: Error | undefined;
    try {
      const timeout = options.timeoutMs ?? t.timeoutMs;
      const signal = options.signal ? AbortSignal.any([options.signal, AbortSignal.timeout(timeout)]) : AbortSignal.timeout(timeout);
      const res = await undiciRequest(base + path, {
        method: route.method,
        headers,
        body: body as never,
        signal,
        dispatcher: t.dispatcher,
        headersTimeout: timeout,
        bodyTimeout: timeout,
      });
      status = res.statusCode;
      resHeaders = res.headers;
      text = await res.body.text();
    } catch (err) {
      failure = err as Error;
    } finally {
      t.limit.release();
    }
    if (options.signal?.aborted) throw new SvcApiError({ status: 0, message: 'aborted', method: route.method, path: shownPath });

    if (!failure && status < 400) {
      if (status >= 300 && status < 400) return { status, location: resHeaders.location } as T;
      if (!text) return undefined as T;
      return (isJson(resHeaders) ? JSON.parse(text) : text) as T;
    }
    let parsed: Record<string, unknown> | undefined;
    try {
      parsed = text && isJson(resHeaders) ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    const waitMs = retryAfter(resHeaders['retry-after']);
    if (status == 429) t.limit.pause(waitMs ?? Number(resHeaders['x-svc-ratelimit-interval-milliseconds'] ?? 1000));

    if (status == 401 && parsed?.category == 'EXPIRED_AUTHENTICATION' && !refreshed && token) {
      refreshed = await auth.expired(token);
      attempt--;
      continue;
    }
    const transient = status == 429 || (retryable && (status >= 500 || status == 0));
    if (transient && attempt < t.retries) {
      const jitter = Math.random() * Math.min(t.backoff.maxMs, t.backoff.baseMs * 2 ** attempt);
      await sleep(Math.max(waitMs ?? 0, jitter), options.signal).catch(() => {
        throw new SvcApiError({ status: 0, message: 'aborted', method: route.method, path: shownPath });
      });
      continue;
    }
    throw new SvcApiError({
      status,
      message: failure
        ? `${route.method} ${shownPath} failed: ${failure.name == 'TimeoutError' ? 'timed out' : failure.message}`
        : String(parsed?.message ?? `${route.method} ${shownPath} answered ${status}`),
      method: route.method,
      path: shownPath,
      category: (parsed?.category ?? parsed?.errorType) as string | undefined,
      correlationId: parsed?.correlationId as string | undefined,
      requestId: parsed?.requestId as string | undefined,
      retryAfterMs: waitMs,
      body: parsed ?? (text || undefined),
    });
  }
}

const isJson = (headers: Record<string, string | string[] | undefined>) => /json/.test(String(headers['content-type'] ?? ''));
