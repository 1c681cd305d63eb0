/** The makers of the content API's routes (routes/content.ts): each collection is described once
 * (`coll`), and its routes are built from small makers (one per kind of endpoint) and named by
 * `group`, which prefixes the verb with `content.<collection>.` and keeps the literal key in the
 * type. Path parameters keep the names of §4.8 (`:blog_post_id`, …); the §4.8 table's generic
 * `:id` is the collection's own parameter. */
import { z } from 'zod';
import { booleanString, count, numericId, offset } from '../common';
import { route } from '../route';
import { listEnvelope, versionOf } from '../schemas/content';

const PREFIX = '/content/api/v2';
/** The content API also takes an API key (`?hapikey=`); all of it is part 2. */
export const V2 = { auth: ['oauth', 'privateApp', 'hapikey'], milestone: 2 } as const;
const CONTENT = ['content'];
export const FILES = ['files', 'content'];

/** Paging, ordering and the common filters; other field filters (`name__icontains=…`,
 * `created__gt=…`, `content_group_id=…`) pass through as strings. */
export const listQuery = z.looseObject({
  limit: count(20, 300),
  offset: offset.optional(),
  /** A field name, `-` first for descending. */
  order_by: z
    .string()
    .regex(/^-?\w+$/, 'must be a field name, optionally with a leading -')
    .optional(),
  archived: booleanString.optional(),
  state: z.enum(['DRAFT', 'PUBLISHED', 'SCHEDULED']).optional(),
});

/** One collection: its client name, paths, record and path parameters. */
interface Coll<
  N extends string = string,
  P extends z.ZodObject = z.ZodObject,
  V extends z.ZodObject = z.ZodObject,
  R extends z.ZodType = z.ZodType,
> {
  name: N;
  /** The collection's path segment (`blog-posts`): its routes' `resource`. */
  resource: string;
  label: string;
  scopes: readonly string[];
  /** `/content/api/v2/<segment>` */
  path: string;
  /** `/content/api/v2/<segment>/:<id param>` */
  item: string;
  record: R;
  params: P;
  /** `params` plus `version_id`. */
  versionParams: V;
}

export function coll<N extends string, I extends string, R extends z.ZodType>(
  name: N,
  segment: string,
  idParam: I,
  record: R,
  label: string,
  scopes: readonly string[] = CONTENT,
) {
  const shape = { [idParam]: numericId } as Record<I, typeof numericId>;
  return {
    name,
    resource: segment,
    label,
    scopes,
    path: `${PREFIX}/${segment}`,
    item: `${PREFIX}/${segment}/:${idParam}`,
    record,
    params: z.object(shape),
    versionParams: z.object({ ...shape, version_id: numericId }),
  } satisfies Coll;
}

/** A collection as the makers see it. (The makers take the schemas' types as their own type
 * parameters: a generic `C extends Coll` would widen `c.params` to `ZodObject` in `route()`.) */
type Of<P extends z.ZodObject, R extends z.ZodType> = Coll<string, P, z.ZodObject, R>;

/** Builds a route once its client name is known. */
type Maker = (id: string) => unknown;
type Grouped<N extends string, V> = {
  [K in keyof V & string as `content.${N}.${K}`]: V[K] extends (id: string) => infer D ? D : never;
};

/** Names each maker `content.<collection>.<verb>` and builds its route, on the collection's resource. */
export function group<N extends string, V extends Record<string, Maker>>(
  c: { name: N; resource: string },
  verbs: V,
): Grouped<N, V> {
  const out: Record<string, unknown> = {};
  for (const [verb, make] of Object.entries(verbs)) {
    const id = `content.${c.name}.${verb}`;
    out[id] = { ...(make(id) as object), resource: c.resource };
  }
  return out as Grouped<N, V>;
}

// ---- makers: one per kind of endpoint -------------------------------------------------------

export const create =
  <P extends z.ZodObject, R extends z.ZodType, B extends z.ZodType>(c: Of<P, R>, body: B) =>
  (id: string) =>
    route({
      ...V2,
      id,
      method: 'POST',
      path: c.path,
      summary: `Create a ${c.label}`,
      scopes: c.scopes,
      body,
      response: c.record,
      status: 201,
    });

