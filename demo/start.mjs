// `npm start`: the whole system on one machine. Starts the platform (data in .data/, the demo
// portal seeded on the first start and reused after), then the demo website with the companion
// mounted at /svc, prints the addresses to open, and stops everything cleanly on Ctrl-C. The
// platform's emails (caught, shown by the inspector) link to the companion's preference centre.
//
// Ports: PORT (website, default 3000), PLATFORM_PORT (3200), FORMS_PORT (3201); DATA_DIR (.data).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import {
  createPlatform,
  inspectorKeyIn,
  inspectorUrl,
  keepAppSecret,
  readCredentialsFile,
  saveCredentials,
  seedDemo,
  DEMO_PORTAL,
} from '@svc/platform';
import { createDemoSite } from './server.mjs';
import { thanksWorkflow } from './workflows.mjs';

const DATA = process.env.DATA_DIR || '.data';
const port = (name, fallback) => {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  if (!/^\d{1,5}$/.test(value)) throw new Error(`${name} must be a port number, not "${value}"`);
  return Number(value);
};

/** A taken port, told as what to do about it. */
function inUse(err, variable) {
  if (err.code != 'EADDRINUSE') return err;
  return new Error(
    `port ${err.port} is in use (another npm start?): stop that program, or set ${variable} to a free port, e.g. ${variable}=${err.port + 10} npm start`,
  );
}

const LEADS_WORKFLOW = 'Tell the site about contact-form leads';

/** A workflow that enrols whoever sends the contact form and calls the site's companion with a
 * signed webhook: made once, and again when the site has moved to another address. */
async function leadsWebhook(platform, formGuid, url) {
  const { workflows, engine } = platform.services;
  for (const w of await workflows.list(engine, DEMO_PORTAL)) {
    if (w.name != LEADS_WORKFLOW) continue;
    if (w.actions[0]?.url == url) return;
    await workflows.remove(engine, DEMO_PORTAL, w.id);
  }
  await workflows.create(engine, DEMO_PORTAL, {
    name: LEADS_WORKFLOW,
    type: 'DRIP_DELAY',
    enabled: true,
    allowContactToTriggerMultipleTimes: true,
    segmentCriteria: [[{ operator: 'HAS_FILLED_OUT_FORM', form: formGuid }]],
    actions: [{ type: 'WEBHOOK', url, method: 'POST' }],
  });
}

/** A file of this demo's own secrets (mode 0600), made on the first start and reused. */
function demoSecrets(file) {
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
  const secrets = { linkSecret: randomBytes(32).toString('base64url') };
  writeFileSync(file, JSON.stringify(secrets, null, 2) + '\n', { mode: 0o600 });
  return secrets;
}

async function main() {
  mkdirSync(DATA, { recursive: true });
  const credentialsFile = join(DATA, 'credentials.json');
  // Kept in the credentials file, so the inspector's address stays the same across restarts.
  const inspectorKey = inspectorKeyIn(credentialsFile);
  const { linkSecret } = demoSecrets(join(DATA, 'demo-secrets.json'));

  // The site's address first (PORT may be 0): the platform's emails link to its preference
  // centre. It answers once the site is made, after the platform.
  let siteHandler = (_req, res) => res.writeHead(503, { 'content-type': 'text/plain' }).end('starting\n');
  const site = createServer((req, res) => siteHandler(req, res));
  await new Promise((resolve, reject) => {
    site.once('error', (err) => reject(inUse(err, 'PORT')));
    site.listen(port('PORT', 3000), '127.0.0.1', resolve);
  });
  const siteUrl = `http://127.0.0.1:${site.address().port}`;

  // The emails workflows send (the inspector's mail view) link to the companion's preference
  // centre, signed with the companion's link secret.
  const platform = createPlatform({
    database: join(DATA, 'platform.db'),
    inspectorKey,
    logger: false,
    preferenceLinks: { url: `${siteUrl}/svc/preferences`, secret: linkSecret },
  });
  await platform.ready;
  const seeded = await seedDemo(platform.services);
  if (seeded) saveCredentials(credentialsFile, seeded);
  const credentials = readCredentialsFile(credentialsFile);
  if (!credentials.privateAppToken)
    throw new Error(`${credentialsFile} has no credentials but the database is not new: delete ${DATA}/ to start over`);
  // Data from before webhooks were signed: the OAuth app's secret, which signs them, is kept now.
  if (!seeded && credentials.oauth)
    await keepAppSecret(platform.services.engine, credentials.oauth.clientId, credentials.oauth.clientSecret);

  const basePort = port('PLATFORM_PORT', 3200);
  const formsPort = port('FORMS_PORT', 3201);
  const { baseUrl, formsUrl } = await platform.listen({ basePort, formsPort }).catch((err) => {
    throw inUse(err, err.port == formsPort ? 'FORMS_PORT' : 'PLATFORM_PORT');
  });
  const contactForm = (await platform.services.forms.list(platform.services.engine, DEMO_PORTAL)).find(
    (f) => f.name == 'Contact us',
  );
  if (!contactForm) throw new Error("the demo portal has no 'Contact us' form");

  const { app, companion } = createDemoSite({
    baseUrl,
    formsUrl,
    credentials,
    contactFormId: contactForm.guid,
    dataDir: DATA,
    linkSecret,
    logger: false,
  });
  siteHandler = app;
  await leadsWebhook(platform, contactForm.guid, `${siteUrl}/svc/webhooks`);
  await thanksWorkflow(platform, contactForm.guid);

  // Before the banner: whoever reads it may stop the demo at once.
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    console.log('Stopping: sending waiting server-side events, closing the servers…');
    site.closeIdleConnections();
    await new Promise((resolve) => site.close(resolve));
    await companion.close({ timeoutMs: 5000 });
    await platform.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);

  console.log(
    [
      '',
      `  Demo website      ${siteUrl}/`,
      `  Inspector         ${inspectorUrl(baseUrl, inspectorKey, credentialsFile)}`,
      `  Caught emails     ${inspectorUrl(baseUrl, inspectorKey, credentialsFile).replace('/_inspector/', '/_inspector/mail.html')}`,
      `  Platform API      ${baseUrl}  (forms ${formsUrl}; credentials in ${credentialsFile})`,
      `  Companion         ${siteUrl}/svc/healthz`,
      '',
      '  Send the contact form: its thanks email shows under Caught emails (the platform sends no',
      '  mail), and its "Manage your email preferences" link opens the preference centre.',
      '',
      `  ${seeded ? 'Seeded the demo portal' : 'Reusing the data'} in ${DATA}/. Ctrl+C stops everything.`,
      '',
    ].join('\n'),
  );
}

main().catch((err) => {
  console.error(`npm start failed: ${err.message}`);
  process.exit(1);
});
