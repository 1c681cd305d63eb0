/** `svc-platform`: runs the platform on two ports with data in `.data/platform.db` (or PostgreSQL),
 * seeding a demo portal (and its credentials file) on first start. */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { SingleBar } from 'cli-progress';
import { createPlatform } from './app';
import { isPostgresUrl, withoutPassword } from './db/engine-postgres';
import { execCommand } from './exec-command';
import { migrateCommand } from './migrate-command';
import {
  adminLine,
  inspectorUrl,
  pickAdminKey,
  pickInspectorKey,
  readCredentialsFile,
  saveCredentials,
} from './credentials-file';
import { keepAppSecret } from './store/portals';
import { seedContacts } from './seed-contacts';
import { seedDemo, DEMO_PORTAL } from './seed';
import { exportOnExit, importAtStart } from './snapshot-flags';
import { parseMapping } from './store/prospects';

const HELP = `svc-platform — the svc platform API on SQLite or PostgreSQL

  --port N              {base_url} port (default 3200)
  --forms-port N        {forms_url} port (default 3201)
  --host H              listen address (default 127.0.0.1)
  --public-url URL      the address the public reaches {base_url} at, when not the listen
                        address (behind a proxy): URLs in records (posts, blogs, files) use it
  --database URL        keep the data in PostgreSQL (postgres://user:password@host:5432/db);
                        several svc-platform processes may share one database. Also env
                        DATABASE_URL. Uploaded files' bytes go to .data/files
  --data FILE           keep the data in this SQLite file (default .data/platform.db);
                        uploaded files' bytes go to files/ beside it
  --memory              keep everything in memory, on SQLite (tests, demos)
  --credentials FILE    where the demo portal's credentials and the inspector key go
                        (default .data/credentials.json, mode 0600)
  --seed-contacts N     add N synthetic contacts to the demo portal, with a progress bar
  --token-lifetime S    OAuth access token lifetime in seconds (default 1800)
  --rotate-refresh-tokens   issue a new refresh token on every refresh
  --sync-tracking-commits   PostgreSQL: the collector's writes wait for the database's disk
                        flush too (by default a crash of the database server, not of this
                        process, can lose its last fraction of a second of page views)
  --rate-limit N        API requests in any 10 s per portal (per app and portal for OAuth; default 100)
  --public-rate-limit N requests in any minute per address to each public route (form
                        submission, OAuth refresh, events pixel; default 60, 0 turns it off)
  --collector-rate-limit N  requests in any minute per address to each collector route
                        (/collect/e, a batch counting once, and /collect/p.gif; default 1000,
                        0 turns it off)
  --webhook-retry-hours N   how long a workflow webhook is retried after its first attempt
                        (default 24; 0: one attempt only)
  --preferences-url URL the companion's preference page (https://www.example.com/svc/preferences):
                        the emails workflows send (the inspector's mail view shows them) link
                        to it for the recipient's preferences and unsubscribing. Also env
                        SVC_PREFERENCES_URL. Needs env SVC_PREFERENCES_SECRET, the companion's
                        subscriptions.linkSecret, which signs the links (only from the
                        environment: a flag shows in the process list)
  --prospects FILE      IP → organisation mapping for prospects: a JSON array of
                        {prefix, organization, city?, region?, country?} (default: a small sample)
  --no-inspector        do not serve the inspector page ({base_url}/_inspector/)
  --inspector-key KEY   use this inspector key (at least 16 characters) and keep it
  --rotate-inspector-key    make a new inspector key (the old URL stops working)
  --import FILE         start from this snapshot (GET /_admin/snapshot's file): it replaces
                        whatever the data holds, before serving; no demo portal is seeded
  --export-on-exit FILE when stopped (Ctrl+C, SIGTERM), write a snapshot of the whole state to
                        FILE (a temporary file renamed over it once whole)
  --admin               serve the admin API ({base_url}/_admin/: portals, faults, journal,
                        outbox) with the credentials file's adminKey, or a new one kept there
  --admin-key KEY       serve the admin API with this key (at least 16 characters); an
                        adminKey in the credentials file turns the admin API on as well
  --journal-size N      requests the admin API's journal keeps, the newest (default 1000)
  --help

  svc-platform migrate --from FILE --to postgres://…   copies a SQLite database into PostgreSQL
                        (svc-platform migrate --help)
  svc-platform exec [flags] -- CMD [ARGS…]   runs CMD against a twin: the platform on free
                        ports, in memory, admin API on, SVC_* variables in CMD's environment;
                        exits with CMD's status (svc-platform exec --help)

Where the data is kept, the first that is given: --database, then --memory or --data, then
env DATABASE_URL, then .data/platform.db. --database with --data or --memory is refused.

The inspector's key is made on the first start and kept in the credentials file. Its URL (the
key in the #fragment, which browsers do not send) is printed only to a terminal: whoever has it
sees every portal's data, so share it as you would the data.`;

