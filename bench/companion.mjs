// Companion benchmark, printed as a markdown table. It is a benchmark, not a test: it reports a
// missed target, it never fails on one.
//
//   npm run bench:companion                          10 rounds of 2 s per server
//   npm run bench:companion -- --seconds 1 --rounds 3   a quick run
//
// 1. Cached GET /visitor throughput: the companion (helmet, CORS, rate limit, cookie parsing, the
//    per-utk cache) against a bare Express route answering the same JSON, each server in a child
//    process of its own, driven by autocannon from this process, alternating round by round
//    (median of the rounds' ratios). Target: the companion ≥ 0.8× the bare route.
// 2. Uncached lookup overhead: the same visitor lookups, one at a time, through the companion with
//    its cache off (an HTTP hop to the companion, then the client's call to the platform) against
//    a direct client call from this process, alternating call by call. Target: p50 overhead ≤ 1 ms.
//
// The platform is the built CLI in a child process, in memory, its rate limit out of reach.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { linkVisitorTokens } from './lib/visitors.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SELF = fileURLToPath(import.meta.url);
const CLI = join(ROOT, 'packages/platform/bin/svc-platform.js');
const PORTAL = 62515;

const { values: opts } = parseArgs({
  options: {
    serve: { type: 'string' }, // internal: run one of the servers (companion | companion-nocache | bare)
    seconds: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
    lookups: { type: 'string', default: '1000' }, // uncached lookups of each kind
  },
});

// ---------------------------------------------------------------------------------------------

