// Companion benchmark, printed as a markdown table. It is a benchmark, not a test: it reports a
// missed target, it never fails on one.
//
//   npm run bench:companion                          10 rounds of 2 s per server
//   npm run bench:companion -- --seconds 1 --rounds 3   a quick run
//   npm run bench:companion -- --redis [URL]         also shared mode (default URL: SVC_BENCH_REDIS_URL or redis://127.0.0.1:6379)
//
// 1. Cached GET /visitor throughput: the companion (helmet, CORS, rate limit, cookie parsing, the
//    per-utk cache) against a bare Express route answering the same JSON, each server in a child
//    process of its own, driven by autocannon from this process, alternating round by round
//    (median of the rounds' ratios). Target: the companion ≥ 0.8× the bare route.
// 2. Uncached lookup overhead: the same visitor lookups, one at a time, through the companion with
//    its cache off (an HTTP hop to the companion, then the client's call to the platform) against
//    a direct client call from this process, alternating call by call. Target: p50 overhead ≤ 1 ms.
// 3. With --redis, shared mode (its keys under a prefix of this run's, deleted at the end), in rounds
//    as in 1:
//    a. cached GET /visitor, one shared-mode instance (the visitor cache and the rate limit's
//       counts in Redis) against 1's embedded companion. Target: shared ≥ 0.7× embedded.
//    b. POST /events accepted (202s only) by one shared-mode instance, one event per request and
//       10 per request, the two alternating, with delivery held back (the instance's platform
//       unreachable: a failed delivery waits events.flushIntervalMs, here 1 h). Target: ≥ 5,000
//       events/s. Then one event per request with delivery to the platform running (no target).
//    c. cached GET /visitor through 1 shared-mode instance against 2 side by side (one autocannon
//       per instance, in parallel, summed). No target: on 2 cores the instances, Redis and
//       autocannon share the same CPUs.
//
// The platform is the built CLI in a child process, in memory, its rate limit out of reach.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
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
const EVENTS_SECRET = 'svc-bench-events-secret';

