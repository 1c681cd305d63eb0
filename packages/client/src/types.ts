/** The client's shape, derived from the catalog's types: `client.contacts.getByUtk(utk, query?)`.
 * Only types come from @svc/api (and zod); nothing here exists at run time. */
import type { Catalog, RouteId } from '@svc/api';
import type { z } from 'zod';
import type { CallOptions } from './call-options';
import type { routeTable } from './route-table';

/** The names of a path's parameters, in order: `/a/:b/c.:d` → ['b', 'd']. */
type ParamNames<P extends string> = P extends `${string}:${infer Rest}`
  ? Rest extends `${infer Name}/${infer Tail}`
    ? [Name, ...ParamNames<`/${Tail}`>]
    : Rest extends `${infer Name}.${infer Tail}`
      ? [Name, ...ParamNames<`.${Tail}`>]
      : [Rest]
  : [];

/** A path parameter as a caller gives it (ids may be numbers; batch lists may be arrays). */
export type ParamValue = string | number | readonly (string | number)[];
type ParamArgs<Names extends unknown[]> = { [I in keyof Names]: ParamValue };

/** A query value as a caller gives it: numbers and booleans are sent as strings, arrays repeat. */
type QueryValue = string | number | boolean | readonly (string | number)[];
/** The query's names from the catalog, with caller-friendly values (enums stay enums). */
export type QueryInput<Q> = {
  [K in keyof Q]?: Q[K] extends string ? (string extends Q[K] ? QueryValue : Q[K]) : QueryValue;
};

type Route<K extends RouteId> = Catalog[K];
/** The main input: the body for routes with one, else the query. Atom routes take the Atom
 * entry itself, as XML text (the catalog's schema describes what the platform parses out of it). */
export type Input<K extends RouteId> = (typeof routeTable)[K]['body'] extends 'atom'
  ? string
  : Route<K>['body'] extends z.ZodUndefined
    ? QueryInput<z.input<Route<K>['query']>>
    : z.input<Route<K>['body']>;

/** A 3xx answer (form submission with a redirect URL): the client does not follow it. */
export interface Redirect {
  status: number;
  location: string | undefined;
}

/** What a call resolves to: the success body; `undefined` for bodiless answers (204, 202); a
 * Redirect or nothing for routes the catalog says may redirect. */
export type Output<K extends RouteId> = (typeof routeTable)[K] extends { redirects: true }
  ? Redirect | undefined
  : z.output<Route<K>['response']>;

/** Routes whose input the client fills in when it is left out (the catalog's `defaultBody`). */
export type Defaulted = { [K in RouteId]: (typeof routeTable)[K] extends { defaultBody: object } ? K : never }[RouteId];

/** The input is optional when every field of it is, or when the client has a default for it. */
type InputArgs<K extends RouteId> =
  Record<never, never> extends Input<K>
    ? [input?: Input<K>, options?: CallOptions]
    : K extends Defaulted
      ? [input?: Input<K>, options?: CallOptions]
      : [input: Input<K>, options?: CallOptions];

/** One route's method: path parameters in path order, then the input, then per-call options.
 * The path comes from the generated route table, where every path is a literal type (some catalog
 * paths are built by helpers and typed only as `string`). */
export type Method<K extends RouteId> = (
  ...args: [...ParamArgs<ParamNames<(typeof routeTable)[K]['path']>>, ...InputArgs<K>]
) => Promise<Output<K>>;

/** `a.b.c` → `{a: {b: {c: V}}}` */
type Nest<K extends string, V> = K extends `${infer Head}.${infer Tail}`
  ? { [P in Head]: Nest<Tail, V> }
  : { [P in K]: V };
type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** Every route's method, grouped by the dots of its id. */
export type Api = UnionToIntersection<{ [K in RouteId]: Nest<K, Method<K>> }[RouteId]>;
