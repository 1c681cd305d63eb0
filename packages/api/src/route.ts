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

/** Whether a failed attempt may be sent again (a 5xx or no answer may follow work already done):
 * - `safe`: repeating it changes nothing more (GET, PUT, DELETE; upserts, membership changes, refreshes);
 * - `unsafe`: a repeat may do the work twice (creates, sends);
 * - `safe-with-id`: safe when the body carries a string `id`, by which the platform drops repeats
 *   (the events API). */
export type RetryPolicy = 'safe' | 'unsafe' | 'safe-with-id';

/** Which entry an Atom body holds; it decides the fields parsed out of it. */
export type AtomEntry = 'post' | 'comment';

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
  /** For `bodyType: 'atom'` only: the entry the body holds. */
  atomEntry?: AtomEntry;
  /** For `bodyType: 'json'` only: the body may come urlencoded as well (flat string fields), as
   * older clients send it. Clients send JSON. */
  urlencodedToo?: true;
  body: B;
  /** Status of a success. */
  status: number;
  /** Body of a success (`z.undefined()` when there is none). */
  response: R;
  milestone: Milestone;
  /** The kind of record the route acts on, the one its `idParam` names: by default the id's area
   * (`contacts.getByUtk` → `contacts`); content API v2 routes name their collection's path segment
   * (`blog-posts`), the blog v1 routes `blogs`, `posts` or `comments`. */
  resource: string;
  /** The path parameter naming the one record of `resource` the route acts on; absent when it
   * acts on the collection (list, create). By default the first path parameter. */
  idParam?: string;
  /** Whether a failed attempt may be repeated; by default `safe` for every method but POST. */
  retry: RetryPolicy;
  /** Whether the route changes state (the platform runs it in the group commit); by default every
   * method but GET. A GET that writes (the events pixel) says so. */
  writes: boolean;
  /** Callable without credentials (`auth` includes `none`). */
  public: boolean;
  /** The body a client sends when the caller gives none (publishing: `schedule-publish`). */
  defaultBody?: Record<string, unknown>;
  /** The route may answer a 3xx with a `Location` (a form submission with a redirect URL): a
   * client hands it back as `{ status, location }` instead of following it. */
  redirects?: true;
}

type Input<P, Q, B, R> = Omit<Partial<RouteDef>, 'params' | 'query' | 'body' | 'response'> &
  Pick<RouteDef, 'id' | 'method' | 'path' | 'summary'> & { params?: P; query?: Q; body?: B; response?: R };

/** Auth kinds used unless a route says otherwise. */
export const BEARER = ['oauth', 'privateApp'] as const satisfies readonly AuthKind[];

/** Path parameters in order: `/a/:b/c.:d` → ['b', 'd']. */
export const pathParams = (path: string) => [...path.matchAll(/:([A-Za-z_]\w*)/g)].map((m) => m[1]);

/** Fills in the defaults: base host, bearer auth, no parameters, no body, 200, milestone 1, and the
 * facts derived from those (resource, id parameter, retry, writes, public) unless the route says. */
export function route<
  P extends z.ZodObject = z.ZodObject<Record<never, never>>,
  Q extends z.ZodObject = z.ZodObject<Record<never, never>>,
  B extends z.ZodType = z.ZodUndefined,
  R extends z.ZodType = z.ZodUndefined,
  // The literal path, so clients can type a method's path parameters.
  const Path extends string = string,
>(def: Input<P, Q, B, R> & { path: Path }): RouteDef<P, Q, B, R> & { path: Path } {
  const method = def.method;
  const auth = def.auth ?? BEARER;
  return {
    host: 'base',
    auth,
    scopes: [],
    bodyType: def.body ? 'json' : 'none',
    status: def.response ? 200 : 204,
    milestone: 1,
    resource: def.id.split('.').slice(0, -1).join('.'),
    idParam: pathParams(def.path)[0],
    retry: method == 'POST' ? 'unsafe' : 'safe',
    writes: method != 'GET',
    public: auth.includes('none'),
    ...def,
    params: (def.params ?? z.object({})) as P,
    query: (def.query ?? z.object({})) as Q,
    body: (def.body ?? z.undefined()) as B,
    response: (def.response ?? z.undefined()) as R,
  };
}

/** A set of routes keyed by client name. */
export type Routes = Record<string, RouteDef>;
