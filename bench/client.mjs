// Client benchmark: our @svc/client next to the legacy `hubspot@2` client, both looking up contacts
// by visitor token (GET /contacts/v1/contact/utk/:utk/profile) on the same local platform, in the
// same run, printed as a markdown table. It is a benchmark, not a test: it reports a missed
// target, it never fails on one.
//
//   npm run bench:client                                  10,000 lookups at concurrency 50, 3 rounds
//   npm run bench:client -- --lookups 2000 --rounds 1     a quick run
//
// Fairness: the platform runs in a child process (the built CLI, in memory, its rate limit out of
// reach) so the load generator does not share its event loop; pacing is off on both clients for
// the main measurement, so the figures measure the clients themselves; the clients alternate
// round by round and each reports its median round. The same lookups then run against a static
// server, which shows how much of the first figure is the platform's own cost. A last, shorter
// measurement runs both clients with their default settings (their pacing on). The peer is installed on demand into the git-ignored
// .bench-peers/client/ folder, never into the workspace's dependencies.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { linkVisitorTokens } from './lib/visitors.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'packages/platform/bin/svc-platform.js');
const CLIENT_ESM = join(ROOT, 'packages/client/dist/index.js');
const CLIENT_CJS = join(ROOT, 'packages/client/dist/index.cjs');
const PEERS_DIR = join(ROOT, '.bench-peers', 'client');
const PEER = { pkg: 'hubspot', version: '2.3.14' };
const PORTAL = 62515; // the demo portal the CLI seeds

const { values: opts } = parseArgs({
  options: {
    lookups: { type: 'string', default: '10000' },
    concurrency: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '3' },
    'default-lookups': { type: 'string', default: '200' },
    contacts: { type: 'string', default: '20000' },
    utks: { type: 'string', default: '2000' },
  },
});
const LOOKUPS = Number(opts.lookups);
const CONCURRENCY = Number(opts.concurrency);
const ROUNDS = Number(opts.rounds);
const DEFAULT_LOOKUPS = Number(opts['default-lookups']);
const say = (message) => process.stderr.write(`${message}\n`);
const fmt = (n, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// ---------------------------------------------------------------------------------------------
// Setup: the peer, the platform, visitor tokens linked to contacts

function ensurePeerInstalled() {
  const manifest = join(PEERS_DIR, 'node_modules', PEER.pkg, 'package.json');
  if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).version == PEER.version) return;
  // A folder of its own with its own package.json: npm treats it as the project (not the
  // workspace root), and the size benchmark's installs in .bench-peers/ never prune it.
  mkdirSync(PEERS_DIR, { recursive: true });
  if (!existsSync(join(PEERS_DIR, 'package.json')))
    writeFileSync(join(PEERS_DIR, 'package.json'), '{"private":true}\n');
  say(`installing ${PEER.pkg}@${PEER.version} into ${PEERS_DIR}…`);
  // npm's output goes to stderr so stdout stays just the table.
  execFileSync(
    'npm',
    [
      'install',
      '--prefix',
      PEERS_DIR,
      '--no-save',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      `${PEER.pkg}@${PEER.version}`,
    ],
    {
      cwd: ROOT,
      stdio: ['ignore', 2, 2],
    },
  );
}

/** The built CLI, in memory, with N synthetic contacts; resolves once it listens. */
async function startPlatform(dir) {
  const args = [
    '--memory',
    '--credentials',
    join(dir, 'credentials.json'),
    '--rate-limit',
    '1000000000',
    '--public-rate-limit',
    '0',
    '--port',
    '0',
    '--forms-port',
    '0',
    '--seed-contacts',
    opts.contacts,
  ];
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  const ready = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = line.match(/base_url (\S+)\s+forms_url (\S+)/);
      if (m) resolve({ baseUrl: m[1], formsUrl: m[2] });
    });
    child.on('exit', (code) => reject(new Error(`platform exited with ${code}:\n${stderr}`)));
  });
  const stop = () =>
    child.exitCode !== null
      ? Promise.resolve()
      : new Promise((resolve) => (child.once('exit', resolve), child.kill('SIGTERM')));
  return { ...ready, stop };
}

/** A server that answers every request with the same body, in a child process: what the clients
 * manage when the server costs next to nothing. */
async function startStaticServer(body) {
  const code = `const body = ${JSON.stringify(JSON.stringify(body))};
    require('node:http').createServer((req, res) => { req.resume(); res.writeHead(200, { 'content-type': 'application/json' }).end(body); })
      .listen(0, '127.0.0.1', function () { console.log('listening ' + this.address().port); });`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((resolve) =>
    createInterface({ input: child.stdout }).on('line', (l) => l.startsWith('listening') && resolve(l.split(' ')[1])),
  );
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    stop: () => new Promise((resolve) => (child.once('exit', resolve), child.kill('SIGTERM'))),
  };
}

