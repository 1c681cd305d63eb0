/** The typed contract between the catalog and the platform's handlers. */
import type { Catalog, RouteDef, RouteId } from '@svc/api';
import type { Request, Response } from 'express';
import type { z } from 'zod';
import type { Queryable } from '../db/engine';
import type { UploadedFile } from '../store/files/files';

/** Who is calling (http/auth.ts finds out). */
export interface Caller {
  /** The portal every read and write is confined to; undefined on public routes. */
  portalId?: number;
  kind: 'oauth' | 'privateApp' | 'hapikey' | 'none';
  scopes: string[];
  /** Rate-limit budget: the portal, or the OAuth app in the portal. */
  key?: string;
}

/** A response other than "the route's status with this JSON body". */
export class Reply {
  constructor(
    readonly status: number,
    readonly body?: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

export interface Context<R extends RouteDef> {
  params: z.output<R['params']>;
  query: z.output<R['query']>;
  body: z.output<R['body']>;
  caller: Caller;
  /** The caller's portal (routes with auth); 0 on public routes. */
  portalId: number;
  /** The caller's address (http/client-ip.ts: the forwarded one behind a trusted proxy). */
  ip: string;
  /** The files of a multipart upload (http/multipart.ts), else empty. */
  files: UploadedFile[];
  /** Where this request's queries run: its transaction on a writing route, the engine on a read.
   * Stores converted to the engine take it as their first argument. */
  db: Queryable;
  req: Request;
  res: Response;
}

export type Handler<R extends RouteDef> = (ctx: Context<R>) => HandlerResult<R> | Promise<HandlerResult<R>>;

/** The body (validated by TypeScript against the catalog), a Reply, or nothing for no content. */
type HandlerResult<R extends RouteDef> =
  z.input<R['response']> | Reply | (R['response'] extends z.ZodUndefined ? void : never);

export type Handlers = { [K in RouteId]?: Handler<Catalog[K]> };
