/** The site server: a published blog post or page is served as an HTML page at its `url`
 * (`{base_url}/sites/<portal>/<slug>`); while unpublished, deleted or unknown the URL is a 404
 * (§7.2). A blog's root lists its published posts. The portal's URL mappings redirect first
 * (store/content/url-mappings.ts). */
import type { Express, NextFunction, Request, Response } from 'express';
import type { Queryable } from '../db/engine';
import type { ContentEngine } from '../store/content/engine';
import { redirectFor } from '../store/content/url-mappings';

const escape = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** What lists a blog's posts and orders them: the listing page's query. */
const LISTING_FIELDS: ReadonlySet<string> = new Set(['content_group_id', 'state', 'publish_date']);

/** A blog's root (its `root_url`) as a page: links to its newest published posts. */
async function blogListing(
  db: Queryable,
  content: ContentEngine,
  portalId: number,
  slug: string,
): Promise<Record<string, unknown> | undefined> {
  const blog = (await content.allLive(db, portalId, 'blogs')).find((b) => b.slug == slug);
  if (!blog) return undefined;
  const query = {
    content_group_id: String(blog.id),
    state: 'PUBLISHED',
    order_by: '-publish_date',
    limit: Number(blog.posts_per_listing_page) || 10,
  };
  const posts = (await content.list(db, portalId, 'blog-posts', query, LISTING_FIELDS)).objects;
  const items = posts.map((p) => `<li><a href="${escape(p.url)}">${escape(p.html_title || p.name)}</a></li>`).join('');
  return {
    name: blog.public_title || blog.name,
    html_title: blog.html_title,
    meta_description: blog.description,
    post_body: `<ul>${items}</ul>`,
  };
}

const notFound = (res: Response) =>
  res.status(404).type('html').send('<!doctype html><title>Not found</title><h1>Not found</h1>');

/** `db` is where the site's reads run (the engine); `settled` resolves once what they may have
 * seen is committed (the catalog's reads wait for it too). */
export function mountSite(app: Express, content: ContentEngine, db: Queryable, settled: () => Promise<void>) {
  app.get(
    '/sites/:portalId/*slug',
    (req: Request, res: Response, next: NextFunction) => void page(req, res).catch(next),
  );
  async function page(req: Request, res: Response) {
    const portalId = Number(req.params.portalId);
    const slug = (req.params.slug as unknown as string[]).join('/');
    if (!Number.isSafeInteger(portalId)) return void notFound(res);
    const live = (await content.liveBySlug(db, portalId, slug)) ?? (await blogListing(db, content, portalId, slug));
    const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '';
    const site = { path: `/${slug}`, query, root: `${content.site.base}/sites/${portalId}` };
    const redirect = redirectFor(await content.allLive(db, portalId, 'url-mappings'), site, Boolean(live));
    await settled();
    if (redirect) return res.redirect(redirect.status, redirect.location);
    if (!live) return void notFound(res);

    // post_body and head/footer HTML are the author's own markup and go out as written; the
    // title and description are text.
    res
      .type('html')
      .send(
        `<!doctype html><html><head><meta charset="utf-8"><title>${escape(live.html_title || live.name)}</title>` +
          `<meta name="description" content="${escape(live.meta_description)}">${String(live.head_html ?? '')}</head>` +
          `<body><h1>${escape(live.name)}</h1>${String(live.post_body ?? '')}${String(live.footer_html ?? '')}</body></html>`,
      );
  }
}
