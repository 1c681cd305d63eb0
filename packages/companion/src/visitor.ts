/** `GET /visitor`: who is this browser? The `svcutk` cookie is looked up on the platform (cached
 * per utk; misses too, briefly) and the answer carries only the allow-listed properties. The contact's
 * email is kept server-side for the preference centre and never sent to the browser. */
import type { Client } from '@svc/client';
import { SvcApiError } from '@svc/client';
import type { NextFunction, Request, Response } from 'express';
import { invalidAnswer, isObject } from './http/errors';
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
const answer = (v: KnownVisitor | undefined): VisitorAnswer => (v ? { known: true, vid: v.vid, properties: v.properties } : UNKNOWN);

/** Writes the answer directly: it is private and never stored, so Express's ETag (a hash of every
 * body) and freshness check would be wasted work on the hottest route. */
function send(res: Response, body: VisitorAnswer) {
  const text = JSON.stringify(body);
  res.setHeader('cache-control', 'private, no-store');
  res.vary('Cookie');
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(text));
  res.end(text);
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
  const cache: VisitorCache = o.cache ?? new TtlCache<KnownVisitor | undefined>(o.cacheTtlMs, o.cacheSize, o.now, o.missTtlMs);
  const wanted = [...new Set([...o.properties, 'email'])];

  async function load(utk: string): Promise<KnownVisitor | undefined> {
    try {
      const c = await client.contacts.getByUtk(utk, { property: wanted, propertyMode: 'value_only' }, { signal: AbortSignal.timeout(o.timeoutMs) });
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

  return {
    /** The contact linked to `utk`, or undefined; cached either way. */
    lookup: (utk: string) => cache.get(utk, () => load(utk)),
    /** Forget a visitor (after their email preferences or identity changed). */
    forget: (utk: string) => cache.delete(utk),
    /** The route. A cache hit answers synchronously: the common case costs no promise. */
    route(req: Request, res: Response, next: NextFunction) {
      const utk = visitorUtk(req);
      if (!utk) return send(res, UNKNOWN);
      const hit = cache.peek?.(utk);
      if (hit) return send(res, answer(hit.value));
      cache.get(utk, () => load(utk)).then((v) => send(res, answer(v)), next);
    },
  };
}

export type Visitors = ReturnType<typeof visitors>;
