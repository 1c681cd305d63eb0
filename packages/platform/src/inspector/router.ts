/** The inspector: a web page on {base_url}/_inspector/ for people to look at what the platform
 * holds — contacts with their identities and timelines, lists, forms, and tracking as it arrives.
 *
 * The page and its script are public (they hold no data); the data under /_inspector/api needs
 * the inspector key (`Authorization: Bearer <key>`), which the page takes from its URL fragment
 * (`#key=…`, never sent to a server or written to a log). Without a key the inspector is off. */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { errorBody, httpAnswer } from '../http/errors';
import { keyCheck } from '../http/key-check';
import type { Engine } from '../db/engine';
import type { Dashboard } from '../services/dashboard';
import type { InspectorQueries } from '../store/inspector';
import type { FormSubmissions } from '../services/form-submissions';
import type { OutboxStore } from '../store/outbox';

/** The package's own folder, found from this module whether it runs from src/ or dist/chunks/. */
function packageRoot() {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return dir;
}

const require = createRequire(import.meta.url);
const VENDOR = {
  'uplot.js': require.resolve('uplot/dist/uPlot.iife.min.js'),
  'uplot.css': require.resolve('uplot/dist/uPlot.min.css'),
};

/** Security headers for the page: it runs no inline script or style, so it can say so. */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; frame-ancestors 'none'";

/** The forms view's spam review: a form's spam submissions, and their release as not spam. */
export interface InspectorSpam {
  submissions: Pick<FormSubmissions, 'spam' | 'release'>;
}

/** The mail view's: the caught emails, and whether they carry preference links. */
export interface InspectorMail {
  outbox: OutboxStore;
  preferenceLinks: boolean;
}

/** What the mail view says when emails carry no preference link. */
const NO_PREFERENCE_LINKS =
  "Emails carry no preference link: start the platform with the companion's preference page and link secret — createPlatform({ preferenceLinks: { url: 'https://www.example.com/svc/preferences', secret } }), or svc-platform with env SVC_PREFERENCES_URL and SVC_PREFERENCES_SECRET (the companion's subscriptions.linkSecret).";

/** `engine`: where the queries run (a read answers once what it saw is committed). */
export function inspectorRouter(
  queries: InspectorQueries,
  dashboard: Dashboard,
  engine: Engine,
  key: string,
  mail: InspectorMail,
  spam: InspectorSpam,
): Router {
  const router = express.Router();
  const isKey = keyCheck(key);

  router.use((_req, res, next) => {
    res.set({
      'Content-Security-Policy': CSP,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-store',
    });
    next();
  });
  router.get('/', (req, res, next) => (req.originalUrl.endsWith('/') ? next() : res.redirect(301, `${req.baseUrl}/`)));
  router.use(express.static(join(packageRoot(), 'inspector'), { index: 'index.html', etag: false }));
  // The dashboard's charts: uPlot (MIT, ~50 KB minified), served from the installed package, never a CDN.
  for (const [name, file] of Object.entries(VENDOR)) router.get(`/vendor/${name}`, (_req, res) => res.sendFile(file));

  const api = express.Router();
  api.use((req: Request, res: Response, next: NextFunction) => {
    if (!isKey(/^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1]))
      return void res
        .status(401)
        .json(
          errorBody(
            "the inspector key is missing or wrong: open the URL the platform printed, or add #key= and the inspectorKey of its credentials file to this page's address",
          ),
        );
    next();
  });
  /** Query numbers: a positive integer or the fallback. */
  const int = (value: unknown, fallback = 0) =>
    typeof value == 'string' && /^\d{1,15}$/.test(value) ? Number(value) : fallback;
  const portalOf = (req: Request) => int(req.query.portal);

  /** Answers what `read` found, once what it saw is committed. */
  const answer = async (res: Response, read: Promise<unknown>) => {
    const found = await read;
    await engine.settled();
    res.json(found);
  };

  api.get('/portals', (_req, res) => answer(res, queries.portals(engine)));
  api.get('/contacts', (req, res) =>
    answer(
      res,
      queries.contacts(
        engine,
        portalOf(req),
        typeof req.query.q == 'string' ? req.query.q.slice(0, 200) : '',
        int(req.query.offset),
      ),
    ),
  );
  api.get('/contacts/:vid', async (req, res) => {
    const contact = await queries.contact(engine, portalOf(req), int(req.params.vid));
    if (!contact)
      return void res.status(404).json(errorBody(`no contact ${req.params.vid} in portal ${portalOf(req)}`));
    await answer(res, Promise.resolve(contact));
  });
  /** A platform error (a 404, a 400) answered as the API answers it; anything else is thrown. */
  const orError = async (res: Response, work: () => Promise<void>) => {
    try {
      await work();
    } catch (err) {
      const known = httpAnswer(err);
      if (!known) throw err;
      res.status(known.status).json(known.body);
    }
  };
  api.get('/lists', (req, res) => answer(res, queries.lists(engine, portalOf(req))));
  api.get('/forms', (req, res) => answer(res, queries.forms(engine, portalOf(req))));
  // Spam review: a form's spam submissions, newest first (?before=<conversionId>&limit=1..100),
  // and "not spam", which replays one as it was sent (services/form-submissions.ts).
  const text = (value: unknown) => (typeof value == 'string' ? value.slice(0, 100) : undefined);
  api.get('/forms/:guid/spam', (req, res) =>
    orError(res, () =>
      answer(
        res,
        spam.submissions.spam(engine, portalOf(req), req.params.guid, {
          before: text(req.query.before),
          limit: int(req.query.limit, 50),
        }),
      ),
    ),
  );
  api.post('/forms/:guid/spam/:id/release', (req, res) =>
    orError(res, async () => {
      const released = await spam.submissions.release(portalOf(req), req.params.guid, req.params.id);
      res.json(released);
    }),
  );
  api.get('/feed', (req, res) => answer(res, queries.feed(engine, portalOf(req), int(req.query.after))));
  // The mail catcher: the emails workflows sent, newest first (?before=id pages on), and one.
  api.get('/mail', async (req, res) => {
    const page = await mail.outbox.list(engine, portalOf(req), int(req.query.before));
    await answer(
      res,
      Promise.resolve({
        ...page,
        preferenceLinks: mail.preferenceLinks,
        ...(!mail.preferenceLinks && { howToConfigure: NO_PREFERENCE_LINKS }),
      }),
    );
  });
  api.get('/mail/:id', async (req, res) => {
    const message = await mail.outbox.get(engine, portalOf(req), int(req.params.id));
    if (!message)
      return void res
        .status(404)
        .json(errorBody(`no email ${String(req.params.id).slice(0, 40)} in portal ${portalOf(req)}`));
    await answer(res, Promise.resolve(message));
  });
  // The dashboard's panels: ?portal=…&range=today|7d|30d|90d (services/dashboard.ts).
  api.get('/dashboard/:panel', async (req, res, next) => {
    const panel = req.params.panel;
    if (!dashboard.isPanel(panel)) return next();
    await orError(res, () => answer(res, dashboard.read(engine, portalOf(req), panel, req.query.range)));
  });
  api.use((req, res) => void res.status(404).json(errorBody(`no inspector data at ${req.path}`)));
  router.use('/api', api);
  return router;
}
