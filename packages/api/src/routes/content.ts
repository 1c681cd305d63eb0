/** §4.8 Content API v2 (prefix /content/api/v2), files and folders included: each collection
 * and its routes, built by the makers of routes/content-makers.ts. */
import { z } from 'zod';
import { booleanString, numericId } from '../common';
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
  page,
  siteMap,
  template,
  topic,
  urlMapping,
} from '../schemas/content';
import {
  action,
  clone,
  coll,
  create,
  crud,
  discardBuffer,
  FILES,
  get,
  getBuffer,
  group,
  hasBufferedChanges,
  list,
  listQuery,
  publish,
  pushBufferLive,
  pushBufferLiveAndUpdate,
  readOnly,
  remove,
  restoreDeleted,
  restoreVersion,
  update,
  updateBuffer,
  V2,
  validateBuffer,
  versions,
} from './content-makers';

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