// ---------------------------------------------------------------------------------------------
// Measuring

/** `count` lookups by `concurrency` workers; per-call latency and the whole run's throughput. */
async function measure(lookup, utks, count, concurrency) {
  const times = new Float64Array(count);
  let next = 0;
  let failed = 0;
  let firstError;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < count; i = next++) {
        const t0 = performance.now();
        try {
          const contact = await lookup(utks[i % utks.length]);
          if (!(contact?.vid > 0)) throw new Error(`unexpected answer ${JSON.stringify(contact).slice(0, 200)}`);
        } catch (err) {
          failed++;
          firstError ??= err;
        }
        times[i] = performance.now() - t0;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  times.sort();
  const at = (q) => times[Math.min(count - 1, Math.floor(q * count))];
  if (firstError) say(`  ${failed} failed, first: ${firstError.message}`);
  return { count, seconds, rps: count / seconds, p50: at(0.5), p99: at(0.99), failed };
}

/** Cold start of a module in a fresh Node, median of `runs`: `import()` for ESM, `require` for CJS. */
function coldImport(specifier, kind, runs = 11) {
  const code =
    kind == 'esm'
      ? `const t = process.hrtime.bigint(); await import(${JSON.stringify(specifier)}); console.log(Number(process.hrtime.bigint() - t) / 1e6);`
      : `const t = process.hrtime.bigint(); require(${JSON.stringify(specifier)}); console.log(Number(process.hrtime.bigint() - t) / 1e6);`;
  const args = kind == 'esm' ? ['--input-type=module', '-e', code] : ['-e', code];
  return median(Array.from({ length: runs }, () => Number(execFileSync(process.execPath, args, { encoding: 'utf8' }))));
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const started = performance.now();
  ensurePeerInstalled();
  const { createClient } = await import(pathToFileURL(CLIENT_ESM).href);
  const Hubspot = createRequire(join(PEERS_DIR, 'package.json'))(PEER.pkg);

  const dir = mkdtempSync(join(os.tmpdir(), 'svc-bench-client-'));
  let platform;
  try {
    say(`starting the platform with ${fmt(Number(opts.contacts))} contacts…`);
    platform = await startPlatform(dir);
    const { privateAppToken: token } = JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8'));
    say(`linking ${fmt(Number(opts.utks))} visitor tokens through form submissions…`);
    const linker = createClient({
      baseUrl: platform.baseUrl,
      formsUrl: platform.formsUrl,
      auth: { accessToken: token },
      rateLimit: { max: Infinity },
      concurrency: 20,
    });
    const utks = await linkVisitorTokens(linker, PORTAL, Number(opts.utks));

    // Pacing off on both: no token bucket and no concurrency cap beyond the load's own 50.
    const ours = createClient({
      baseUrl: platform.baseUrl,
      auth: { accessToken: token },
      rateLimit: { max: Infinity },
      concurrency: Infinity,
    });
    const legacy = new Hubspot({
      accessToken: token,
      baseUrl: platform.baseUrl,
      limiter: { maxConcurrent: null, minTime: 0 },
    });
    const clients = [
      { name: '@svc/client', lookup: (utk) => ours.contacts.getByUtk(utk), rounds: [] },
      { name: `${PEER.pkg}@${PEER.version}`, lookup: (utk) => legacy.contacts.getByToken(utk), rounds: [] },
    ];
    for (const c of clients) {
      say(`warming up ${c.name}…`);
      await measure(c.lookup, utks, 1000, CONCURRENCY);
    }
    for (let round = 1; round <= ROUNDS; round++)
      for (const c of round % 2 ? clients : [...clients].reverse()) {
        say(`round ${round}: ${c.name}, ${fmt(LOOKUPS)} lookups at concurrency ${CONCURRENCY}…`);
        c.rounds.push(await measure(c.lookup, utks, LOOKUPS, CONCURRENCY));
      }
    const best = clients.map((c) => c.rounds.toSorted((a, b) => a.rps - b.rps)[Math.floor(c.rounds.length / 2)]);
    const ratio = best[0].rps / best[1].rps;

    // Defaults: ours paces at 100 per 10 s with 10 in flight; hubspot@2 at ≈9 per s with 2 in flight.
    const defaults = [
      {
        name: '@svc/client',
        settings: '100 per 10 s, 10 in flight',
        client: createClient({ baseUrl: platform.baseUrl, auth: { accessToken: token } }),
        lookup: (c, utk) => c.contacts.getByUtk(utk),
      },
      {
        name: `${PEER.pkg}@${PEER.version}`,
        settings: 'Bottleneck: 2 in flight, 111 ms apart',
        client: new Hubspot({ accessToken: token, baseUrl: platform.baseUrl }),
        lookup: (c, utk) => c.contacts.getByToken(utk),
      },
    ];
    const defaultRows = [];
    for (const d of defaults) {
      say(`defaults: ${d.name}, ${fmt(DEFAULT_LOOKUPS)} lookups at concurrency ${CONCURRENCY}…`);
      defaultRows.push({
        ...d,
        r: await measure((utk) => d.lookup(d.client, utk), utks, DEFAULT_LOOKUPS, CONCURRENCY),
      });
    }
    const sample = await ours.contacts.getByUtk(utks[0]);
    await platform.stop();
    platform = undefined;

    // The same lookups against a server that answers a stored profile at once: the clients' own ceiling.
    say('the same lookups against a static server…');
    const stat = await startStaticServer(sample);
    const ceiling = [];
    try {
      const oursStatic = createClient({
        baseUrl: stat.baseUrl,
        auth: { accessToken: token },
        rateLimit: { max: Infinity },
        concurrency: Infinity,
      });
      const legacyStatic = new Hubspot({
        accessToken: token,
        baseUrl: stat.baseUrl,
        limiter: { maxConcurrent: null, minTime: 0 },
      });
      for (const [name, lookup] of [
        [clients[0].name, (utk) => oursStatic.contacts.getByUtk(utk)],
        [clients[1].name, (utk) => legacyStatic.contacts.getByToken(utk)],
      ]) {
        await measure(lookup, utks, 1000, CONCURRENCY);
        ceiling.push({ name, r: await measure(lookup, utks, LOOKUPS, CONCURRENCY) });
      }
    } finally {
      await stat.stop();
    }

    say('cold imports…');
    const imports = {
      esm: coldImport(pathToFileURL(CLIENT_ESM).href, 'esm'),
      cjs: coldImport(CLIENT_CJS, 'cjs'),
      legacy: coldImport(join(PEERS_DIR, 'node_modules', PEER.pkg), 'cjs'),
    };

    const ms = (x) => `${fmt(x, x < 10 ? 2 : 1)} ms`;
    const row = (cells) => `| ${cells.join(' | ')} |`;
    const lines = [
      '',
      `**Contact lookups by utk**: ${fmt(LOOKUPS)} at concurrency ${CONCURRENCY}, pacing off on the platform and both clients (median of ${ROUNDS} alternating rounds)`,
      '',
      row(['client', 'throughput', 'p50', 'p99', 'failed']),
      row(['---', '---:', '---:', '---:', '---:']),
      ...clients.map((c, i) =>
        row([c.name, `${fmt(best[i].rps)} req/s`, ms(best[i].p50), ms(best[i].p99), fmt(best[i].failed)]),
      ),
      row([
        `**ratio** (target ≥ 3×)`,
        `**${fmt(ratio, 2)}×** ${ratio >= 3 ? '(met)' : `(missed: ${fmt((100 * ratio) / 3)} % of the target)`}`,
        '',
        '',
        '',
      ]),
      '',
      `**The clients' ceiling**: the same ${fmt(LOOKUPS)} lookups against a static server (a child process answering a stored profile at once)`,
      '',
      row(['client', 'throughput', 'p50', 'p99', 'failed']),
      row(['---', '---:', '---:', '---:', '---:']),
      ...ceiling.map(({ name, r }) => row([name, `${fmt(r.rps)} req/s`, ms(r.p50), ms(r.p99), fmt(r.failed)])),
      row(['ratio', `${fmt(ceiling[0].r.rps / ceiling[1].r.rps, 1)}×`, '', '', '']),
      '',
      `**Default settings**: ${fmt(DEFAULT_LOOKUPS)} lookups at concurrency ${CONCURRENCY}, each client's own pacing on`,
      '',
      row(['client', 'default pacing', 'throughput', 'p50', 'p99', 'failed']),
      row(['---', '---', '---:', '---:', '---:', '---:']),
      ...defaultRows.map((d) =>
        row([d.name, d.settings, `${fmt(d.r.rps, 1)} req/s`, ms(d.r.p50), ms(d.r.p99), fmt(d.r.failed)]),
      ),
      '',
      '**Cold import** (fresh `node`, median of 11; target ≤ 150 ms for ours)',
      '',
      row(['module', 'time', 'ok?']),
      row(['---', '---:', '---']),
      row(['@svc/client, ESM `import()`', ms(imports.esm), imports.esm <= 150 ? 'yes' : 'no']),
      row(['@svc/client, CJS `require`', ms(imports.cjs), imports.cjs <= 150 ? 'yes' : 'no']),
      row([`${PEER.pkg}@${PEER.version}, \`require\``, ms(imports.legacy), '—']),
      '',
      `Node ${process.version} · ${os.cpus().length} × ${os.cpus()[0]?.model.trim()} · platform CLI in a child process (in memory, ${fmt(Number(opts.contacts))} seeded contacts + ${fmt(utks.length)} linked visitors) · whole run ${fmt((performance.now() - started) / 1000)} s`,
      '',
    ];
    console.log(lines.join('\n'));
  } finally {
    await platform?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
