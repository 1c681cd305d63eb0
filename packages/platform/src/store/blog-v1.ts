/** The older blog API (§4.9) as a view of the content API v2 objects: a v1 blog is a v2 blog, a v1
 * post a v2 blog post, a v1 comment a v2 comment, and a guid is the v2 id. What one API writes the
 * other reads. Post states follow §3: created as a draft, published by an update with
 * `draft=false`; comments are live at once. */
import type { Queryable } from '../db/engine';
import { badRequest, notFound } from '../domain/errors';
import type { ContentRecord } from './content/collections';
import type { ContentEngine } from './content/engine';

/** What v1 reads filter on (the v2 fields behind them). */
const FIELDS: ReadonlySet<string> = new Set([
  'id',
  'content_group_id',
  'content_id',
  'collection_id',
  'state',
  'created',
  'email',
  'name',
]);

export interface Paging {
  max?: number;
  offset?: number;
}

export interface PostWrite {
  title?: string;
  authorDisplayName?: string;
  authorEmail?: string;
  summary?: string;
  body?: string;
  tags?: string[];
  metaDescription?: string;
  metaKeywords?: string;
  published?: string;
  draft?: boolean;
  sendNotifications?: boolean;
}

export interface CommentWrite {
  anonyName: string;
  anonyEmail: string;
  anonyUrl?: string;
  comment: string;
}

const str = (v: unknown) => (typeof v == 'string' ? v : null);

