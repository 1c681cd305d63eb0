/** §4.9 The older blog API (`/blog/v1`). Paths keep the spec's `.:ext` format suffix: reads serve
 * `json` or `atom`; writes use the literal `.atom` paths and an Atom entry as the body. The response
 * schemas describe the JSON representation (reference §10; the read shapes are not documented). */
import { z } from 'zod';
import { offset, pageSize, timestamp } from '../common';
import { route } from '../route';

const V1 = { scopes: ['content'], milestone: 2 } as const;

/** The format suffixes of the legacy API; `xml` is known but not served. */
const ext = z.enum(['json', 'atom', 'xml']);
/** What the reads accept. */
const readExt = ext.extract(['json', 'atom']);
const guid = z.string().min(1);
const opt = <T extends z.ZodType>(t: T) => t.optional();
const nul = <T extends z.ZodType>(t: T) => t.nullable().optional();
const str = z.string();

const blogV1 = z.looseObject({
  guid: str,
  portalId: opt(z.number()),
  blogTitle: opt(str),
  webUrl: nul(str),
  feedUrl: nul(str),
  jsonUrl: nul(str),
  authorEmail: nul(str),
});

const postV1 = z.looseObject({
  guid: str,
  blogGuid: opt(str),
  portalId: opt(z.number()),
  title: opt(str),
  authorDisplayName: nul(str),
  authorEmail: nul(str),
  summary: nul(str),
  body: nul(str),
  tags: opt(z.array(str)),
  draft: opt(z.boolean()),
  publishTimestamp: nul(timestamp),
  createTimestamp: opt(timestamp),
  url: nul(str),
  jsonUrl: nul(str),
  metaDescription: nul(str),
  metaKeywords: nul(str),
});

const commentV1 = z.looseObject({
  guid: str,
  postGuid: opt(str),
  portalId: opt(z.number()),
  anonyName: nul(str),
  anonyEmail: nul(str),
  anonyUrl: nul(str),
  comment: opt(str),
  createTimestamp: opt(timestamp),
});

/** Paging of list reads (`max`, `offset`; not verified against the legacy API). */
const paging = {
  max: pageSize(300),
  offset: offset.optional(),
};

/** `true`/`false` as a boolean or a string (Atom carries text). */
const flag = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v == 'true')]);

// Write bodies: the platform parses the Atom entry into these objects (title, author name/email,
// summary, content, category terms as tags, the namespaced metaDescription/metaKeywords, and for a
// publish `published`, draft and sendNotifications).
const postCreate = z.looseObject({
  title: z.string().min(1),
  authorDisplayName: z.string().optional(),
  /** Must be an active user of the portal, else 400. */
  authorEmail: z.email(),
  summary: z.string().optional(),
  body: z.string().optional(),
  tags: z.array(z.string()).optional(),
  metaDescription: z.string().optional(),
  /** Comma-separated. */
  metaKeywords: z.string().optional(),
  /** When the post goes live (ISO 8601): with `draft: false`, a future date schedules it. */
  published: z.iso.datetime({ offset: true }).optional(),
  /** Publish: `false` moves a draft to published (or scheduled, for a future `published`). */
  draft: flag.optional(),
  sendNotifications: flag.optional(),
});
const postUpdate = postCreate.partial();
const commentCreate = z.looseObject({
  anonyName: z.string().min(1),
  anonyEmail: z.email(),
  anonyUrl: z.string().optional(),
  comment: z.string().min(1),
});