function say(message) {
  process.stderr.write(`${message}\n`);
}
const fmt = (n, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function child(args, env, pattern) {
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let stderr = '';
  proc.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  const ready = new Promise((resolve, reject) => {
    createInterface({ input: proc.stdout }).on('line', (line) => {
      const m = line.match(pattern);
      if (m) resolve(m);
    });
    proc.on('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}:\n${stderr}`)));
  });
  const stop = () => (proc.exitCode !== null ? Promise.resolve() : new Promise((resolve) => (proc.once('exit', resolve), proc.kill('SIGTERM'))));
  return { ready, stop };
}

async function startServer(mode, env) {
  const c = child([SELF, '--serve', mode], env, /^listening (\d+)/);
  const [, port] = await c.ready;
  return { url: `http://127.0.0.1:${port}/svc/visitor`, stop: c.stop };
}

async function cannon(url, headers, seconds) {
  const { default: autocannon } = await import('autocannon');
  const result = await autocannon({ url, headers, connections: Number(opts.connections), duration: seconds });
  const failed = result.non2xx + result.errors + result.timeouts;
  return { rps: result.requests.average, failed };
}

async function main() {
  const dir = mkdtempSync(join(os.tmpdir(), 'svc-bench-companion-'));
  const credentials = join(dir, 'credentials.json');
  const started = performance.now();
  say('starting the platform…');
  const platform = child([CLI, '--memory', '--credentials', credentials, '--rate-limit', '1000000000', '--port', '0', '--forms-port', '0', '--seed-contacts', '1000'], {}, /base_url (\S+)\s+forms_url (\S+)/);
  const [, baseUrl, formsUrl] = await platform.ready;
  const servers = [];
  try {
    const creds = JSON.parse(readFileSync(credentials, 'utf8'));
    const { createClient } = await import('@svc/client');
    const client = createClient({ baseUrl, formsUrl, auth: { accessToken: creds.privateAppToken }, rateLimit: { max: Infinity }, concurrency: 20 });

    // Visitors linked to contacts the way a website links them: form submissions with svcutk.
    say('linking visitor tokens…');
    const utks = await linkVisitorTokens(client, PORTAL, Number(opts.lookups) * 2 + 201);
    const hot = utks[0];
    const env = { BASE_URL: baseUrl, CREDENTIALS: credentials, DIR: dir };

    // 1. Cached throughput.
    const companion = await startServer('companion', env);
    servers.push(companion);
    const answer = await (await fetch(companion.url, { headers: { cookie: `svcutk=${hot}` } })).json();
    if (!answer.known) throw new Error(`the hot visitor is not known: ${JSON.stringify(answer)}`);
    const bare = await startServer('bare', { ANSWER: JSON.stringify(answer) });
    servers.push(bare);
    const headers = { cookie: `svcutk=${hot}` };
    const seconds = Number(opts.seconds);
    const rounds = { companion: [], bare: [] };
    let failed = 0;
    say('warming up…');
    await cannon(companion.url, headers, 1);
    await cannon(bare.url, headers, 1);
    // The machine is shared and noisy: each round measures both back to back (alternating which
    // goes first), and the ratio reported is the median of the rounds' ratios.
    const ratios = [];
    for (let r = 0; r < Number(opts.rounds); r++) {
      const order = r % 2 ? [['bare', bare], ['companion', companion]] : [['companion', companion], ['bare', bare]];
      for (const [name, s] of order) {
        say(`round ${r + 1}: ${name}…`);
        const res = await cannon(s.url, headers, seconds);
        rounds[name].push(res.rps);
        failed += res.failed;
      }
      ratios.push(rounds.companion[r] / rounds.bare[r]);
    }
    const cRps = median(rounds.companion);
    const bRps = median(rounds.bare);

    // 2. Uncached lookup overhead, one call at a time.
    const nocache = await startServer('companion-nocache', env);
    servers.push(nocache);
    const property = ['firstname', 'lastname', 'company', 'email'];
    const direct = (utk) => client.contacts.getByUtk(utk, { property, propertyMode: 'value_only' });
    // undici's request (what the client uses too), not fetch, whose own overhead would count against the companion.
    const { request } = await import('undici');
    const viaCompanion = async (utk) => {
      const res = await request(nocache.url, { headers: { cookie: `svcutk=${utk}` } });
      const body = await res.body.json();
      if (!body.known) throw new Error('lookup through the companion did not find the visitor');
    };
    // Direct and through-the-companion lookups alternate call by call (distinct visitors each), so
    // the machine's load drifts over both alike.
    const cold = utks.slice(1);
    say('uncached lookups…');
    for (let i = 0; i < 100; i++) await Promise.all([direct(cold[i]), viaCompanion(cold[i + 100])]); // warm-up
    const directTimes = [];
    const companionTimes = [];
    for (let i = 200; i + 1 < cold.length; i += 2) {
      let t0 = performance.now();
      await direct(cold[i]);
      directTimes.push(performance.now() - t0);
      t0 = performance.now();
      await viaCompanion(cold[i + 1]);
      companionTimes.push(performance.now() - t0);
    }
    const directP50 = [median(directTimes)];
    const companionP50 = [median(companionTimes)];
    const dP50 = median(directP50);
    const cP50 = median(companionP50);
    const overhead = cP50 - dP50;
    const ratio = median(ratios);

    const rows = [
      ['measurement', 'result', 'target', 'ok?'],
      ['---', '---', '---', '---'],
      [`cached GET /visitor, companion (helmet, CORS, rate limit, cache), ${opts.connections} connections`, `${fmt(cRps)} req/s`, '—', '—'],
      [`peer: bare Express route answering the same JSON, ${opts.connections} connections`, `${fmt(bRps)} req/s`, '—', '—'],
      ['companion / bare (median of the rounds\' ratios)', `${fmt(ratio, 2)}× (rounds: ${ratios.map((x) => fmt(x, 2)).join(', ')})`, '≥ 0.80×', ratio >= 0.8 ? 'yes' : `no: ${fmt((0.8 - ratio) * 100, 0)} points short`],
      ['uncached lookup, direct client call (p50, one at a time)', `${fmt(dP50, 2)} ms`, '—', '—'],
      ['uncached lookup through GET /visitor, cache off (p50, one at a time)', `${fmt(cP50, 2)} ms`, '—', '—'],
      ['overhead of the companion (p50 difference)', `${fmt(overhead, 2)} ms`, '≤ 1 ms', overhead <= 1 ? 'yes' : `no: ${fmt(overhead - 1, 2)} ms over`],
    ];
    console.log(rows.map((r) => `| ${r.join(' | ')} |`).join('\n'));
    console.log(
      `\nNode ${process.version} · ${os.cpus().length} × ${os.cpus()[0]?.model.trim()} · ${os.platform()} ${os.arch()} · ${seconds} s per round, ${opts.rounds} rounds (median) · ` +
        `servers in child processes, autocannon in the benchmark process · ${fmt(failed)} failed requests · whole run ${fmt((performance.now() - started) / 1000, 0)} s`,
    );
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await platform.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Child mode: one server on a random port, printing `listening <port>`.

async function serve() {
  const { default: express } = await import('express');
  const app = express();
  const mode = opts.serve;
  if (mode == 'bare') {
    const answer = JSON.parse(process.env.ANSWER);
    app.get('/svc/visitor', (_req, res) => void res.json(answer));
  } else {
    const { createCompanion } = await import('@svc/companion');
    const creds = JSON.parse(readFileSync(process.env.CREDENTIALS, 'utf8'));
    const companion = createCompanion({
      baseUrl: process.env.BASE_URL,
      auth: { accessToken: creds.privateAppToken },
      logger: false,
      // The limiter stays in the chain, with a limit the benchmark never reaches.
      rateLimit: { limit: 1e9, windowMs: 60_000 },
      visitor: { cacheTtlMs: mode == 'companion' ? 3_600_000 : 0 },
      client: { rateLimit: { max: Infinity }, concurrency: 50 },
      events: { outboxFile: join(process.env.DIR, `outbox-${mode}.jsonl`), handleSigterm: false },
    });
    app.use('/svc', companion);
  }
  const server = app.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
  process.on('SIGTERM', () => process.exit(0));
}

if (opts.serve) await serve();
else await main();