/** Where the data is kept, the first that is given: --database, --memory or --data, DATABASE_URL,
 * `.data/platform.db`. */
function databaseOf(values: { database?: string; data?: string; memory: boolean }, databaseUrl: string | undefined) {
  if (values.database !== undefined) {
    if (values.memory || values.data !== undefined)
      throw new Error('--database and --data/--memory name two places for the data: give one');
    if (!isPostgresUrl(values.database))
      throw new Error(
        `--database takes a PostgreSQL URL (postgres://…), not "${withoutPassword(values.database)}"; a SQLite file is --data FILE`,
      );
    return values.database;
  }
  if (values.memory) return ':memory:';
  if (values.data !== undefined) return values.data;
  if (databaseUrl) {
    if (!isPostgresUrl(databaseUrl))
      throw new Error(`DATABASE_URL must be a PostgreSQL URL (postgres://…), not "${withoutPassword(databaseUrl)}"`);
    return databaseUrl;
  }
  return '.data/platform.db';
}

/** The emails' preference links: the page from --preferences-url or env, the secret from env
 * only; both or neither. No message names the secret. */
function preferenceLinksOf(flag: string | undefined, env: NodeJS.ProcessEnv) {
  const url = flag ?? (env.SVC_PREFERENCES_URL || undefined);
  const secret = env.SVC_PREFERENCES_SECRET || undefined;
  if (url === undefined && secret === undefined) return undefined;
  if (url === undefined)
    throw new Error(
      'SVC_PREFERENCES_SECRET is set but not the preference page: give --preferences-url URL (or env SVC_PREFERENCES_URL) too',
    );
  if (secret === undefined)
    throw new Error(
      "--preferences-url (SVC_PREFERENCES_URL) needs env SVC_PREFERENCES_SECRET too: the companion's subscriptions.linkSecret, which signs the links",
    );
  return { url, secret };
}

/** A taken port, told as what to do about it (Node's own message names no flag). */
function inUse(err: NodeJS.ErrnoException & { port?: number }, flag: string) {
  if (err.code != 'EADDRINUSE') return err;
  return new Error(
    `port ${err.port} is in use (another svc-platform or npm start?): stop that program, or pick a free port with ${flag} N`,
  );
}

/** Where the data is, for messages (without a password). */
const shown = (database: string) =>
  isPostgresUrl(database)
    ? `PostgreSQL ${withoutPassword(database)}`
    : database == ':memory:'
      ? 'in memory'
      : `SQLite ${database}`;

