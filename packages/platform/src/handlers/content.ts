/** §4.8 Content API v2: every collection's routes on the one content engine. The catalog names
 * them `content.<collection>.<verb>`; this file maps each verb to the engine once, for all
 * collections, instead of repeating eighteen handlers per collection. */
import { routes, type RouteDef } from '@svc/api';
import type { z } from 'zod';
import type { Handler, Handlers } from './handler';
import type { Services } from '../services/wiring';
import type { CollectionName, Record_ } from '../store/content/collections';
import type { PublishAction } from '../store/content/engine';

type Ctx = Parameters<Handler<RouteDef>>[0];
type Verb = (c: { coll: CollectionName; id: number; ctx: Ctx; fields: ReadonlySet<string> }) => unknown;

const body = (ctx: Ctx) => (ctx.body ?? {}) as Record_;

/** The generic handler of each verb. */
export function contentVerbs({ content }: Services): Record<string, Verb> {
  return {
    create: ({ coll, ctx }) => content.create(ctx.db, ctx.portalId, coll, body(ctx)),
    list: ({ coll, ctx, fields }) => content.list(ctx.db, ctx.portalId, coll, ctx.query, fields),
    get: ({ coll, id, ctx }) => content.get(ctx.db, ctx.portalId, coll, id),
    update: ({ coll, id, ctx }) => content.update(ctx.db, ctx.portalId, coll, id, body(ctx)),
    delete: ({ coll, id, ctx }) => content.remove(ctx.db, ctx.portalId, coll, id),
    restoreDeleted: ({ coll, id, ctx }) => content.restoreDeleted(ctx.db, ctx.portalId, coll, id),
    getBuffer: ({ coll, id, ctx }) => content.getBuffer(ctx.db, ctx.portalId, coll, id),
    updateBuffer: ({ coll, id, ctx }) => content.updateBuffer(ctx.db, ctx.portalId, coll, id, body(ctx)),
    hasBufferedChanges: ({ coll, id, ctx }) => content.hasBufferedChanges(ctx.db, ctx.portalId, coll, id),
    pushBufferLive: ({ coll, id, ctx }) => content.pushBufferLive(ctx.db, ctx.portalId, coll, id),
    pushBufferLiveAndUpdate: ({ coll, id, ctx }) => content.pushBufferLive(ctx.db, ctx.portalId, coll, id, body(ctx)),
    discardBuffer: ({ coll, id, ctx }) => content.discardBuffer(ctx.db, ctx.portalId, coll, id),
    validateBuffer: ({ coll, id, ctx }) => content.validateBuffer(ctx.db, ctx.portalId, coll, id),
    clone: ({ coll, id, ctx }) => content.clone(ctx.db, ctx.portalId, coll, id, String(body(ctx).name)),
    publish: ({ coll, id, ctx }) =>
      content.publishAction(ctx.db, ctx.portalId, coll, id, body(ctx).action as PublishAction),
    // Older clients send publish-action as a PUT: the same action.
    publishPut: ({ coll, id, ctx }) =>
      content.publishAction(ctx.db, ctx.portalId, coll, id, body(ctx).action as PublishAction),
    listVersions: ({ coll, id, ctx }) => content.listVersions(ctx.db, ctx.portalId, coll, id),
    getVersion: ({ coll, id, ctx }) =>
      content.getVersion(ctx.db, ctx.portalId, coll, id, Number((ctx.params as Record_).version_id)),
    restoreVersion: ({ coll, id, ctx }) =>
      content.restoreVersion(ctx.db, ctx.portalId, coll, id, Number(body(ctx).version_id)),
  };
}

/** Keys computed on every read (URLs follow the platform's address; a post's author and comment
 * count follow those objects): nothing to filter on. */
const COMPUTED = new Set([
  'url',
  'published_url',
  'friendly_url',
  'alt_url',
  's3_url',
  'root_url',
  'blog_author',
  'comment_count',
]);

/** The record keys of a collection, from the catalog's schema of its `get`: what lists may filter
 * and order on. */
const fieldsOf = (get: RouteDef | undefined): ReadonlySet<string> =>
  new Set(Object.keys((get?.response as z.ZodObject | undefined)?.shape ?? {}).filter((k) => !COMPUTED.has(k)));

export function contentHandlers(services: Services): Handlers {
  const verbs = contentVerbs(services);
  // The catalog names each route's collection (`resource`) and the parameter of its record (`idParam`).
  const content = routes.flatMap((route) => {
    const [area, , verb] = route.id.split('.');
    return area == 'content' && verb ? [{ route, verb, coll: route.resource as CollectionName }] : [];
  });
  const gets = new Map(content.filter((c) => c.verb == 'get').map((c) => [c.coll, c.route]));
  const out: Record<string, Handler<RouteDef>> = {};
  for (const { route, verb, coll } of content) {
    const run = verbs[verb];
    // Verbs without a generic handler (uploads, moves, ...) are in files.ts.
    if (!run) continue;
    const { idParam } = route;
    const fields = fieldsOf(gets.get(coll));
    out[route.id] = (ctx) => run({ coll, id: idParam ? Number((ctx.params as Record_)[idParam]) : 0, ctx, fields });
  }
  // Typed by the catalog at the route level; the generic verbs answer with the collection's record.
  return out;
}
