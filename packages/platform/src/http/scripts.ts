/** The browser scripts, served by the platform itself the way the modelled platform serves its
 * tracking code: `{base_url}/tracker.js` and `{base_url}/forms.js` (set up by the tag's `data-*`
 * attributes), and `{base_url}/js/{portalId}.js`, the tracker with the portal and this platform's
 * collector already set, for a script tag with nothing but `src`. The companion's first-party copy
 * stays the recommended way (its cookie and requests are the site's own); this one makes the
 * tracker README's plain script tag work as written. The bundles are the installed `@svc/tracker`
 * and `@svc/forms` builds; without them these paths say so. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { COLLECT_PATH } from '@svc/protocol';
import type { Express, Request, Response } from 'express';
import type { Queryable } from '../db/engine';

const require = createRequire(import.meta.url);

/** Where an installed package's file is, or undefined (not installed, or not built). */
function resolveFile(spec: string) {
  try {
    return require.resolve(spec);
  } catch {
    return undefined;
  }
}

/** A built bundle's text, read once on first use; undefined when there is none. */
function bundle(file: string | undefined) {
  let text: string | undefined | null = null;
  return () => {
    if (text === null) {
      try {
        text = file ? readFileSync(file, 'utf8') : undefined;
      } catch {
        text = undefined;
      }
    }
    return text;
  };
}

const HEADERS = {
  'Cache-Control': 'public, max-age=300',
  'X-Content-Type-Options': 'nosniff',
  'Cross-Origin-Resource-Policy': 'cross-origin',
};

export interface ScriptDeps {
  /** Whether the portal exists (its tier, or undefined). */
  portalTier: (db: Queryable, portalId: number) => Promise<unknown>;
  db: Queryable;
  /** `{base_url}` as the public reaches it, known once the platform listens. */
  baseUrl: () => string | undefined;
}

export function mountScripts(app: Express, deps: ScriptDeps) {
  const tracker = bundle(resolveFile('@svc/tracker/tracker.js'));
  const forms = bundle(resolveFile('@svc/forms/forms.js'));
  const missing = (res: Response, name: string) =>
    res.status(404).json({
      status: 'error',
      message: `${name} is not built or not installed next to the platform: run \`npm run build\``,
    });
  const send = (res: Response, text: string) => res.set(HEADERS).type('js').send(text);

  app.get('/tracker.js', (_req, res) => {
    const text = tracker();
    return text ? send(res, text) : missing(res, '@svc/tracker');
  });
  app.get('/forms.js', (_req, res) => {
    const text = forms();
    return text ? send(res, text) : missing(res, '@svc/forms');
  });
  app.get('/js/:file', (req: Request, res: Response, next) => {
    const id = /^(\d{1,15})\.js$/.exec(String(req.params.file))?.[1];
    if (!id) return void res.status(404).json({ status: 'error', message: 'path.file: must be {portalId}.js' });
    deps
      .portalTier(deps.db, Number(id))
      .then((tier) => {
        if (!tier) return void res.status(404).json({ status: 'error', message: `portal ${id} does not exist` });
        const text = tracker();
        if (!text) return void missing(res, '@svc/tracker');
        // The page's own window.svc.config still wins, as with the plain tracker.js.
        const config = { portalId: id, collector: `${deps.baseUrl() ?? ''}${COLLECT_PATH}` };
        send(
          res,
          `window.svc=window.svc||{};window.svc.config=Object.assign(${JSON.stringify(config)},window.svc.config);\n${text}`,
        );
      })
      .catch(next);
  });
}