export async function main(argv: string[]) {
  if (argv[0] == 'migrate') return migrateCommand(argv.slice(1));
  if (argv[0] == 'exec') process.exit(await execCommand(argv.slice(1)));
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string', default: '3200' },
      'forms-port': { type: 'string', default: '3201' },
      host: { type: 'string', default: '127.0.0.1' },
      'public-url': { type: 'string' },
      database: { type: 'string' },
      data: { type: 'string' },
      memory: { type: 'boolean', default: false },
      credentials: { type: 'string', default: '.data/credentials.json' },
      'seed-contacts': { type: 'string' },
      'no-inspector': { type: 'boolean', default: false },
      'inspector-key': { type: 'string' },
      'rotate-inspector-key': { type: 'boolean', default: false },
      admin: { type: 'boolean', default: false },
      'admin-key': { type: 'string' },
      'journal-size': { type: 'string', default: '1000' },
      'token-lifetime': { type: 'string', default: '1800' },
      'rotate-refresh-tokens': { type: 'boolean', default: false },
      'sync-tracking-commits': { type: 'boolean', default: false },
      'rate-limit': { type: 'string', default: '100' },
      'public-rate-limit': { type: 'string', default: '60' },
      'collector-rate-limit': { type: 'string', default: '1000' },
      'webhook-retry-hours': { type: 'string', default: '24' },
      prospects: { type: 'string' },
      'preferences-url': { type: 'string' },
      import: { type: 'string' },
      'export-on-exit': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return console.log(HELP);
  const number = (name: string, value: string) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a whole number, not "${value}"`);
    return n;
  };

  // Every flag is checked, and the platform made and its data opened, before anything is written
  // (the inspector key to the credentials file).
  const database = databaseOf(values, process.env.DATABASE_URL);
  const preferenceLinks = preferenceLinksOf(values['preferences-url'], process.env);
  const basePort = number('port', values.port);
  const formsPort = number('forms-port', values['forms-port']);
  const publicRateLimit = number('public-rate-limit', values['public-rate-limit']);
  const collectorRateLimit = number('collector-rate-limit', values['collector-rate-limit']);
  const options = {
    database,
    tokenLifetimeSeconds: number('token-lifetime', values['token-lifetime']),
    rotateRefreshTokens: values['rotate-refresh-tokens'],
    syncTrackingCommits: values['sync-tracking-commits'],
    rateLimit: { max: number('rate-limit', values['rate-limit']), windowMs: 10_000 },
    publicRateLimit: publicRateLimit ? { max: publicRateLimit, windowMs: 60_000 } : (false as const),
    collectorRateLimit: collectorRateLimit ? { max: collectorRateLimit, windowMs: 60_000 } : (false as const),
    webhooks: { retryForMs: number('webhook-retry-hours', values['webhook-retry-hours']) * 3_600_000 },
    publicUrl: values['public-url'],
    prospects: values.prospects === undefined ? undefined : parseMapping(readFileSync(values.prospects, 'utf8')),
    preferenceLinks,
  };
  const seedCount = values['seed-contacts'] ? number('seed-contacts', values['seed-contacts']) : 0;
  const picked = values['no-inspector']
    ? undefined
    : pickInspectorKey(values.credentials, { set: values['inspector-key'], rotate: values['rotate-inspector-key'] });
  const inspectorKey = picked?.key;
  const admin = pickAdminKey(values.credentials, { set: values['admin-key'], admin: values.admin });
  const platform = createPlatform({
    ...options,
    inspectorKey,
    adminKey: admin.key,
    journalSize: number('journal-size', values['journal-size']),
  });
  await platform.ready.catch((err: Error) => {
    throw new Error(`cannot open the data (${shown(database)}): ${err.message}`);
  });
  picked?.save();
  admin.save();
  if (values.import !== undefined) {
    const loaded = await importAtStart(platform, values.import);
    console.log(
      `Loaded snapshot ${values.import}: ${loaded.rows} rows of ${loaded.tables} tables, ${loaded.files} files.`,
    );
  }
  // A snapshot is the whole state: the demo portal is seeded only without one.
  const credentials = values.import === undefined ? await seedDemo(platform.services) : undefined;
  if (credentials) {
    saveCredentials(values.credentials, credentials);
    console.log(
      `Seeded demo portal ${DEMO_PORTAL}; its credentials are in ${values.credentials} (keep that file private).`,
    );
    // Shown once, on an interactive terminal only: never into a log file or CI output.
    if (process.stdout.isTTY) console.log(JSON.stringify(credentials, null, 2));
  } else {
    // A database from before schema 15 holds the demo app's secret as a hash only; the file has
    // the secret, which signs workflow webhooks.
    const { oauth } = readCredentialsFile(values.credentials) as {
      oauth?: { clientId?: unknown; clientSecret?: unknown };
    };
    if (typeof oauth?.clientId == 'string' && typeof oauth.clientSecret == 'string')
      await keepAppSecret(platform.services.engine, oauth.clientId, oauth.clientSecret);
  }
  if (seedCount) {
    const bar = new SingleBar({ format: 'Seeding contacts [{bar}] {value}/{total} ({percentage}%) {eta}s left' });
    bar.start(seedCount, 0);
    await seedContacts(platform.services, DEMO_PORTAL, seedCount, (done) => bar.update(done));
    bar.stop();
  }
  const { baseUrl, formsUrl } = await platform
    .listen({ basePort, formsPort, host: values.host })
    .catch((err: NodeJS.ErrnoException & { port?: number }) => {
      throw inUse(err, err.port == formsPort ? '--forms-port' : '--port');
    });
  // Before the first line that says it listens: whoever reads that line may stop it at once.
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    const exported =
      values['export-on-exit'] === undefined || (await exportOnExit(platform, values['export-on-exit'], console.log));
    await platform.close();
    process.exit(exported ? 0 : 1);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  console.log(
    `svc platform: base_url ${baseUrl}  forms_url ${formsUrl}  collector ${baseUrl}/collect  (Ctrl+C to stop)`,
  );
  console.log(`data: ${shown(database)}`);
  if (values['public-url']) console.log(`public URL (in records' URLs): ${values['public-url']}`);
  if (inspectorKey) console.log(`inspector: ${inspectorUrl(baseUrl, inspectorKey, values.credentials)}`);
  // The key itself only once, on a terminal: never into a log file or CI output.
  if (admin.key)
    console.log(
      adminLine(baseUrl, { fresh: admin.fresh, value: admin.key }, values.credentials, Boolean(process.stdout.isTTY)),
    );
  console.log(
    preferenceLinks
      ? `emails' preference links: ${preferenceLinks.url}`
      : "emails carry no preference link (set SVC_PREFERENCES_URL and SVC_PREFERENCES_SECRET, the companion's page and link secret)",
  );
}