export const list =
  <P extends z.ZodObject, R extends z.ZodType, Q extends z.ZodObject>(c: Of<P, R>, query: Q) =>
  (id: string) =>
    route({
      ...V2,
      id,
      method: 'GET',
      path: c.path,
      summary: `List ${c.label}s (limit/offset paging, order_by, field filters such as name__icontains)`,
      scopes: c.scopes,
      query,
      response: listEnvelope(c.record),
    });

export const get =
  <P extends z.ZodObject, R extends z.ZodType>(c: Of<P, R>) =>
  (id: string) =>
    route({
      ...V2,
      id,
      method: 'GET',
      path: c.item,
      summary: `A ${c.label} by id`,
      scopes: c.scopes,
      params: c.params,
      response: c.record,
    });

export const update =
  <P extends z.ZodObject, R extends z.ZodType, B extends z.ZodType>(c: Of<P, R>, body: B) =>
  (id: string) =>
    route({
      ...V2,
      id,
      method: 'PUT',
      path: c.item,
      summary: `Update a ${c.label} (the fields given)`,
      scopes: c.scopes,
      params: c.params,
      body,
      response: c.record,
    });

export const remove =
  <P extends z.ZodObject, R extends z.ZodType>(c: Of<P, R>) =>
  (id: string) =>
    route({
      ...V2,
      id,
      method: 'DELETE',
      path: c.item,
      summary: `Soft-delete a ${c.label} (sets deleted_at; restorable)`,
      scopes: c.scopes,
      params: c.params,
    });

/** A POST on `/X/:id/<suffix>` without a body that answers with the record. */
export const action =
  <P extends z.ZodObject, R extends z.ZodType>(c: Of<P, R>, suffix: string, summary: string, status = 200) =>
  (id: string) =>
    route({
      ...V2,
      id,
      method: 'POST',
      path: `${c.item}/${suffix}`,
      summary,
      scopes: c.scopes,
      params: c.params,
      response: c.record,
      status,
    });

export const restoreDeleted = <P extends z.ZodObject, R extends z.ZodType>(c: Of<P, R>) =>
  action(c, 'restore-deleted', `Restore a soft-deleted ${c.label}`);

/** The standard set of §4.8: create, list, update, delete, get, restore-deleted. */
export const crud = <P extends z.ZodObject, R extends z.ZodType, CB extends z.ZodType, UB extends z.ZodType>(
  c: Of<P, R>,
  createBody: CB,
  updateBody: UB,
) => ({
  create: create(c, createBody),
  list: list(c, listQuery),
  update: update(c, updateBody),
  delete: remove(c),
  get: get(c),
  restoreDeleted: restoreDeleted(c),
});

/** Read-only collections: list and get. */
export const readOnly = <P extends z.ZodObject, R extends z.ZodType>(c: Of<P, R>) => ({
  list: list(c, listQuery),
  get: get(c),
});

export const getBuffer =
  <P extends z.ZodObject, R extends z.ZodType>(c: Of<P, R>) =>
  (id: string) =>
    route({
      ...V2,
      id,
      method: 'GET',
      path: `${c.item}/buffer`,
      summary: `The auto-save buffer of a ${c.label} (unsaved edits)`,
      scopes: c.scopes,
      params: c.params,
      response: c.record,
    });

/** PUT on `/X/:id/<suffix>` with the fields to change, answering with the record. */
const put =
  <P extends z.ZodObject, R extends z.ZodType, B extends z.ZodType>(
    c: Of<P, R>,
    suffix: string,
    body: B,
    summary: string,
  ) =>
  (id: string) =>
    route({
      ...V2,
      id,
      method: 'PUT',
      path: `${c.item}/${suffix}`,
      summary,
      scopes: c.scopes,
      params: c.params,
      body,
      response: c.record,
    });

export const updateBuffer = <P extends z.ZodObject, R extends z.ZodType, B extends z.ZodType>(c: Of<P, R>, body: B) =>
  put(c, 'buffer', body, `Update the auto-save buffer of a ${c.label} (the live object is not affected)`);

