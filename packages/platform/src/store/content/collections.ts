/** The content collections of §4.8 and what differs between them: the defaults a new object gets,
 * the fields a write may not set, and checks that need other objects (a post's blog, a comment's
 * post). Everything else — storage, soft delete, buffer, versions, lists — is the shared engine in
 * engine.ts. */
import { PlatformError, badRequest, notFound } from '../../domain/errors';

export type Record_ = Record<string, unknown>;
/** A stored object as the API answers it. */
export type ContentRecord = Record_ & { id: number };

export type CollectionName =
  | 'blog-posts'
  | 'comments'
  | 'blog-authors'
  | 'topics'
  | 'pages'
  | 'templates'
  | 'url-mappings'
  | 'domains'
  | 'site-maps'
  | 'layouts'
  | 'blogs'
  | 'folders'
  | 'files';

/** What a collection's rules may look up. */
/** What a collection's rules may look up (in the transaction of the write they check). */
export interface Lookup {
  get(portalId: number, collection: CollectionName, id: number): Promise<Record_ | undefined>;
  /** The live folder at `fullPath` (`/docs/logos`). */
  folderByPath(portalId: number, fullPath: string): Promise<Record_ | undefined>;
}

export interface Collection {
  /** Fields the server owns: ignored in every write body. */
  serverFields: readonly string[];
  /** The new object's record, before the write body is applied over it. */
  defaults(input: Record_, now: number, portalId: number): Record_;
  /** Checks and derived fields after a write body is applied (throws a 400). `id` is the
   * object's own and `before` its live record (both undefined on create). */
  complete?(record: Record_, lookup: Lookup, portalId: number, id?: number, before?: Record_): void | Promise<void>;
  /** Fields of other collections that hold ids of this one's objects (`list`: an array of ids). A
   * delete drops the id from them, so that nothing refers to a deleted object. */
  referencedBy?: readonly { collection: CollectionName; field: string; list?: boolean }[];
  /** Publishable objects (posts, pages) have a state machine (§3) and a URL. */
  publishable?: boolean;
  /** Keys computed on every read (a file's URLs), from the object's id and the site's address. */
  decorate?(record: Record_, at: { id: number; portalId: number; base: string }): void;
}

/** Server-owned in every collection. `deleted_at` is set only by DELETE (§2.1). */
const COMMON = ['id', 'portal_id', 'created', 'updated', 'deleted_at'] as const;
/** Changed only by publish-action (§3): an update never publishes. */
const PUBLISHING = [
  'state',
  'is_draft',
  'url',
  'published_url',
  'processing_status',
  'unpublished_at',
  'current_state',
] as const;

/** `My First Post!` → `my-first-post`. */
export const slugify = (s: string) =>
  s
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^\w\s-]/g, '')
    .trim()
    .replace(/[\s_-]+/g, '-')
    .replace(/^-+|-+$/g, '') || 'untitled';

const stamps = (now: number) => ({ created: now, updated: now });
const str = (v: unknown) => (typeof v == 'string' ? v : '');
/** Whether a write changes a field: references are checked only when they change, so that an
 * object is never frozen by one that went away (a deleted post's comment stays editable). */
const changes = (record: Record_, before: Record_ | undefined, key: string) =>
  !before || JSON.stringify(record[key]) !== JSON.stringify(before[key]);

