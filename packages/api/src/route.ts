/** What one catalog route says: where it lives, who may call it, and the schemas of its input and
 * output. The platform routes and validates from it, the client builds a method from it, and the
 * OpenAPI document is generated from it. */
import { z } from 'zod';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** How a caller authenticates:
 * - `oauth`: `Authorization: Bearer <access token>` from `POST /auth/v1/refresh`;
 * - `privateApp`: `Authorization: Bearer <private-app token>`;
 * - `hapikey`: `?hapikey=<API key>` (the spec allows it on the content API v2 only);
 * - `none`: public (form submission, token refresh). */
export type AuthKind = 'oauth' | 'privateApp' | 'hapikey' | 'none';

/** How the request body is encoded. */
export type BodyType = 'none' | 'json' | 'urlencoded' | 'multipart' | 'atom';

/** Which part of the platform implements the route: part 1 (contacts, lists, properties, forms,
 * email, workflows, tracking, auth) or part 2 (content, blog v1, keywords, prospects, settings,
 * social). */
export type Milestone = 1 | 2;

export interface RouteDef<
  P extends z.ZodObject = z.ZodObject,
  Q extends z.ZodObject = z.ZodObject,
  B extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
> {
  /** Dotted client name, e.g. `contacts.getByUtk` → `client.contacts.getByUtk(...)`. */
  id: string;
  method: Method;
  /** Express-style path (`:name` parameters) relative to `{base_url}` or `{forms_url}`. */
  path: string;
  host: 'base' | 'forms';
  summary: string;
  auth: readonly AuthKind[];
  /** The caller needs at least one of these scopes (empty: any authenticated caller). */
  scopes: readonly string[];
  params: P;
  query: Q;
  bodyType: BodyType;
  body: B;
  /** Status of a success. */
  status: number;
  /** Body of a success (`z.undefined()` when there is none). */
  response: R;
  milestone: Milestone;
}

type Input<P, Q, B, R> = Omit<Partial<RouteDef>, 'params' | 'query' | 'body' | 'response'> &
  Pick<RouteDef, 'id' | 'method' | 'path' | 'summary'> & { params?: P; query?: Q; body?: B; response?: R };

/** Auth kinds used unless a route says otherwise. */
export const BEARER = ['oauth', 'privateApp'] as const satisfies readonly AuthKind[];

/** Fills in the defaults: base host, bearer auth, no parameters, no body, 200, milestone 1. */
export function route<
  P extends z.ZodObject = z.ZodObject<{}>,
  Q extends z.ZodObject = z.ZodObject<{}>,
  B extends z.ZodType = z.ZodUndefined,
  R extends z.ZodType = z.ZodUndefined,
  // The literal path, so clients can type a method's path parameters.
  const Path extends string = string,
>(def: Input<P, Q, B, R> & { path: Path }): RouteDef<P, Q, B, R> & { path: Path } {
  return {
    host: 'base',
    auth: BEARER,
    scopes: [],
    bodyType: def.body ? 'json' : 'none',
    status: def.response ? 200 : 204,
    milestone: 1,
    ...def,
    params: (def.params ?? z.object({})) as P,
    query: (def.query ?? z.object({})) as Q,
    body: (def.body ?? z.undefined()) as B,
    response: (def.response ?? z.undefined()) as R,
  };
}

/** A set of routes keyed by client name. */
export type Routes = Record<string, RouteDef>;
