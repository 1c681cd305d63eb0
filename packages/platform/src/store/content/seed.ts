/** What every portal's site has from the start and the API cannot create (§4.8 lists them as
 * read-only): a blog, a domain, a layout and a site map. Seeded once per portal. */
import type { Queryable } from '../../db/engine';
import type { CollectionName, Record_ } from './collections';
import type { ContentEngine } from './engine';

/** The seeded objects, in the order they are inserted; the blog names the layout's id. */
function siteObjects(portalId: number, now: number) {
  const stamps = { created: now, updated: now };
  const domain = `portal-${portalId}.sites.svc.local`;
  const domains: Record_ = {
    ...stamps,
    domain,
    is_resolving: true,
    is_legacy_domain: false,
    is_ssl_enabled: false,
    primary_landing_page: true,
    primary_site_page: true,
    primary_blog_post: true,
    primary_email: false,
  };
  const layouts: Record_ = { ...stamps, label: 'Blog post', path: 'layouts/blog-post.html', body: {} };
  const blogs = (layout: number): Record_ => ({
    ...stamps,
    name: 'Blog',
    public_title: 'Blog',
    html_title: 'Blog',
    description: '',
    slug: 'blog',
    domain,
    domain_when_published: domain,
    language: 'en',
    allow_comments: true,
    comment_moderation: false,
    comment_notification_emails: [],
    posts_per_listing_page: 10,
    posts_per_rss_feed: 10,
    item_layout_id: layout,
    listing_layout_id: layout,
    html_head: '',
    html_footer: '',
    html_keywords: [],
    attached_stylesheets: [],
  });
  const siteMaps: Record_ = { ...stamps, name: 'Main site map', pages: [] };
  return { domains, layouts, blogs, siteMaps };
}

/** Seeds the portal's site where `db` runs, unless it has a blog already. */
export async function seedSite(db: Queryable, content: ContentEngine, portalId: number, now: number) {
  if ((await content.list(db, portalId, 'blogs', { limit: 1 }, new Set())).total) return;
  const o = siteObjects(portalId, now);
  const insert = async (collection: CollectionName, record: Record_) =>
    (await content.insertRaw(db, portalId, collection, record)).id;
  await insert('domains', o.domains);
  const layout = await insert('layouts', o.layouts);
  await insert('blogs', o.blogs(layout));
  await insert('site-maps', o.siteMaps);
}
