/** The client's shape, derived from the catalog: `client.contacts.getByUtk(utk, query?)`. */
import type { Catalog, RouteDef, RouteId } from '@svc/api';
import type { z } from 'zod';
import type { CallOptions } from './request';

/** The names of a path's parameters, in order: `/a/:b/c.:d` → ['b', 'd']. */
type ParamNames<P extends string> = P extends `${string}:${infer Rest}`
  ? Rest extends `${infer Name}/${infer Tail}`
    ? [Name, ...ParamNames<`/${Tail}`>]
    : Rest extends `${infer Name}.${infer Tail}`
      ? [Name, ...ParamNames<`.${Tail}`>]
      : [Rest]
  : [];

/** A path parameter as a caller gives it (ids may be numbers; batch lists may be arrays). */
type ParamValue = string | number | readonly (string | number)[];
type ParamArgs<Names extends unknown[]> = { [I in keyof Names]: ParamValue };

/** A query value as a caller gives it: numbers and booleans are sent as strings, arrays repeat. */
type QueryValue = string | number | boolean | readonly (string | number)[];
/** The query's names from the catalog, with caller-friendly values (enums stay enums). */
export type QueryInput<Q> = { [K in keyof Q]?: Q[K] extends string ? (string extends Q[K] ? QueryValue : Q[K]) : QueryValue };
/** The main input: the body for routes with one, else the query. */
type Input<R extends RouteDef> = R['body'] extends z.ZodUndefined ? QueryInput<z.input<R['query']>> : z.input<R['body']>;
/** What a call resolves to: the success body (302 answers resolve to `{status, location}`). */
export type Output<R extends RouteDef> = z.output<R['response']>;

export type Method<R extends RouteDef> = (
  ...args: [...ParamArgs<ParamNames<R['path']>>, input?: Input<R>, options?: CallOptions]
) => Promise<Output<R>>;

/** `a.b.c` → `{a: {b: {c: V}}}` */
type Nest<K extends string, V> = K extends `${infer Head}.${infer Tail}` ? { [P in Head]: Nest<Tail, V> } : { [P in K]: V };
type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

export type Api = UnionToIntersection<{ [K in RouteId]: Nest<K, Method<Catalog[K]>> }[RouteId]>;
