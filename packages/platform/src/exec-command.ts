/** `svc-platform exec [flags] -- CMD [ARGS…]`: a twin for one command (a site's test suite in
 * CI). The platform starts on free ports, in memory unless --data or --database, with the admin
 * API on; CMD runs with the twin's SVC_* variables in its environment, its stdio the terminal's,
 * signals passed on to it; once it ends the platform stops, and exec exits with CMD's status. */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { parseArgs } from 'node:util';
import { isPostgresUrl, withoutPassword } from './db/engine-postgres';
import { exportOnExit } from './snapshot-flags';
import { startTwin, type Twin } from './testing';

const HELP = `svc-platform exec [flags] -- CMD [ARGS…]

Starts the platform on free ports with the admin API on, runs CMD with these variables, stops
the platform and exits with CMD's status:
  SVC_BASE_URL SVC_FORMS_URL SVC_PORTAL_ID SVC_TOKEN (private-app token) SVC_API_KEY
  SVC_CLIENT_ID SVC_CLIENT_SECRET SVC_REFRESH_TOKEN SVC_ADMIN_URL SVC_ADMIN_KEY

  --data FILE           keep the data in this SQLite file (default: in memory)
  --database URL        keep the data in PostgreSQL (postgres://…)
  --admin-key KEY       the admin key (default: a new one, given to CMD as SVC_ADMIN_KEY)
  --journal-size N      requests the admin journal keeps (default 1000)
  --token-lifetime S    OAuth access token lifetime in seconds (default 1800)
  --rate-limit N        API requests in any 10 s per portal (default 100)
  --import FILE         start from this snapshot (GET /_admin/snapshot's file); the SVC_*
                        credentials are then new ones of its demo portal (or its first)
  --export-on-exit FILE once CMD has ended, write a snapshot of the whole state to FILE (a
                        temporary file renamed over it once whole); a failed export makes
                        exec's status 1 when CMD's was 0
  --help`;

const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function whole(name: string, value: string) {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a whole number, not "${value}"`);
  return n;
}

/** Before CMD starts and after it ends, with the twin running: where snapshots (--import FILE,
 * --export-on-exit FILE) load and save. */
export interface ExecHooks {
  beforeRun?: (twin: Twin) => Promise<void>;
  afterRun?: (twin: Twin) => Promise<void>;
}

/** Resolves to the exit status exec ends with (CMD's; 128 + n for a signal; 127 when CMD cannot
 * be started). */
export async function execCommand(argv: string[], hooks: ExecHooks = {}): Promise<number> {
  const dashes = argv.indexOf('--');
  const flags = dashes < 0 ? argv : argv.slice(0, dashes);
  const command = dashes < 0 ? [] : argv.slice(dashes + 1);
  const { values } = parseArgs({
    args: flags,
    options: {
      data: { type: 'string' },
      database: { type: 'string' },
      'admin-key': { type: 'string' },
      'journal-size': { type: 'string', default: '1000' },
      'token-lifetime': { type: 'string', default: '1800' },
      'rate-limit': { type: 'string', default: '100' },
      import: { type: 'string' },
      'export-on-exit': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (!command.length) throw new Error('exec needs the command to run after --: svc-platform exec -- npm test');
  if (values.data !== undefined && values.database !== undefined)
    throw new Error('--data and --database name two places for the data: give one');
  if (values.database !== undefined && !isPostgresUrl(values.database))
    throw new Error(`--database takes a PostgreSQL URL (postgres://…), not "${withoutPassword(values.database)}"`);

  const twin = await startTwin({
    database: values.database ?? values.data ?? ':memory:',
    adminKey: values['admin-key'],
    journalSize: whole('journal-size', values['journal-size']),
    tokenLifetimeSeconds: whole('token-lifetime', values['token-lifetime']),
    rateLimit: { max: whole('rate-limit', values['rate-limit']), windowMs: 10_000 },
    importFile: values.import,
  });
  try {
    await hooks.beforeRun?.(twin);
    // On stderr: CMD's stdout stays its own. The key is in CMD's environment only.
    console.error(`svc-platform exec: base_url ${twin.baseUrl}  forms_url ${twin.formsUrl}  admin ${twin.adminUrl}`);
    const status = await run(command, { ...process.env, ...twin.env });
    await hooks.afterRun?.(twin);
    const file = values['export-on-exit'];
    const exported = file === undefined || (await exportOnExit(twin.platform, file, (line) => console.error(line)));
    return exported || status ? status : 1;
  } finally {
    await twin.close();
  }
}

function run([file, ...args]: string[], env: NodeJS.ProcessEnv) {
  return new Promise<number>((resolve) => {
    const child = spawn(file, args, { stdio: 'inherit', env });
    const pass = (signal: NodeJS.Signals) => child.kill(signal);
    for (const s of SIGNALS) process.on(s, pass);
    const done = (status: number) => {
      for (const s of SIGNALS) process.off(s, pass);
      resolve(status);
    };
    child.once('error', (err: NodeJS.ErrnoException) => {
      console.error(`svc-platform exec: cannot run ${file}: ${err.code == 'ENOENT' ? 'not found' : err.message}`);
      done(127);
    });
    child.once('exit', (code, signal) => done(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0)));
  });
}
