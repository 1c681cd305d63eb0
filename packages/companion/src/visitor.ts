/** `GET /visitor`: who is this browser? The `svcutk` cookie is looked up on the platform (cached
 * per utk; misses too, briefly) and the answer carries only the allow-listed properties. The contact's
 * email is kept server-side for the preference centre and never sent to the browser. The same
 * answer, from the same cache, is `getVisitor(cookies)` for a page rendered on the server. */
import { OPT_OUT_COOKIE, UTK_COOKIE } from '@svc/protocol';
import type { Client } from '@svc/client';
import { SvcApiError } from '@svc/client';
import { invalidAnswer, isObject } from './http/errors';
import { parseCookies, privateJson, type CoreRequest, type Cookies, type Reply } from './http/exchange';
import { TtlCache } from './ttl-cache';
import { visitorUtk } from './utk';

export interface KnownVisitor {
  vid: number;
  /** Allow-listed property values, as strings. */
  properties: Record<string, string>;
  /** Server-side only. */
  email?: string;
}

export type VisitorAnswer = { known: false } | { known: true; vid: number; properties: Record<string, string> };

const UNKNOWN: VisitorAnswer = { known: false };
const answer = (v: KnownVisitor | undefined): VisitorAnswer =>
  v ? { known: true, vid: v.vid, properties: v.properties } : UNKNOWN;

/** Where a server-rendered page has the visitor's cookies: the `Cookie` header, or a cookie store
 * such as the one Next.js's `cookies()` returns (`get(name)` → `{ value }`). */
export type CookieSource =
  string | null | undefined | { get(name: string): { value: string } | string | null | undefined };

/** The two cookies the visitor's identity is read from. */
export function visitorCookies(source: CookieSource): Cookies {
  if (source === null || source === undefined || typeof source == 'string') return parseCookies(source ?? undefined);
  if (typeof source.get != 'function')
    throw new TypeError(
      'getVisitor takes the Cookie header or a cookie store with get(name), such as cookies() in Next.js',
    );
  const value = (name: string) => {
    const c = source.get(name);
    return typeof c == 'string' ? c : (c?.value ?? undefined);
  };
  return { [UTK_COOKIE]: value(UTK_COOKIE), [OPT_OUT_COOKIE]: value(OPT_OUT_COOKIE) };
}

/** Where found visitors are kept: in this process (`TtlCache`), or in Redis for all instances. */
export interface VisitorCache {
  get(utk: string, load: () => Promise<KnownVisitor | undefined>): Promise<KnownVisitor | undefined>;
  /** A fresh entry without waiting, when the cache can tell synchronously. */
  peek?(utk: string): { value: KnownVisitor | undefined } | undefined;
  delete(utk: string): void | Promise<void>;
}

export interface VisitorOptions {
  properties: string[];
  cacheTtlMs: number;
  missTtlMs: number;
  cacheSize: number;
  now: () => number;
  timeoutMs: number;
  /** Default: a `TtlCache` in this process. */
  cache?: VisitorCache;
}

export function visitors(client: Client, o: VisitorOptions) {
  const cache: VisitorCache =
    o.cache ?? new TtlCache<KnownVisitor | undefined>(o.cacheTtlMs, o.cacheSize, o.now, o.missTtlMs);
  const wanted = [...new Set([...o.properties, 'email'])];

  async function load(utk: string): Promise<KnownVisitor | undefined> {
    try {
      const c = await client.contacts.getByUtk(
        utk,
        { property: wanted, propertyMode: 'value_only' },
        { signal: AbortSignal.timeout(o.timeoutMs) },
      );
      if (!isObject(c) || typeof c.vid != 'number' || !isObject(c.properties)) throw invalidAnswer();
      const properties: Record<string, string> = {};
      for (const name of o.properties) {
        const v = c.properties[name]?.value;
        if (v !== undefined && v !== null && v !== '') properties[name] = String(v);
      }
      const email = c.properties.email?.value;
      return { vid: c.vid, properties, email: email ? String(email) : undefined };
    } catch (e) {
      if (e instanceof SvcApiError && e.status == 404) return undefined;
      throw e;
    }
  }

  /** What GET /visitor answers for these cookies. A cache hit answers synchronously: the common
   * case costs no promise. */
  function answerFor(cookies: Cookies): VisitorAnswer | Promise<VisitorAnswer> {
    const utk = visitorUtk(cookies);
    if (!utk) return UNKNOWN;
    const hit = cache.peek?.(utk);
    if (hit) return answer(hit.value);
    return cache.get(utk, () => load(utk)).then(answer);
  }

  return {
    /** The contact linked to `utk`, or undefined; cached either way. */
    lookup: (utk: string) => cache.get(utk, () => load(utk)),
    /** Forget a visitor (after their email preferences or identity changed). */
    forget: (utk: string) => cache.delete(utk),
    answerFor,
    /** The route. */
    route(req: CoreRequest): Reply | Promise<Reply> {
      const a = answerFor(req.cookies());
      return a instanceof Promise ? a.then(privateJson) : privateJson(a);
    },
  };
}

export type Visitors = ReturnType<typeof visitors>;