// `--redis` takes an optional URL, which parseArgs cannot express: a bare `--redis` gets the default.
const argv = process.argv.slice(2);
const at = argv.indexOf('--redis');
if (at >= 0 && !(argv[at + 1] ?? '-').match(/^[a-z]+:/))
  argv.splice(at + 1, 0, process.env.SVC_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379');

const { values: opts } = parseArgs({
  args: argv,
  options: {
    serve: { type: 'string' }, // internal: run one of the servers (companion | companion-nocache | companion-shared | bare)
    seconds: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
    lookups: { type: 'string', default: '1000' }, // uncached lookups of each kind
    redis: { type: 'string' }, // also measure shared mode on this Redis
  },
});

// ---------------------------------------------------------------------------------------------

function say(message) {
  process.stderr.write(`${message}\n`);
}
const fmt = (n, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
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
  const stop = () =>
    proc.exitCode !== null
      ? Promise.resolve()
      : new Promise((resolve) => (proc.once('exit', resolve), proc.kill('SIGTERM')));
  return { ready, stop };
}

async function startServer(mode, env) {
  const c = child([SELF, '--serve', mode], env, /^listening (\d+)/);
  const [, port] = await c.ready;
  return { url: `http://127.0.0.1:${port}/svc/visitor`, events: `http://127.0.0.1:${port}/svc/events`, stop: c.stop };
}

/** autocannon against `url`; `request` adds to its options (method, body). `accepted`: the 202s. */
async function cannon(url, headers, seconds, request = {}) {
  const { default: autocannon } = await import('autocannon');
  const result = await autocannon({
    url,
    headers,
    connections: Number(opts.connections),
    duration: seconds,
    ...request,
  });
  const failed = result.non2xx + result.errors + result.timeouts;
  return {
    rps: result.requests.average,
    failed,
    accepted: result.statusCodeStats['202']?.count ?? 0,
    duration: result.duration,
  };
}

let failed = 0;

/** Runs each of `runs` ({ name: () => cannon result }) once per round, back to back. The machine is
 * shared and noisy: the order alternates round by round, and callers report medians and the median
 * of the rounds' ratios (`ratios`), so load drifting between rounds hits both sides alike.
 * → { name: [req/s of each round] } */
async function inRounds(label, runs) {
  const names = Object.keys(runs);
  const rps = Object.fromEntries(names.map((name) => [name, []]));
  for (let r = 0; r < Number(opts.rounds); r++)
    for (const name of r % 2 ? [...names].reverse() : names) {
      const res = await runs[name]();
      say(`${label} round ${r + 1}: ${name} ${fmt(res.rps)}/s`);
      rps[name].push(res.rps);
      failed += res.failed;
    }
  return rps;
}

const ratios = (xs, ys) => xs.map((x, r) => x / ys[r]);

/** A table row for a median of ratios, with its rounds, against `target` (a minimum; none: '—'). */
function ratioRow(label, rs, target) {
  const m = median(rs);
  const result = `${fmt(m, 2)}× (rounds: ${rs.map((x) => fmt(x, 2)).join(', ')})`;
  if (target === undefined) return [label, result, '—', '—'];
  return [
    label,
    result,
    `≥ ${fmt(target, 2)}×`,
    m >= target ? 'yes' : `no: ${fmt((target - m) * 100, 0)} points short`,
  ];
}

async function main() {
  const dir = mkdtempSync(join(os.tmpdir(), 'svc-bench-companion-'));
  const credentials = join(dir, 'credentials.json');
  const started = performance.now();
  // This run's keys: apart from anyone else's on the same Redis, and deleted at the end.
  const redis = opts.redis && { url: opts.redis, prefix: `svc-bench:${randomBytes(4).toString('hex')}:` };
  say('starting the platform…');
  const platform = child(
    [
      CLI,
      '--memory',
      '--credentials',
      credentials,
      '--rate-limit',
      '1000000000',
      '--public-rate-limit',
      '0',
      '--port',
      '0',
      '--forms-port',
      '0',
      '--seed-contacts',
      '1000',
    ],
    {},
    /base_url (\S+)\s+forms_url (\S+)/,
  );
  const [, baseUrl, formsUrl] = await platform.ready;
  const servers = [];
  try {
    const creds = JSON.parse(readFileSync(credentials, 'utf8'));
    const { createClient } = await import('@svc/client');
    const client = createClient({
      baseUrl,
      formsUrl,
      auth: { accessToken: creds.privateAppToken },
      rateLimit: { max: Infinity },
      concurrency: 20,
    });

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
    say('warming up…');
    await cannon(companion.url, headers, 1);
    await cannon(bare.url, headers, 1);
    const rounds = await inRounds('cached', {
      companion: () => cannon(companion.url, headers, seconds),
      bare: () => cannon(bare.url, headers, seconds),
    });
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

    const rows = [
      ['measurement', 'result', 'target', 'ok?'],
      ['---', '---', '---', '---'],
      [
        `cached GET /visitor, companion (helmet, CORS, rate limit, cache), ${opts.connections} connections`,
        `${fmt(cRps)} req/s`,
        '—',
        '—',
      ],
      [
        `peer: bare Express route answering the same JSON, ${opts.connections} connections`,
        `${fmt(bRps)} req/s`,
        '—',
        '—',
      ],
      ratioRow("companion / bare (median of the rounds' ratios)", ratios(rounds.companion, rounds.bare), 0.8),
      ['uncached lookup, direct client call (p50, one at a time)', `${fmt(dP50, 2)} ms`, '—', '—'],
      ['uncached lookup through GET /visitor, cache off (p50, one at a time)', `${fmt(cP50, 2)} ms`, '—', '—'],
      [
        'overhead of the companion (p50 difference)',
        `${fmt(overhead, 2)} ms`,
        '≤ 1 ms',
        overhead <= 1 ? 'yes' : `no: ${fmt(overhead - 1, 2)} ms over`,
      ],
    ];
    if (redis)
      rows.push(
        ...(await sharedRows({
          env: { ...env, REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix },
          embedded: companion,
          hot,
          servers,
        })),
      );
    console.log(rows.map((r) => `| ${r.join(' | ')} |`).join('\n'));
    console.log(
      `\nNode ${process.version} · ${os.cpus().length} × ${os.cpus()[0]?.model.trim()} · ${os.platform()} ${os.arch()} · ${seconds} s per round, ${opts.rounds} rounds (median) · ` +
        `servers in child processes, autocannon in the benchmark process · ${fmt(failed)} failed requests · whole run ${fmt((performance.now() - started) / 1000, 0)} s`,
    );
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await platform.stop();
    if (redis) await deleteKeys(redis);
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// 3. Shared mode (--redis).

/** The rows of 3a–c. `embedded` is 1's companion; the shared-mode servers join `servers`. */
async function sharedRows({ env, embedded, hot, servers }) {
  const seconds = Number(opts.seconds);
  const headers = { cookie: `svcutk=${hot}` };
  const start = async (more = {}) => {
    const s = await startServer('companion-shared', { ...env, ...more });
    servers.push(s);
    return s;
  };
  const visitor =
    (s, secs = seconds) =>
    () =>
      cannon(s.url, headers, secs);
  // Warm-ups of 3 s: the embedded peer has served all of 1, and a new process is slower for its
  // first seconds (the JIT), which would count against shared mode in the first rounds.
  const warmUp = 3;
  say('shared mode…');
  const one = await start();
  const answer = await (await fetch(one.url, { headers })).json();
  if (!answer.known) throw new Error(`the hot visitor is not known in shared mode: ${JSON.stringify(answer)}`);
  await visitor(one, warmUp)();

  // a. Shared against embedded.
  const a = await inRounds('shared vs embedded', { shared: visitor(one), embedded: visitor(embedded) });

  // c. One instance against two on the same Redis, one autocannon each, in parallel.
  const two = await start();
  await visitor(two, warmUp)();
  const both = async () => {
    const [x, y] = await Promise.all([one, two].map((s) => cannon(s.url, headers, seconds)));
    return { rps: x.rps + y.rps, failed: x.failed + y.failed };
  };
  const c = await inRounds('1 vs 2 instances', { one: visitor(one), two: both });
  await two.stop(); // it would deliver b's events too

  // b. Events accepted (202s), last: their delivery goes on after the measurement. Delivery is an
  // HTTP call per event to the platform, which on these 2 cores takes events far slower than the
  // companion accepts them, and both take CPU from acceptance: an instance with delivery held back
  // (in a stream of its own) measures acceptance, and `one` shows it with delivery running.
  const held = await start({ HOLD_DELIVERY: '1', REDIS_PREFIX: `${env.REDIS_PREFIX}held:` });
  const eventHeaders = { authorization: `Bearer ${EVENTS_SECRET}`, 'content-type': 'application/json' };
  const event = { eventId: 'bench-event', utk: hot };
  const post =
    (s, n, secs = seconds) =>
    async () => {
      const body = JSON.stringify(n == 1 ? event : { events: Array(n).fill(event) });
      const res = await cannon(s.events, eventHeaders, secs, { method: 'POST', body });
      return { rps: (res.accepted * n) / res.duration, failed: res.failed };
    };
  await post(held, 1, warmUp)();
  const b = await inRounds('events', { single: post(held, 1), batch: post(held, 10) });
  // Apart from those rounds: the backlog it leaves is delivered afterwards, and would slow them.
  const live = await inRounds('events, delivery running', { single: post(one, 1) });
  const { pendingEvents } = await (await fetch(one.url.replace(/visitor$/, 'healthz'))).json();

  const eventsRow = (label, eps) => [
    label,
    `${fmt(eps)} events/s`,
    '≥ 5,000 events/s',
    eps >= 5000 ? 'yes' : `no: ${fmt(5000 - eps)} events/s short`,
  ];
  const n = opts.connections;
  return [
    [
      `cached GET /visitor, companion in shared mode (visitor cache and rate limit in Redis), ${n} connections`,
      `${fmt(median(a.shared))} req/s`,
      '—',
      '—',
    ],
    [
      `peer: the companion in embedded mode (1's server), ${n} connections`,
      `${fmt(median(a.embedded))} req/s`,
      '—',
      '—',
    ],
    ratioRow("shared / embedded (median of the rounds' ratios)", ratios(a.shared, a.embedded), 0.7),
    eventsRow(
      `POST /events accepted (202s), shared mode, 1 event per request, delivery held back, ${n} connections`,
      median(b.single),
    ),
    eventsRow(
      `POST /events accepted (202s), shared mode, 10 events per request, delivery held back, ${n} connections`,
      median(b.batch),
    ),
    [
      `POST /events accepted (202s), shared mode, 1 event per request, delivery to the platform running, ${n} connections`,
      `${fmt(median(live.single))} events/s (${fmt(pendingEvents ?? NaN)} still to deliver at the end)`,
      '—',
      '—',
    ],
    [`cached GET /visitor, 1 shared-mode instance, ${n} connections`, `${fmt(median(c.one))} req/s`, '—', '—'],
    [
      `cached GET /visitor, 2 shared-mode instances side by side, ${n} connections each (sum)`,
      `${fmt(median(c.two))} req/s`,
      '—',
      '—',
    ],
    ratioRow("2 instances / 1 instance (median of the rounds' ratios)", ratios(c.two, c.one)),
  ];
}

/** Deletes this run's keys (SCAN, not KEYS: the Redis may be shared). */
async function deleteKeys({ url, prefix }) {
  // ioredis is the companion's dependency, not the benchmark's.
  const { Redis } = createRequire(join(ROOT, 'packages/companion/package.json'))('ioredis');
  const redis = new Redis(url);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor != '0');
  } finally {
    redis.disconnect();
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
    const shared = mode == 'companion-shared';
    // Delivery held back (3b): the platform unreachable, a failed delivery waits
    // events.flushIntervalMs before it is tried again, so accepted events stay in the stream.
    const holdDelivery = process.env.HOLD_DELIVERY == '1';
    const companion = createCompanion({
      baseUrl: holdDelivery ? 'http://127.0.0.1:1' : process.env.BASE_URL,
      auth: { accessToken: creds.privateAppToken },
      logger: false,
      // The limiter stays in the chain, with a limit the benchmark never reaches.
      rateLimit: { limit: 1e9, windowMs: 60_000 },
      visitor: { cacheTtlMs: mode == 'companion-nocache' ? 0 : 3_600_000 },
      // Pacing out of reach; in shared mode that also leaves the shared budget out.
      client: { rateLimit: { max: Infinity }, concurrency: 50 },
      events: { outboxFile: join(process.env.DIR, `outbox-${mode}.jsonl`), handleSigterm: false },
      ...(shared && {
        redis: process.env.REDIS_URL,
        redisPrefix: process.env.REDIS_PREFIX,
        subscriptions: { linkSecret: 'svc-bench-link-secret-0123456789abcdef' },
        events: {
          secret: EVENTS_SECRET,
          handleSigterm: false,
          ...(holdDelivery && { flushIntervalMs: 3_600_000 }),
          // The stream's bound out of reach: the platform delivers slower than the companion
          // accepts, and a full stream would answer 503s, measuring the platform instead.
          maxQueueSize: 1e8,
        },
      }),
    });
    app.use('/svc', companion);
  }
  const server = app.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
  process.on('SIGTERM', () => process.exit(0));
}

if (opts.serve) await serve();
else await main();