export const blogV1Routes = {
  'blogV1.listBlogs': route({
    ...V1,
    id: 'blogV1.listBlogs',
    resource: 'blogs',
    idParam: undefined, // `ext` is the format, not a record
    method: 'GET',
    path: '/blog/v1/list.:ext',
    summary: 'Blogs of the portal',
    params: z.object({ ext: readExt }),
    query: z.object(paging),
    response: z.array(blogV1),
  }),
  'blogV1.getBlog': route({
    ...V1,
    id: 'blogV1.getBlog',
    resource: 'blogs',
    method: 'GET',
    // Also matches `list.json`; the router must try `/blog/v1/list.:ext` first.
    path: '/blog/v1/:blog_guid.:ext',
    summary: 'A blog by guid',
    params: z.object({ blog_guid: guid, ext: readExt }),
    response: blogV1,
  }),
  'blogV1.listBlogComments': route({
    ...V1,
    id: 'blogV1.listBlogComments',
    resource: 'blogs',
    method: 'GET',
    path: '/blog/v1/:blog_guid/comments.:ext',
    summary: 'Comments on the posts of a blog',
    params: z.object({ blog_guid: guid, ext: readExt }),
    query: z.object(paging),
    response: z.array(commentV1),
  }),
  'blogV1.listPosts': route({
    ...V1,
    id: 'blogV1.listPosts',
    resource: 'blogs',
    method: 'GET',
    path: '/blog/v1/:blog_guid/posts.:ext',
    summary: 'Posts of a blog (draft=true|false filters drafts)',
    params: z.object({ blog_guid: guid, ext: readExt }),
    query: z.object({ draft: flag.optional(), ...paging }),
    response: z.array(postV1),
  }),
  'blogV1.getPost': route({
    ...V1,
    id: 'blogV1.getPost',
    resource: 'posts',
    method: 'GET',
    path: '/blog/v1/posts/:post_guid.:ext',
    summary: 'A post by guid',
    params: z.object({ post_guid: guid, ext: readExt }),
    response: postV1,
  }),
  'blogV1.listPostComments': route({
    ...V1,
    id: 'blogV1.listPostComments',
    resource: 'posts',
    method: 'GET',
    path: '/blog/v1/posts/:post_guid/comments.:ext',
    summary: 'Comments on a post',
    params: z.object({ post_guid: guid, ext: readExt }),
    query: z.object(paging),
    response: z.array(commentV1),
  }),
  'blogV1.getComment': route({
    ...V1,
    id: 'blogV1.getComment',
    resource: 'comments',
    method: 'GET',
    path: '/blog/v1/comments/:comment_guid.:ext',
    summary: 'A comment by guid',
    params: z.object({ comment_guid: guid, ext: readExt }),
    response: commentV1,
  }),
  'blogV1.createPost': route({
    ...V1,
    id: 'blogV1.createPost',
    resource: 'blogs',
    atomEntry: 'post',
    method: 'POST',
    path: '/blog/v1/:blog_guid/posts.atom',
    summary:
      'Create a post from an Atom entry; it starts as a draft unless draft=false (published, or scheduled for a future published)',
    params: z.object({ blog_guid: guid }),
    bodyType: 'atom',
    body: postCreate,
    response: postV1,
    // Atom publishing answers a create with 201 Created.
    status: 201,
  }),
  // The spec lists this method and path twice, to update a post and to publish it: it is one route.
  // An update carries any of the post fields; a publish carries `published`, `draft: false` and
  // `sendNotifications` (with or without other fields). Draft or published posts can be updated.
  'blogV1.updatePost': route({
    ...V1,
    id: 'blogV1.updatePost',
    resource: 'posts',
    atomEntry: 'post',
    method: 'PUT',
    path: '/blog/v1/posts/:post_guid.atom',
    summary: 'Update a post from an Atom entry, or publish a draft (published, draft=false, sendNotifications)',
    params: z.object({ post_guid: guid }),
    bodyType: 'atom',
    body: postUpdate,
    response: postV1,
  }),
  'blogV1.createComment': route({
    ...V1,
    id: 'blogV1.createComment',
    resource: 'posts',
    atomEntry: 'comment',
    method: 'POST',
    path: '/blog/v1/posts/:post_guid/comments.atom',
    summary: 'Comment on a post from an Atom entry; comments are live at once (no draft)',
    params: z.object({ post_guid: guid }),
    bodyType: 'atom',
    body: commentCreate,
    response: commentV1,
    status: 201,
  }),
};
