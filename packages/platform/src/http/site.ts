/** The site server: a published blog post or page is served as an HTML page at its `url`
 * (`{base_url}/sites/<portal>/<slug>`); while unpublished, deleted or unknown the URL is a 404
 * (§7.2). The portal's URL mappings redirect first (store/content/url-mappings.ts). */
import type { Express, Request, Response } from 'express';
import type { ContentEngine } from '../store/content/engine';
import { redirectFor } from '../store/content/url-mappings';

const escape = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const notFound = (res: Response) => res.status(404).type('html').send('<!doctype html><title>Not found</title><h1>Not found</h1>');

export function mountSite(app: Express, content: ContentEngine) {
  app.get('/sites/:portalId/*slug', (req: Request, res: Response) => {
    const portalId = Number(req.params.portalId);
    const slug = (req.params.slug as unknown as string[]).join('/');
    if (!Number.isSafeInteger(portalId)) return void notFound(res);
    const live = content.liveBySlug(portalId, slug);
    const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '';
    const site = { path: `/${slug}`, query, root: `${content.site.base}/sites/${portalId}` };
    const redirect = redirectFor(content.allLive(portalId, 'url-mappings'), site, Boolean(live));
    if (redirect) return res.redirect(redirect.status, redirect.location);
    if (!live) return void notFound(res);

    // post_body and head/footer HTML are the author's own markup and go out as written; the
    // title and description are text.
    res.type('html').send(
      `<!doctype html><html><head><meta charset="utf-8"><title>${escape(live.html_title || live.name)}</title>` +
        `<meta name="description" content="${escape(live.meta_description)}">${String(live.head_html ?? '')}</head>` +
        `<body><h1>${escape(live.name)}</h1>${String(live.post_body ?? '')}${String(live.footer_html ?? '')}</body></html>`,
    );
  });
}