/** `blog_author` (the author's record) and `comment_count` are computed on every read (engine.ts). */
const blogPost: Collection = {
  serverFields: [...COMMON, ...PUBLISHING, 'blog_author', 'cloned_from', 'comment_count', 'views'],
  publishable: true,
  defaults: (input, now) => ({
    ...stamps(now),
    content_group_id: null,
    name: '',
    html_title: str(input.name),
    slug: '',
    post_body: '',
    post_summary: '',
    rss_body: '',
    rss_summary: '',
    meta_description: '',
    meta_keywords: null,
    keywords: [],
    blog_author_id: null,
    author_user_id: null,
    topic_ids: [],
    state: 'DRAFT',
    is_draft: true,
    processing_status: 'draft',
    publish_date: null,
    publish_immediately: null,
    archived: false,
    unpublished_at: null,
    domain: '',
    featured_image: '',
    use_featured_image: false,
    campaign: null,
    campaign_name: null,
    head_html: '',
    footer_html: '',
    widgets: {},
    widget_containers: {},
    views: 0,
    category_id: 3,
    subcategory: 'normal_blog_post',
    cloned_from: null,
    is_instant_email_enabled: false,
    is_social_publishing_enabled: false,
    personas: [],
  }),
  async complete(post, lookup, portalId, _id, before) {
    const blog = await lookup.get(portalId, 'blogs', Number(post.content_group_id));
    if (!blog) throw badRequest(`body.content_group_id: no blog with id ${String(post.content_group_id)}`);
    if (!post.slug) post.slug = `${str(blog.slug) || 'blog'}/${slugify(str(post.name))}`;
    if (
      post.blog_author_id != null &&
      changes(post, before, 'blog_author_id') &&
      !(await lookup.get(portalId, 'blog-authors', Number(post.blog_author_id)))
    )
      throw badRequest(`body.blog_author_id: no blog author with id ${String(post.blog_author_id)}`);
    const had = new Set((before?.topic_ids ?? []) as number[]);
    for (const [i, t] of (post.topic_ids as number[]).entries())
      if (!had.has(t) && !(await lookup.get(portalId, 'topics', t)))
        throw badRequest(`body.topic_ids.${i}: no topic with id ${t}`);
  },
};

const page: Collection = {
  serverFields: [...COMMON, ...PUBLISHING, 'cloned_from'],
  publishable: true,
  defaults: (input, now) => ({
    ...stamps(now),
    name: '',
    html_title: str(input.name),
    slug: '',
    domain: '',
    current_live_domain: null,
    subcategory: 'site_page',
    template_path: null,
    widgets: {},
    widget_containers: {},
    meta_description: '',
    keywords: [],
    head_html: '',
    footer_html: '',
    publish_date: null,
    publish_immediately: null,
    is_draft: true,
    state: 'DRAFT',
    current_state: 'DRAFT',
    archived: false,
    campaign: null,
    campaign_name: null,
  }),
  complete(p) {
    if (!p.slug) p.slug = slugify(str(p.name));
  },
};

const comment: Collection = {
  serverFields: [...COMMON, 'collection_id', 'created_at', 'content_permalink', 'content_title'],
  defaults: (_input, now) => ({
    ...stamps(now),
    created_at: now,
    parent_id: null,
    user_name: null,
    user_email: null,
    user_url: null,
    state: 'APPROVED',
  }),
  async complete(c, lookup, portalId, _id, before) {
    // A comment stays with its post: it can be edited while the post is deleted (restorable).
    if (changes(c, before, 'content_id')) {
      const post = await lookup.get(portalId, 'blog-posts', Number(c.content_id));
      if (!post) throw badRequest(`body.content_id: no blog post with id ${String(c.content_id)}`);
      c.collection_id = post.content_group_id;
      c.content_title = post.name;
    }
    if (
      c.parent_id != null &&
      changes(c, before, 'parent_id') &&
      !(await lookup.get(portalId, 'comments', Number(c.parent_id)))
    )
      throw badRequest(`body.parent_id: no comment with id ${String(c.parent_id)}`);
  },
};

const blogAuthor: Collection = {
  serverFields: COMMON,
  referencedBy: [{ collection: 'blog-posts', field: 'blog_author_id' }],
  defaults: (_input, now) => ({
    ...stamps(now),
    email: null,
    slug: '',
    bio: '',
    avatar: '',
    gravatar_url: null,
    website: '',
    twitter: '',
    facebook: '',
    linkedin: '',
    google_plus: '',
    user_id: null,
    username: null,
    body: {},
  }),
  complete(a) {
    if (!a.slug) a.slug = slugify(str(a.full_name));
  },
};

const topic: Collection = {
  serverFields: COMMON,
  referencedBy: [{ collection: 'blog-posts', field: 'topic_ids', list: true }],
  defaults: (_input, now) => ({ ...stamps(now), slug: '', description: '' }),
  complete(t) {
    if (!t.slug) t.slug = slugify(str(t.name));
  },
};

