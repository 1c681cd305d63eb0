// bench/platform.mjs's servers: the platform CLI in child processes, the platform in this process
// (--in-process), and the in-memory echo collector.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createPlatform } from '../../packages/platform/dist/index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'packages/platform/bin/svc-platform.js');
const PEER = join(ROOT, 'bench/echo-collector.mjs');
export const RATE_LIMIT = 1_000_000_000; // per 10 s: the limiter still runs, it just never answers 429

/** The rate-limit flags for `cli`: the API's, the public routes' and the collector's budgets so
 * high that the load (from one address) never meets them, while their limiters still run and
 * count. A build from before --collector-rate-limit (another checkout's, bench/ab.mjs) is not
 * given it: it would refuse the unknown flag. */
function rateLimitArgs(cli) {
  const help = spawnSync(process.execPath, [cli, '--help'], { encoding: 'utf8' }).stdout ?? '';
  const collector = help.includes('--collector-rate-limit') ? ['--collector-rate-limit', String(RATE_LIMIT)] : [];
  return ['--rate-limit', String(RATE_LIMIT), '--public-rate-limit', String(RATE_LIMIT), ...collector];
}

/** Every child started and not yet stopped, so that a failed or interrupted run stops them all. */
const children = new Set();

/** Calls `wait(re)` → first line of `stream` matching `re` (match and time); rejects if the child exits first. */
function lineWatcher(child, stream) {
  const waiters = new Set();
  let stderr = '';
  child.stderr.on(
    'data',
    (d) => ((stderr = (stderr + d).slice(-4000)), process.env.SHOW_STDERR && process.stderr.write(d)),
  );
  createInterface({ input: stream }).on('line', (line) => {
    for (const w of waiters) {
      const m = line.match(w.re);
      if (m) (waiters.delete(w), w.resolve({ m, at: performance.now() }));
    }
  });
  child.on('exit', (code) => waiters.forEach((w) => w.reject(new Error(`server exited with ${code}:\n${stderr}`))));
  return (re) => new Promise((resolve, reject) => waiters.add({ re, resolve, reject }));
}

function track(child) {
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

/** SIGTERM, then SIGKILL if the child has not exited 10 s later. */
function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => (clearTimeout(kill), resolve()));
    child.kill('SIGTERM');
  });
}

/** Stops every child still running (a failed or interrupted run). */
export const stopAllChildren = () => Promise.all([...children].map(stopChild));

/** The built CLI on `data` (`{ args }`: `--data FILE`; `{ env }`: `DATABASE_URL`, which unlike an
 * argument keeps a password out of the process list), in `dir` (its
 * credentials file and, on PostgreSQL, its uploads' .data/files). With `seedContacts` it seeds the
 * demo portal and that many contacts before listening (`seedSeconds`: the contacts' part); without,
 * it serves a database another CLI seeded. With `profile` the seeding run is stopped and the CLI
 * started again on the same data with the profiler on, so that the profile shows the measurements only.
 * `cli`: another checkout's built CLI (bench/ab.mjs). */
export async function startCli({ dir, data, seedContacts, profile, cli: path = CLI }) {
  const args = [...(data.args ?? []), '--credentials', join(dir, 'credentials.json'), ...rateLimitArgs(path)];
  const spawnCli = (flags, more) => {
    const child = track(
      spawn(process.execPath, [...flags, path, ...args, '--port', '0', '--forms-port', '0', ...more], {
        cwd: dir,
        env: { ...process.env, ...data.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    const wait = lineWatcher(child, child.stdout);
    const seeded = wait(/^Seeded demo portal/);
    seeded.catch(() => {}); // awaited only when seeding; a child that exits rejects `ready` too
    return { child, seeded, ready: wait(/base_url (\S+)\s+forms_url (\S+)/) };
  };
  let cli = spawnCli([], seedContacts ? ['--seed-contacts', String(seedContacts)] : []);
  let seedSeconds;
  if (seedContacts) {
    const start = (await cli.seeded).at; // the contacts are seeded after the demo portal, before listening
    seedSeconds = ((await cli.ready).at - start) / 1000;
  }
  let { m } = await cli.ready;
  if (profile) {
    await stopChild(cli.child);
    cli = spawnCli(['--cpu-prof', '--cpu-prof-dir', profile], []);
    ({ m } = await cli.ready);
  }
  const { child } = cli;
  return { baseUrl: m[1], formsUrl: m[2], seedSeconds, pid: child.pid, stop: () => stopChild(child) };
}

/** The same database served from this process instead (only for --in-process). */
export async function serveInProcess(database, filesDir) {
  const platform = createPlatform({
    database,
    filesDir,
    logger: false,
    rateLimit: { max: RATE_LIMIT, windowMs: 10_000 },
    publicRateLimit: { max: RATE_LIMIT, windowMs: 60_000 },
    collectorRateLimit: { max: RATE_LIMIT, windowMs: 60_000 },
  });
  const { baseUrl, formsUrl } = await platform.listen({ basePort: 0, formsPort: 0 });
  return { baseUrl, formsUrl, stop: () => platform.close() };
}

/** The in-memory echo collector (bench/echo-collector.mjs), also in a child process. */
export async function startPeer() {
  const child = track(spawn(process.execPath, [PEER], { stdio: ['ignore', 'ignore', 'pipe'] }));
  const { m } = await lineWatcher(child, child.stderr)(/^listening (\d+)/);
  return { baseUrl: `http://127.0.0.1:${m[1]}`, pid: child.pid, stop: () => stopChild(child) };
}