/** Every method takes where it runs (`db`: the engine, or a request's transaction) first. */
export function blogV1Store(content: ContentEngine) {
  const base = () => content.site.base;
  // The catalog clamps `max` (pageSize(300)).
  const page = (p: Paging) => ({ limit: p.max ?? 20, offset: p.offset ?? 0 });

  /** A v1 guid names a v2 id; anything else names nothing. */
  async function find(
    db: Queryable,
    portalId: number,
    collection: 'blogs' | 'blog-posts' | 'comments',
    guid: string,
    what: string,
  ) {
    const found = /^\d{1,15}$/.test(guid)
      ? await content.lookup.get(db, portalId, collection, Number(guid))
      : undefined;
    if (!found) throw notFound(`no ${what} with guid ${guid}`);
    return found;
  }

  const blog = (b: ContentRecord) => ({
    guid: String(b.id),
    portalId: Number(b.portal_id),
    blogTitle: String(b.name ?? ''),
    webUrl: str(b.root_url),
    feedUrl: `${base()}/blog/v1/${b.id}/posts.atom`,
    jsonUrl: `${base()}/blog/v1/${b.id}.json`,
    authorEmail: null,
  });

  async function post(db: Queryable, p: ContentRecord) {
    const author = p.blog_author as ContentRecord | null;
    const tags: string[] = [];
    for (const id of (p.topic_ids ?? []) as number[]) {
      const name = (await content.lookup.get(db, Number(p.portal_id), 'topics', id))?.name;
      if (name != null) tags.push(name as string);
    }
    const published = p.state == 'PUBLISHED';
    return {
      guid: String(p.id),
      blogGuid: String(p.content_group_id),
      portalId: Number(p.portal_id),
      title: String(p.name ?? ''),
      authorDisplayName: str(p.author_display_name) ?? str(author?.full_name),
      authorEmail: str(author?.email),
      summary: str(p.post_summary),
      body: str(p.post_body),
      tags,
      draft: !published,
      publishTimestamp: published ? Number(p.publish_date) : null,
      createTimestamp: Number(p.created),
      url: str(p.url),
      jsonUrl: `${base()}/blog/v1/posts/${p.id}.json`,
      metaDescription: str(p.meta_description),
      metaKeywords: str(p.meta_keywords),
    };
  }

  const comment = (c: ContentRecord) => ({
    guid: String(c.id),
    postGuid: String(c.content_id),
    portalId: Number(c.portal_id),
    anonyName: str(c.user_name),
    anonyEmail: str(c.user_email),
    anonyUrl: str(c.user_url),
    comment: String(c.comment ?? ''),
    createTimestamp: Number(c.created),
  });

  /** The portal's blog author with this email: v1 posts must be written by a user of the portal. */
  async function authorId(db: Queryable, portalId: number, email: string) {
    const [author] = (await content.list(db, portalId, 'blog-authors', { email, limit: 1 }, FIELDS)).objects;
    if (!author)
      throw badRequest(
        `body.authorEmail: ${email} is not a user of this portal (create a blog author with this email)`,
      );
    return author.id;
  }

  /** Topic ids for tags, making the topics that do not exist yet. */
  async function topicIds(db: Queryable, portalId: number, tags: string[]) {
    const ids: number[] = [];
    for (const name of tags)
      ids.push(
        (
          (await content.list(db, portalId, 'topics', { name, limit: 1 }, FIELDS)).objects[0] ??
          (await content.create(db, portalId, 'topics', { name }))
        ).id,
      );
    return ids;
  }

  /** The v2 fields of a v1 post write. */
  async function v2Fields(db: Queryable, portalId: number, w: PostWrite) {
    const fields: Record<string, unknown> = {
      name: w.title,
      post_summary: w.summary,
      post_body: w.body,
      meta_description: w.metaDescription,
      meta_keywords: w.metaKeywords,
      author_display_name: w.authorDisplayName,
    };
    // A scheduled post moves with its publish_date (the engine keeps the schedule on it).
    if (w.published !== undefined) fields.publish_date = Date.parse(w.published);
    if (w.authorEmail !== undefined) fields.blog_author_id = await authorId(db, portalId, w.authorEmail);
    if (w.tags !== undefined) fields.topic_ids = await topicIds(db, portalId, w.tags);
    return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  }

  /** The publishing a v1 write asks for, through the v2 state machine (§3): `draft=false` publishes
   * at `published` (publish_immediately false makes a future date wait for the scheduler), or at
   * once without one; `draft=true` cancels. */
  async function publishAsAsked(db: Queryable, portalId: number, id: number, w: PostWrite) {
    const { state } = await content.get(db, portalId, 'blog-posts', id);
    if (w.draft === false && state != 'PUBLISHED') {
      await content.update(db, portalId, 'blog-posts', id, { publish_immediately: w.published === undefined });
      await content.publishAction(db, portalId, 'blog-posts', id, 'schedule-publish');
    } else if (w.draft === true && state != 'DRAFT')
      await content.publishAction(db, portalId, 'blog-posts', id, 'cancel-publish');
  }

  /** Posts as v1 answers them. */
  const posts = async (db: Queryable, records: ContentRecord[]) => {
    const out = [];
    for (const p of records) out.push(await post(db, p));
    return out;
  };

  return {
    blog,
    post,
    comment,
    listBlogs: async (db: Queryable, portalId: number, p: Paging) =>
      (await content.list(db, portalId, 'blogs', page(p), FIELDS)).objects.map(blog),
    getBlog: async (db: Queryable, portalId: number, guid: string) =>
      blog(await find(db, portalId, 'blogs', guid, 'blog')),
    async listPosts(db: Queryable, portalId: number, blogGuid: string, p: Paging & { draft?: boolean }) {
      const b = await find(db, portalId, 'blogs', blogGuid, 'blog');
      const state = p.draft === undefined ? {} : p.draft ? { state__ne: 'PUBLISHED' } : { state: 'PUBLISHED' };
      return posts(
        db,
        (
          await content.list(
            db,
            portalId,
            'blog-posts',
            { content_group_id: String(b.id), ...state, order_by: '-created', ...page(p) },
            FIELDS,
          )
        ).objects,
      );
    },
    getPost: async (db: Queryable, portalId: number, guid: string) =>
      post(db, await find(db, portalId, 'blog-posts', guid, 'post')),
    async listPostComments(db: Queryable, portalId: number, postGuid: string, p: Paging) {
      const found = await find(db, portalId, 'blog-posts', postGuid, 'post');
      return (
        await content.list(db, portalId, 'comments', { content_id: String(found.id), ...page(p) }, FIELDS)
      ).objects.map(comment);
    },
    async listBlogComments(db: Queryable, portalId: number, blogGuid: string, p: Paging) {
      const b = await find(db, portalId, 'blogs', blogGuid, 'blog');
      return (
        await content.list(db, portalId, 'comments', { collection_id: String(b.id), ...page(p) }, FIELDS)
      ).objects.map(comment);
    },
    getComment: async (db: Queryable, portalId: number, guid: string) =>
      comment(await find(db, portalId, 'comments', guid, 'comment')),

    /** A new post: a draft (§3), unless the entry says `draft=false` (then as an update would). */
    async createPost(db: Queryable, portalId: number, blogGuid: string, w: PostWrite) {
      const b = await find(db, portalId, 'blogs', blogGuid, 'blog');
      return db.tx(async (t) => {
        const { id } = await content.create(t, portalId, 'blog-posts', {
          ...(await v2Fields(t, portalId, w)),
          content_group_id: b.id,
        });
        await publishAsAsked(t, portalId, id, w);
        return post(t, await content.get(t, portalId, 'blog-posts', id));
      });
    },

    /** Changes the fields given; `draft=false` publishes a draft (at `published` when given: scheduled
     * when that is in the future), `draft=true` takes a published or scheduled post back to draft. */
    async updatePost(db: Queryable, portalId: number, guid: string, w: PostWrite) {
      const id = (await find(db, portalId, 'blog-posts', guid, 'post')).id;
      return db.tx(async (t) => {
        const fields = await v2Fields(t, portalId, w);
        if (Object.keys(fields).length) await content.update(t, portalId, 'blog-posts', id, fields);
        await publishAsAsked(t, portalId, id, w);
        return post(t, await content.get(t, portalId, 'blog-posts', id));
      });
    },

    /** Comments are live at once: there is no draft state for them (§3). */
    async createComment(db: Queryable, portalId: number, postGuid: string, w: CommentWrite) {
      const p = await find(db, portalId, 'blog-posts', postGuid, 'post');
      return comment(
        await content.create(db, portalId, 'comments', {
          content_id: p.id,
          comment: w.comment,
          user_name: w.anonyName,
          user_email: w.anonyEmail,
          user_url: w.anonyUrl ?? null,
        }),
      );
    },
  };
}

export type BlogV1Store = ReturnType<typeof blogV1Store>;
