/** §4.8 Content API v2 (prefix /content/api/v2), files and folders included.
 *
 * Each collection is described once (`coll`), and its routes are built from small makers (one per
 * kind of endpoint) and named by `group`, which prefixes the verb with `content.<collection>.` and
 * keeps the literal key in the type. Path parameters keep the names of §4.8 (`:blog_post_id`, …);
 * the §4.8 table's generic `:id` is the collection's own parameter. */
import { z } from 'zod';
import { booleanString, count, numericId, offset } from '../common';
import { route } from '../route';
import {
  blog,
  blogAuthor,
  blogPost,
  comment,
  domain,
  file,
  folder,
  layout,
  listEnvelope,
  page,
  siteMap,
  template,
  topic,
  urlMapping,
  versionOf,
} from '../schemas/content';

const PREFIX = '/content/api/v2';
/** The content API also takes an API key (`?hapikey=`); all of it is part 2. */
const V2 = { auth: ['oauth', 'privateApp', 'hapikey'], milestone: 2 } as const;
const CONTENT = ['content'];
const FILES = ['files', 'content'];

/** Paging, ordering and the common filters; other field filters (`name__icontains=…`,
 * `created__gt=…`, `content_group_id=…`) pass through as strings. */
const listQuery = z.looseObject({
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

function coll<N extends string, I extends string, R extends z.ZodType>(
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
function group<N extends string, V extends Record<string, Maker>>(
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

const create =
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

const list =
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

const get =
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

const update =
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

const remove =
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
const action =
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

const restoreDeleted = <P extends z.ZodObject, R extends z.ZodType>(c: Of<P, R>) =>
  action(c, 'restore-deleted', `Restore a soft-deleted ${c.label}`);

/** The standard set of §4.8: create, list, update, delete, get, restore-deleted. */
const crud = <P extends z.ZodObject, R extends z.ZodType, CB extends z.ZodType, UB extends z.ZodType>(
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
const readOnly = <P extends z.ZodObject, R extends z.ZodType>(c: Of<P, R>) => ({
  list: list(c, listQuery),
  get: get(c),
});

const getBuffer =
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

const updateBuffer = <P extends z.ZodObject, R extends z.ZodType, B extends z.ZodType>(c: Of<P, R>, body: B) =>
  put(c, 'buffer', body, `Update the auto-save buffer of a ${c.label} (the live object is not affected)`);

/** The copy starts as a draft. */
const clone =
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

const discardBuffer = <P extends z.ZodObject, R extends z.ZodType>(c: Of<P, R>) =>
  action(c, 'discard-buffer', `Discard the buffer of a ${c.label}, keeping the live object (answers with it)`);

const hasBufferedChanges =
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
const publish =
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

const pushBufferLive = <P extends z.ZodObject, R extends z.ZodType>(c: Of<P, R>) =>
  action(c, 'push-buffer-live', `Copy the buffer of a ${c.label} into the live object`);

const pushBufferLiveAndUpdate = <P extends z.ZodObject, R extends z.ZodType, B extends z.ZodType>(
  c: Of<P, R>,
  body: B,
) =>
  put(c, 'push-buffer-live', body, `Copy the buffer of a ${c.label} into the live object and update the fields given`);

const validateBuffer =
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

const versions = <P extends z.ZodObject, V extends z.ZodObject, R extends z.ZodType>(c: Coll<string, P, V, R>) => ({
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

const restoreVersion =
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

// ---- collections ----------------------------------------------------------------------------

const blogPosts = coll('blogPosts', 'blog-posts', 'blog_post_id', blogPost, 'blog post');
const comments = coll('comments', 'comments', 'comment_id', comment, 'comment');
const blogAuthors = coll('blogAuthors', 'blog-authors', 'blog_author_id', blogAuthor, 'blog author');
const topics = coll('topics', 'topics', 'topic_id', topic, 'topic');
const pages = coll('pages', 'pages', 'page_id', page, 'page');
const templates = coll('templates', 'templates', 'template_id', template, 'template');
const urlMappings = coll('urlMappings', 'url-mappings', 'url_mapping_id', urlMapping, 'URL mapping');
const domains = coll('domains', 'domains', 'domain_id', domain, 'domain');
const siteMaps = coll('siteMaps', 'site-maps', 'sitemap_id', siteMap, 'site map');
const layouts = coll('layouts', 'layouts', 'layout_id', layout, 'layout');
const blogs = coll('blogs', 'blogs', 'blog_id', blog, 'blog');
const files = coll('files', 'files', 'file_id', file, 'file', FILES);
const folders = coll('folders', 'folders', 'folder_id', folder, 'folder', FILES);

// Write bodies: the payload shapes are not in the spec, so a write takes the record's fields (all
// optional, unknown keys kept: a fetched object can be sent back) plus what a create requires.
// `deleted_at` is set only by DELETE (§2.1): a handler should ignore it in a write body.
const postUpdate = blogPost.partial();
const postCreate = postUpdate.extend({ name: z.string().min(1), content_group_id: z.number().int() });
const commentUpdate = comment.partial();
const commentCreate = commentUpdate.extend({ content_id: z.number().int(), comment: z.string().min(1) });
const authorUpdate = blogAuthor.partial();
const authorCreate = authorUpdate.extend({ full_name: z.string().min(1) });
const topicUpdate = topic.partial();
const topicCreate = topicUpdate.extend({ name: z.string().min(1) });
const pageUpdate = page.partial();
const pageCreate = pageUpdate.extend({ name: z.string().min(1) });
const templateUpdate = template.partial();
const templateCreate = templateUpdate.extend({ path: z.string().min(1) });
const mappingUpdate = urlMapping
  .partial()
  .extend({ redirect_style: z.union([z.literal(301), z.literal(302)]).optional() });
const mappingCreate = mappingUpdate.extend({
  route_prefix: z.string().min(1),
  destination: z.string().min(1),
  redirect_style: z.union([z.literal(301), z.literal(302)]),
});
const folderUpdate = folder.partial();
const folderCreate = folderUpdate.extend({ name: z.string().min(1) });

/** A multipart string that holds JSON. */
const jsonString = <T extends z.ZodType>(schema: T) =>
  z
    .string()
    .transform((s, ctx) => {
      try {
        return JSON.parse(s) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be JSON' });
        return z.NEVER;
      }
    })
    .pipe(schema);

/** The non-file fields of an upload; the file itself is the multipart part `files`. */
const uploadFields = z.looseObject({
  file_names: z.string().min(1).optional(),
  folder_paths: z.string().min(1).optional(),
  folder_id: numericId.optional(),
  overwrite: booleanString.optional(),
  hidden: booleanString.optional(),
  options: jsonString(
    z.looseObject({
      access: z.enum(['PUBLIC_INDEXABLE', 'PUBLIC_NOT_INDEXABLE', 'PRIVATE']).optional(),
      ttl: z.string().optional(),
      overwrite: z.boolean().optional(),
      duplicateValidationStrategy: z.enum(['NONE', 'REJECT', 'RETURN_EXISTING']).optional(),
      duplicateValidationScope: z.enum(['ENTIRE_PORTAL', 'EXACT_FOLDER']).optional(),
    }),
  ).optional(),
});

/** Upload and replace: multipart, validated on the non-file fields. */
const multipart = { ...V2, method: 'POST', scopes: FILES, bodyType: 'multipart', body: uploadFields } as const;

/** The actions of publish-action, for posts and pages alike. */
const POST_ACTIONS = ['schedule-publish', 'cancel-publish', 'push-buffer-live'] as const;

export const contentRoutes = {
  ...group(blogPosts, {
    ...crud(blogPosts, postCreate, postUpdate),
    getBuffer: getBuffer(blogPosts),
    updateBuffer: updateBuffer(blogPosts, postUpdate),
    clone: clone(blogPosts),
    discardBuffer: discardBuffer(blogPosts),
    hasBufferedChanges: hasBufferedChanges(blogPosts),
    publish: publish(blogPosts, POST_ACTIONS),
    publishPut: publish(blogPosts, POST_ACTIONS, 'PUT'),
    pushBufferLiveAndUpdate: pushBufferLiveAndUpdate(blogPosts, postUpdate),
    pushBufferLive: pushBufferLive(blogPosts),
    validateBuffer: validateBuffer(blogPosts),
    ...versions(blogPosts),
    restoreVersion: restoreVersion(blogPosts),
  }),
  ...group(comments, {
    ...crud(comments, commentCreate, commentUpdate),
    ...versions(comments),
    restoreVersion: restoreVersion(comments),
  }),
  ...group(blogAuthors, crud(blogAuthors, authorCreate, authorUpdate)),
  ...group(topics, crud(topics, topicCreate, topicUpdate)),
  ...group(pages, {
    ...crud(pages, pageCreate, pageUpdate),
    getBuffer: getBuffer(pages),
    updateBuffer: updateBuffer(pages, pageUpdate),
    clone: clone(pages),
    discardBuffer: discardBuffer(pages),
    hasBufferedChanges: hasBufferedChanges(pages),
    publish: publish(pages, POST_ACTIONS),
    publishPut: publish(pages, POST_ACTIONS, 'PUT'),
    pushBufferLiveAndUpdate: pushBufferLiveAndUpdate(pages, pageUpdate),
    pushBufferLive: pushBufferLive(pages),
    validateBuffer: validateBuffer(pages),
    ...versions(pages),
    restoreVersion: restoreVersion(pages),
  }),
  ...group(templates, {
    ...crud(templates, templateCreate, templateUpdate),
    getBuffer: getBuffer(templates),
    updateBuffer: updateBuffer(templates, templateUpdate),
    discardBuffer: discardBuffer(templates),
    hasBufferedChanges: hasBufferedChanges(templates),
    pushBufferLiveAndUpdate: pushBufferLiveAndUpdate(templates, templateUpdate),
    pushBufferLive: pushBufferLive(templates),
    ...versions(templates),
    restoreVersion: restoreVersion(templates),
  }),
  ...group(urlMappings, {
    ...crud(urlMappings, mappingCreate, mappingUpdate),
    ...versions(urlMappings),
    restoreVersion: restoreVersion(urlMappings),
  }),
  ...group(domains, { ...readOnly(domains), ...versions(domains) }),
  ...group(siteMaps, {
    ...readOnly(siteMaps),
    getBuffer: getBuffer(siteMaps),
    hasBufferedChanges: hasBufferedChanges(siteMaps),
    ...versions(siteMaps),
  }),
  ...group(layouts, {
    ...readOnly(layouts),
    getBuffer: getBuffer(layouts),
    hasBufferedChanges: hasBufferedChanges(layouts),
    ...versions(layouts),
  }),
  ...group(blogs, {
    ...readOnly(blogs),
    discardBuffer: discardBuffer(blogs),
    // §4.8 lists only a PUT push-buffer-live for blogs, and its purpose is the plain copy
    // ("Copy buffer into live blog"), so it takes the POST verb's name and no body.
    pushBufferLive: (id: string) =>
      route({
        ...V2,
        id,
        method: 'PUT',
        path: `${blogs.item}/push-buffer-live`,
        summary: 'Copy the buffer of a blog into the live blog',
        scopes: blogs.scopes,
        params: blogs.params,
        response: blog,
      }),
    ...versions(blogs),
  }),
  ...group(files, {
    upload: (id: string) =>
      route({
        ...multipart,
        id,
        path: files.path,
        summary:
          'Upload files (multipart: the file part is `files`; fields file_names, folder_paths or folder_id,' +
          ' overwrite, hidden, options)',
        response: z.looseObject({ objects: z.array(file) }),
        status: 201,
      }),
    list: list(files, listQuery.extend({ folder_id: numericId.optional() })),
    replace: (id: string) =>
      route({
        ...multipart,
        id,
        path: files.item,
        summary: 'Replace the content of a file, keeping its id and URL (multipart: the file part is `files`)',
        params: files.params,
        response: file,
      }),
    delete: remove(files),
    get: get(files),
    archive: action(files, 'archive', 'Archive a file: hidden in the file manager, still reachable at its URL'),
    fullDelete: (id: string) =>
      route({
        ...V2,
        id,
        method: 'POST',
        path: `${files.item}/full-delete`,
        summary: 'Delete a file for good: removed from the CDN with its thumbnails and associated content',
        scopes: files.scopes,
        params: files.params,
      }),
    move: (id: string) =>
      route({
        ...V2,
        id,
        method: 'POST',
        path: `${files.item}/move-file`,
        summary: 'Move a file to another folder (by path or id) and/or rename it',
        scopes: files.scopes,
        params: files.params,
        body: z
          .looseObject({
            folder_path: z.string().min(1).optional(),
            folder_id: z.number().int().optional(),
            name: z.string().min(1).optional(),
          })
          .refine(
            (b) => b.folder_path !== undefined || b.folder_id !== undefined || b.name !== undefined,
            'give folder_path, folder_id or name',
          ),
        response: file,
      }),
    restoreDeleted: restoreDeleted(files),
    ...versions(files),
    restoreVersion: restoreVersion(files),
  }),
  ...group(folders, {
    create: create(folders, folderCreate),
    list: list(folders, listQuery.extend({ parent_folder_id: numericId.optional() })),
    update: update(folders, folderUpdate),
    delete: remove(folders),
    get: get(folders),
    move: (id: string) =>
      route({
        ...V2,
        id,
        method: 'POST',
        path: `${folders.item}/move-folder`,
        summary: 'Move a folder under another parent (by path or id)',
        scopes: folders.scopes,
        params: folders.params,
        body: z
          .looseObject({
            folder_path: z.string().min(1).optional(),
            /** null: to the root. */
            parent_folder_id: z.number().int().nullable().optional(),
          })
          .refine(
            (b) => b.folder_path !== undefined || b.parent_folder_id !== undefined,
            'give folder_path or parent_folder_id',
          ),
        response: folder,
      }),
    restoreDeleted: restoreDeleted(folders),
    ...versions(folders),
    restoreVersion: restoreVersion(folders),
  }),
};
