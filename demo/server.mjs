// The demo website, a small marketing site for "Acme Widgets", with the companion mounted at
// /svc in front of a running platform. `npm start` runs it through demo/start.mjs, which also
// starts the platform; tests create it with createDemoSite().
//
//   /                 home; /pricing is the same page, reached by client-side navigation
//   /contact          the contact form, rendered by the form embed (/svc/forms.js): consent,
//                     pre-fill and a queued question for known visitors (issue 19)
//   /svc/...          the companion: tracker.js, forms.js, collector proxy, /visitor,
//                     /subscriptions and the preference centre (/svc/preferences), /forms/:guid
//                     and /forms/:guid/visitor
//   POST /api/buy     the "buy" button's server-side event (companion.events.track)
//   /svc/webhooks     signed workflow webhooks from the platform (issue 21): start.mjs points a
//                     workflow of contact-form leads here; GET /api/notified lists what came
//   /demo-config.json what the pages need to know: portal id, form guid, {forms_url}
import { fileURLToPath } from 'node:url';
import express from 'express';
import { createCompanion } from '@svc/companion';
import { isUtk, UTK_COOKIE } from '@svc/protocol';

const PUBLIC = fileURLToPath(new URL('./public/', import.meta.url));
/** The bundles as this checkout builds them (npm run build). */
const BUNDLES = {
  trackerFile: fileURLToPath(new URL('../packages/tracker/dist/tracker.js', import.meta.url)),
  formsFile: fileURLToPath(new URL('../packages/forms/dist/forms.js', import.meta.url)),
};
/** Client-side routes of index.html (demo.js renders them), served as index.html on reload. */
const SPA_ROUTES = ['/', '/pricing'];
/** The visitor's `svcutk` in a Cookie header. */
const UTK_IN_COOKIES = new RegExp(`(?:^|;\\s*)${UTK_COOKIE}=([^;]*)`);

/**
 * @param {object} o
 * @param {string} o.baseUrl  {base_url} of the platform
 * @param {string} o.formsUrl {forms_url} of the platform
 * @param {{portalId: number, privateAppToken: string, oauth: {clientId: string, clientSecret: string, refreshToken: string}}} o.credentials
 * @param {string} o.contactFormId the guid of the "Contact us" form
 * @param {string} [o.dataDir] where the companion keeps its token file and event outbox
 * @param {string} [o.linkSecret] signs preference links (≥ 32 characters)
 * @param {import('pino').Logger | false} [o.logger]
 */
export function createDemoSite({
  baseUrl,
  formsUrl,
  credentials,
  contactFormId,
  dataDir = '.data',
  linkSecret,
  logger,
}) {
  const app = express();
  app.disable('x-powered-by');
  const companion = createCompanion({
    baseUrl,
    formsUrl,
    // OAuth like a real integration: the companion refreshes the access token itself.
    auth: { oauth: credentials.oauth },
    tokenFile: `${dataDir}/companion-tokens.json`,
    events: { outboxFile: `${dataDir}/companion-outbox.jsonl`, flushIntervalMs: 1000, handleSigterm: false },
    // The preference centre links back home, and sends a visitor it does not know to the contact form.
    subscriptions: { ...(linkSecret && { linkSecret }), siteUrl: '/', signUpUrl: '/contact' },
    proxy: BUNDLES,
    // The demo runs on plain http: helmet's default CSP would upgrade the page's requests to https.
    helmet: { contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } },
    logger,
  });

  // The site's own pages: no inline script or style anywhere, so the CSP can forbid them. The
  // form embed posts to {forms_url}, the one other origin the pages talk to.
  const csp = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    `connect-src 'self' ${new URL(formsUrl).origin}`,
    "form-action 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  app.use((req, res, next) => {
    if (!req.path.startsWith('/svc/')) res.set({ 'Content-Security-Policy': csp, 'X-Content-Type-Options': 'nosniff' });
    next();
  });

  app.use('/svc', companion);

  // What the platform told the site through workflow webhooks (verified by the companion): a
  // real site would hand the lead to its CRM or sales inbox here.
  const notified = [];
  companion.webhooks.on('workflow', (event) => {
    notified.unshift({
      id: event.id,
      workflowId: event.workflowId,
      vid: event.vid,
      firstname: event.properties.firstname ?? null,
      at: event.timestamp,
    });
    notified.length = Math.min(notified.length, 20);
  });
  app.get('/api/notified', (_req, res) => res.set('Cache-Control', 'no-store').json({ notified }));

  app.get('/demo-config.json', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ portalId: credentials.portalId, contactFormId, formsUrl });
  });

  // "Buy": the browser fires a JavaScript custom event itself; the server records the purchase
  // as a server-side event for the same visitor (by the svcutk cookie).
  app.post('/api/buy', express.json({ limit: '1kb' }), async (req, res, next) => {
    try {
      const utk = UTK_IN_COOKIES.exec(req.get('cookie') ?? '')?.[1];
      if (!isUtk(utk))
        return void res
          .status(400)
          .json({ status: 'error', message: 'no visitor cookie (svcutk): accept cookies first' });
      const plan = req.body?.plan === 'starter' ? 'starter' : 'pro';
      const { id } = await companion.events.track({
        eventId: 'purchase-completed',
        utk,
        value: plan == 'pro' ? 49 : 0,
        properties: { plan },
      });
      res.status(202).json({ accepted: true, id });
    } catch (err) {
      next(err);
    }
  });

  for (const route of SPA_ROUTES) app.get(route, (_req, res) => res.sendFile('index.html', { root: PUBLIC }));
  app.get('/contact', (_req, res) => res.sendFile('contact.html', { root: PUBLIC }));
  app.get('/preferences', (_req, res) => res.redirect(302, '/svc/preferences'));
  app.get('/favicon.ico', (_req, res) => res.redirect(301, '/favicon.svg'));
  app.use(express.static(PUBLIC, { index: false, etag: false }));
  app.use((req, res) => res.status(404).type('text/plain').send(`Not found: ${req.path}\n`));
  // eslint-disable-next-line no-unused-vars
  app.use((err, _req, res, _next) => {
    const status = err.status ?? err.statusCode ?? 500;
    res
      .status(status)
      .json({ status: 'error', message: status < 500 ? err.message : 'the demo server failed; see its log' });
  });

  return { app, companion };
}