/** The copy starts as a draft. */
export const clone =
  <P extends z.ZodObject, R extends z.ZodType>(c: Of<P, R>) =>
  (id: string) =>
    route({
      ...V2,
      id,
      method: 'POST',
      path: `${c.item}/clone`,
      summary: `Clone a ${c.label} (the copy is a new draft)`,
      scopes: c.scopes,
      params: c.params,
      body: z.looseObject({ name: z.string().min(1) }),
      response: c.record,
      status: 201,
    });

export const discardBuffer = <P extends z.ZodObject, R extends z.ZodType>(c: Of<P, R>) =>
  action(c, 'discard-buffer', `Discard the buffer of a ${c.label}, keeping the live object (answers with it)`);

export const hasBufferedChanges =
  <P extends z.ZodObject, R extends z.ZodType>(c: Of<P, R>) =>
  (id: string) =>
    route({
      ...V2,
      id,
      method: 'GET',
      path: `${c.item}/has-buffered-changes`,
      summary: `Whether the buffer of a ${c.label} differs from the live object`,
      scopes: c.scopes,
      params: c.params,
      response: z.object({ has_buffered_changes: z.boolean() }),
    });

/** `schedule-publish` is used for every publish, immediate included (§4.1); no response body.
 * The spec names POST; some older clients send PUT, which does the same (`publishPut`). */
export const publish =
  <P extends z.ZodObject, R extends z.ZodType, A extends readonly [string, ...string[]]>(
    c: Of<P, R>,
    actions: A,
    method: 'POST' | 'PUT' = 'POST',
  ) =>
  (id: string) =>
    route({
      ...V2,
      id,
      method,
      path: `${c.item}/publish-action`,
      summary:
        method == 'POST'
          ? `Publish a ${c.label} (schedule-publish: at publish_date, or at once when publish_immediately) or cancel publishing (cancel-publish)`
          : `The same publish-action by PUT, for clients that send it`,
      scopes: c.scopes,
      params: c.params,
      body: z.looseObject({ action: z.enum(actions) }),
      // Publishing is what a call without input means.
      defaultBody: { action: 'schedule-publish' },
      // Publishing twice is not publishing once (the second is refused): never repeated blindly.
      retry: 'unsafe',
    });

export const pushBufferLive = <P extends z.ZodObject, R extends z.ZodType>(c: Of<P, R>) =>
  action(c, 'push-buffer-live', `Copy the buffer of a ${c.label} into the live object`);

export const pushBufferLiveAndUpdate = <P extends z.ZodObject, R extends z.ZodType, B extends z.ZodType>(
  c: Of<P, R>,
  body: B,
) =>
  put(c, 'push-buffer-live', body, `Copy the buffer of a ${c.label} into the live object and update the fields given`);

export const validateBuffer =
  <P extends z.ZodObject, R extends z.ZodType>(c: Of<P, R>) =>
  (id: string) =>
    route({
      ...V2,
      id,
      method: 'POST',
      path: `${c.item}/validate-buffer`,
      summary: `Validate the buffer of a ${c.label} (no request body)`,
      scopes: c.scopes,
      params: c.params,
      response: z.looseObject({ succeeded: z.literal(true) }),
    });

export const versions = <P extends z.ZodObject, V extends z.ZodObject, R extends z.ZodType>(
  c: Coll<string, P, V, R>,
) => ({
  listVersions: (id: string) =>
    route({
      ...V2,
      id,
      method: 'GET',
      path: `${c.item}/versions`,
      summary: `Previous versions of a ${c.label}, newest first`,
      scopes: c.scopes,
      params: c.params,
      response: z.array(versionOf(c.record)),
    }),
  getVersion: (id: string) =>
    route({
      ...V2,
      id,
      method: 'GET',
      path: `${c.item}/versions/:version_id`,
      summary: `One previous version of a ${c.label} (version id from the list)`,
      scopes: c.scopes,
      params: c.versionParams,
      response: versionOf(c.record),
    }),
});

export const restoreVersion =
  <P extends z.ZodObject, R extends z.ZodType>(c: Of<P, R>) =>
  (id: string) =>
    route({
      ...V2,
      id,
      method: 'POST',
      path: `${c.item}/versions/restore`,
      summary: `Restore a previous version of a ${c.label}; answers with the restored object`,
      scopes: c.scopes,
      params: c.params,
      body: z.object({ version_id: z.number().int().positive() }),
      response: c.record,
    });