const template: Collection = {
  serverFields: [...COMMON, 'folder', 'filename', 'generated_from_layout_id'],
  defaults: (_input, now) => ({
    ...stamps(now),
    label: null,
    source: '',
    is_available_for_new_content: true,
    template_type: 4,
    category_id: 1,
    is_read_only: false,
    generated_from_layout_id: null,
  }),
  complete(t) {
    const path = str(t.path);
    const cut = path.lastIndexOf('/');
    t.folder = cut > 0 ? path.slice(0, cut) : '';
    t.filename = path.slice(cut + 1);
  },
};

const urlMapping: Collection = {
  serverFields: COMMON,
  // A mapping may name one of the portal's own blogs: another portal's is not there to see.
  async complete(mapping, lookup, portalId) {
    const blog = mapping.content_group_id;
    if (blog != null && !(await lookup.get(portalId, 'blogs', Number(blog))))
      throw notFound(`body.content_group_id: no blog ${String(blog)} in this portal`);
  },
  defaults: (_input, now) => ({
    ...stamps(now),
    name: null,
    is_match_full_url: false,
    is_match_query_string: false,
    is_only_after_not_found: false,
    precedence: 0,
    content_group_id: null,
  }),
};

/** Read-only collections (domains, site maps, layouts, blogs) take no create with user input;
 * their defaults are only a base for the seed. */
const plain: Collection = { serverFields: COMMON, defaults: (_input, now) => stamps(now) };

/** A blog's `root_url` is where the site server answers for it: computed on read from the address
 * the platform serves (or its public URL), never the one it had when the blog was seeded. */
const blog: Collection = {
  ...plain,
  decorate(b, { portalId, base }) {
    b.root_url = `${base}/sites/${portalId}/${str(b.slug)}`;
  },
};

/** A file or folder name: one path segment that cannot climb out of its folder. */
export function checkName(name: string, field: string) {
  if (!name || name == '.' || name == '..' || /[/\\\0]/.test(name) || name.length > 255)
    throw badRequest(`${field}: must be a file or folder name, not a path (no /, \\, . or ..)`);
  return name;
}

const folder: Collection = {
  serverFields: [...COMMON, 'full_path', 'category'],
  defaults: (_input, now) => ({ ...stamps(now), parent_folder_id: null, category: 0 }),
  async complete(f, lookup, portalId, id) {
    const name = checkName(str(f.name), 'body.name');
    let parentPath = '';
    if (f.parent_folder_id != null) {
      const parent = await lookup.get(portalId, 'folders', Number(f.parent_folder_id));
      if (!parent) throw badRequest(`body.parent_folder_id: no folder with id ${String(f.parent_folder_id)}`);
      // A folder cannot move under itself or its own subfolders.
      for (
        let up: Record_ | undefined = parent;
        up;
        up =
          up.parent_folder_id == null ? undefined : await lookup.get(portalId, 'folders', Number(up.parent_folder_id))
      )
        if (id !== undefined && up.id === id)
          throw badRequest('body.parent_folder_id: a folder cannot move into itself or its subfolders');
      parentPath = str(parent.full_path);
    }
    const fullPath = `${parentPath}/${name}`;
    f.full_path = fullPath;
    const taken = await lookup.folderByPath(portalId, fullPath);
    if (taken && taken.id !== id) throw new PlatformError('conflict', `a folder ${fullPath} exists already`);
  },
};

/** Files are written by the upload and file routes only (store/files.ts); their URLs are
 * computed on read so they follow the platform's address. */
const file: Collection = {
  serverFields: COMMON,
  defaults: (_input, now) => stamps(now),
  decorate(f, { id, portalId, base }) {
    const url = `${base}/hubfs/${portalId}/${id}/${encodeURIComponent(str(f.name))}${f.extension ? `.${str(f.extension)}` : ''}`;
    Object.assign(f, { url, friendly_url: url, alt_url: url, s3_url: url });
  },
};

export const COLLECTIONS: Record<CollectionName, Collection> = {
  'blog-posts': blogPost,
  comments: comment,
  'blog-authors': blogAuthor,
  topics: topic,
  pages: page,
  templates: template,
  'url-mappings': urlMapping,
  domains: plain,
  'site-maps': plain,
  layouts: plain,
  blogs: blog,
  folders: folder,
  files: file,
};
