/** §4.9 The older blog API: JSON reads, Atom reads for `.atom`, Atom writes (parsed by
 * http/atom.ts before validation) answered in Atom. */
import type { Request } from 'express';
import { atomDocument } from './atom-document';
import { Reply, type Handlers } from './handler';
import type { Services } from '../services/wiring';

type Post = Awaited<ReturnType<Services['blogV1']['post']>>;
type Comment = ReturnType<Services['blogV1']['comment']>;
type Blog = ReturnType<Services['blogV1']['blog']>;

const iso = (ms: number | null) => (ms == null ? undefined : new Date(ms).toISOString());

const postEntry = (p: Post) => ({
  id: p.jsonUrl,
  title: p.title,
  author: { name: p.authorDisplayName ?? undefined, email: p.authorEmail ?? undefined },
  summary: p.summary ?? undefined,
  content: { '@_type': 'html', '#text': p.body ?? '' },
  published: iso(p.publishTimestamp),
  updated: iso(p.publishTimestamp ?? p.createTimestamp),
  category: p.tags.map((term) => ({ '@_term': term })),
  link: p.url ? { '@_rel': 'alternate', '@_href': p.url } : undefined,
  draft: String(p.draft),
});

const commentEntry = (c: Comment) => ({
  id: `${c.postGuid}#comment-${c.guid}`,
  author: { name: c.anonyName ?? undefined, email: c.anonyEmail ?? undefined, uri: c.anonyUrl ?? undefined },
  content: c.comment,
  published: iso(c.createTimestamp),
});

const blogFeed = (b: Blog) => ({
  id: b.jsonUrl,
  title: b.blogTitle,
  link: b.webUrl ? { '@_href': b.webUrl } : undefined,
});

const ATOM = { 'Content-Type': 'application/atom+xml; charset=utf-8' };
/** JSON as the catalog types it, or the Atom rendering of the same data. */
const as = <T>(ext: string, json: T, atom: () => string): T | Reply =>
  ext == 'atom' ? new Reply(200, atom(), ATOM) : json;

/** A write's answer: Atom, like the `.atom` reads (what Atom clients of the real API parse), unless
 * the caller asks for JSON in `Accept` (@svc/client does; its methods return the catalog's JSON). */
function written<T>(
  req: Request,
  status: number,
  json: T,
  atom: () => string,
  headers: Record<string, string> = {},
): T | Reply {
  const wantsJson = req.accepts(['application/atom+xml', 'application/json']) == 'application/json';
  return wantsJson ? json : new Reply(status, atom(), { ...ATOM, ...headers });
}
/** Where a new post lives (Atom Publishing: a 201 names the entry's address). */
const location = (p: Post) => ({ Location: p.jsonUrl.replace(/\.json$/, '.atom') });

export function blogV1Handlers({ blogV1 }: Services): Handlers {
  return {
    'blogV1.listBlogs': async ({ db, portalId, params, query }) => {
      const blogs = await blogV1.listBlogs(db, portalId, query);
      return as(params.ext, blogs, () => atomDocument('feed', { title: 'Blogs', entry: blogs.map(blogFeed) }));
    },
    'blogV1.getBlog': async ({ db, portalId, params }) => {
      const b = await blogV1.getBlog(db, portalId, params.blog_guid);
      return as(params.ext, b, () => atomDocument('feed', blogFeed(b)));
    },
    'blogV1.listPosts': async ({ db, portalId, params, query }) => {
      const posts = await blogV1.listPosts(db, portalId, params.blog_guid, query);
      const b = await blogV1.getBlog(db, portalId, params.blog_guid);
      return as(params.ext, posts, () => atomDocument('feed', { ...blogFeed(b), entry: posts.map(postEntry) }));
    },
    'blogV1.getPost': async ({ db, portalId, params }) => {
      const p = await blogV1.getPost(db, portalId, params.post_guid);
      return as(params.ext, p, () => atomDocument('entry', postEntry(p)));
    },
    'blogV1.listBlogComments': async ({ db, portalId, params, query }) => {
      const comments = await blogV1.listBlogComments(db, portalId, params.blog_guid, query);
      return as(params.ext, comments, () =>
        atomDocument('feed', { title: 'Comments', entry: comments.map(commentEntry) }),
      );
    },
    'blogV1.listPostComments': async ({ db, portalId, params, query }) => {
      const comments = await blogV1.listPostComments(db, portalId, params.post_guid, query);
      return as(params.ext, comments, () =>
        atomDocument('feed', { title: 'Comments', entry: comments.map(commentEntry) }),
      );
    },
    'blogV1.getComment': async ({ db, portalId, params }) => {
      const c = await blogV1.getComment(db, portalId, params.comment_guid);
      return as(params.ext, c, () => atomDocument('entry', commentEntry(c)));
    },
    'blogV1.createPost': async ({ db, portalId, params, body, req }) => {
      const p = await blogV1.createPost(db, portalId, params.blog_guid, body);
      return written(req, 201, p, () => atomDocument('entry', postEntry(p)), location(p));
    },
    'blogV1.updatePost': async ({ db, portalId, params, body, req }) => {
      const p = await blogV1.updatePost(db, portalId, params.post_guid, body);
      return written(req, 200, p, () => atomDocument('entry', postEntry(p)));
    },
    'blogV1.createComment': async ({ db, portalId, params, body, req }) => {
      const c = await blogV1.createComment(db, portalId, params.post_guid, body);
      return written(req, 201, c, () => atomDocument('entry', commentEntry(c)));
    },
  };
}
