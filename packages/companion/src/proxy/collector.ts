/** The tracker's collector, first-party: `POST /collect/e` and `GET /collect/p.gif` are passed to
 * `{base_url}/collect/...`, and the visitor's `svcutk` comes back as a server-set cookie. Browsers
 * cap cookies set by scripts at 7 days (Safari's ITP); one set by the site's own server in an HTTP
 * answer keeps its full lifetime. Not for visitors who opted out or sent no identifiers. Upstream
 * error bodies are replaced by our own; statuses the tracker acts on (429, 5xx) and `Retry-After`
 * pass through so it retries as it would against the platform. */
import { COLLECT_BATCH_PATH, COLLECT_PIXEL_PATH, isUtk, MAX_BATCH_BYTES, UTK_COOKIE } from '@svc/protocol';
import { serialize } from 'cookie';
import { request, type Dispatcher } from 'undici';
import { bodyBytes } from '../http/body';
import { HttpError } from '../http/errors';
import type { CoreRequest, Reply, ReplyHeaders } from '../http/exchange';
import { optedOut } from '../utk';

export interface CollectorOptions {
  baseUrl: string;
  dispatcher?: Dispatcher;
  timeoutMs: number;
  cookieDomain?: string;
  cookieDays: number;
}

/** The utk to re-issue: the cookie's, else the one every event of the batch carries. */
function utkOf(req: CoreRequest, events: Record<string, unknown>[]): string | undefined {
  if (optedOut(req.cookies())) return undefined;
  if (events.some((e) => e.ce === 'false')) return undefined;
  const c = req.cookies()[UTK_COOKIE];
  if (isUtk(c)) return c;
  const vis = new Set(events.map((e) => e.vi));
  const [vi] = vis;
  return vis.size == 1 && isUtk(vi) ? vi : undefined;
}

const upstreamMessages: Record<number, string> = {
  400: 'the collector refused the events as invalid',
  403: 'the collector does not accept these events for this portal',
  413: 'the batch is too large',
  415: 'send the batch as text/plain or application/json',
};

export function collector(o: CollectorOptions) {
  async function forward(
    req: CoreRequest,
    path: string,
    body: Buffer | undefined,
    events: Record<string, unknown>[],
  ): Promise<Reply> {
    const headers: Record<string, string> = { 'x-forwarded-for': req.ip ?? '' };
    for (const h of ['content-type', 'user-agent', 'accept-language', 'referer']) {
      const value = req.header(h);
      if (value !== undefined) headers[h] = value;
    }
    let up: Dispatcher.ResponseData;
    try {
      up = await request(o.baseUrl + path, {
        method: req.method == 'POST' ? 'POST' : 'GET',
        headers,
        body,
        dispatcher: o.dispatcher,
        signal: AbortSignal.timeout(o.timeoutMs),
      });
    } catch (e) {
      const timeout = (e as Error).name == 'TimeoutError' || (e as Error).name == 'AbortError';
      throw new HttpError(
        timeout ? 504 : 502,
        timeout ? 'the collector did not answer in time' : 'the collector could not be reached',
      );
    }
    const status = up.statusCode;
    const data = Buffer.from(await up.body.arrayBuffer().catch(() => new ArrayBuffer(0)));
    if (status >= 200 && status < 300) {
      const out: ReplyHeaders = { 'cache-control': 'no-store' };
      const type = up.headers['content-type'];
      if (typeof type == 'string') out['content-type'] = type;
      const utk = utkOf(req, events);
      if (utk)
        out['set-cookie'] = serialize(UTK_COOKIE, utk, {
          path: '/',
          maxAge: o.cookieDays * 86_400,
          sameSite: 'lax',
          secure: req.secure,
          domain: o.cookieDomain,
        });
      return { status, headers: out, body: data };
    }
    const retryAfter = up.headers['retry-after'];
    if (status == 429 || status == 408 || status >= 500)
      throw new HttpError(
        status == 429 || status == 408 ? status : 502,
        'the collector is busy; try again later',
        typeof retryAfter == 'string' ? { 'retry-after': retryAfter } : {},
      );
    throw new HttpError(
      upstreamMessages[status] ? status : 400,
      upstreamMessages[status] ?? 'the collector refused the events',
    );
  }

  return {
    /** `POST /collect/e`: the body as the tracker sent it (text/plain JSON), at most 64 KB. */
    batch: async (req: CoreRequest): Promise<Reply> => {
      const body = await bodyBytes(req, MAX_BATCH_BYTES);
      let events: Record<string, unknown>[] = [];
      try {
        const parsed: unknown = JSON.parse(body.toString('utf8'));
        if (Array.isArray(parsed))
          events = (parsed as unknown[]).filter((e): e is Record<string, unknown> => !!e && typeof e == 'object');
      } catch {
        // The collector names the problem; the proxy only reads the batch for the visitor's utk.
      }
      return forward(req, COLLECT_BATCH_PATH, body, events);
    },
    /** `GET /collect/p.gif?...`: one event as query parameters. */
    pixel: async (req: CoreRequest): Promise<Reply> => {
      const params = Object.fromEntries(new URLSearchParams(req.search));
      return forward(req, COLLECT_PIXEL_PATH + req.search, undefined, [params]);
    },
  };
}
