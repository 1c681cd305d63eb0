/** What every portal's site has from the start and the API cannot create (§4.8 lists them as
 * read-only): a blog, a domain, a layout and a site map. Seeded once per portal. */
import type { ContentEngine } from './engine';

export function seedSite(content: ContentEngine, portalId: number, now: number) {
  if (content.list(portalId, 'blogs', { limit: 1 }, new Set()).total) return;
  const stamps = { created: now, updated: now };
  const domain = `portal-${portalId}.sites.svc.local`;
  content.insertRaw(portalId, 'domains', {
    ...stamps,
    domain,
    is_resolving: true,
    is_legacy_domain: false,
    is_ssl_enabled: false,
    primary_landing_page: true,
    primary_site_page: true,
    primary_blog_post: true,
    primary_email: false,
  });
  const layout = content.insertRaw(portalId, 'layouts', { ...stamps, label: 'Blog post', path: 'layouts/blog-post.html', body: {} });
  content.insertRaw(portalId, 'blogs', {
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
    item_layout_id: layout.id,
    listing_layout_id: layout.id,
    html_head: '',
    html_footer: '',
    html_keywords: [],
    attached_stylesheets: [],
  });
  content.insertRaw(portalId, 'site-maps', { ...stamps, name: 'Main site map', pages: [] });
}
