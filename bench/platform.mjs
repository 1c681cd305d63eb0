// Platform benchmark: the self-hostable platform (packages/platform) with a large contact table,
// under load from autocannon, printed as a markdown table (measurement | result | target | ok?).
// It is a benchmark, not a test: it never fails on a missed target, it reports it.
//
//   npm run bench:platform                                     1,000,000 contacts, 5 s per measurement
//   npm run bench:platform -- --contacts 20000 --seconds 2     a quick run
//   npm run bench:platform -- --profile                        also write a CPU profile of the server (path printed)
//   npm run bench:platform -- --in-process                     serve from this process (for comparison)
//   npm run bench:platform -- --only forms,collect             some measurements: pages, lookups, content, batch, forms, collect, peer
//   npm run bench:platform -- --posts 20000                    blog posts for the content list (default 100,000)
//
// The server runs in a child process (the built CLI, which also seeds the contacts) so that
// autocannon's own CPU work does not share the server's event loop; on 2 cores an in-process
// server reports the load generator's cost as the server's. Everything lives in a temp dir
// that is removed at the end.
import { spawn } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { createPlatform } from '../packages/platform/dist/index.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'packages/platform/bin/svc-platform.js');
const PEER = join(ROOT, 'bench/echo-collector.mjs');
const PORTAL = 62515; // the demo portal the CLI seeds
const RATE_LIMIT = 1_000_000_000; // per 10 s: the limiter still runs, it just never answers 429
const LINKED_UTKS = 10_000;
const PROFILES = join(os.tmpdir(), 'svc-bench-profiles'); // kept after the run, unlike the data

const { values: opts } = parseArgs({
  options: {
    contacts: { type: 'string', default: '1000000' },
    seconds: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    profile: { type: 'boolean', default: false },
    'in-process': { type: 'boolean', default: false },
    only: { type: 'string' },
    posts: { type: 'string', default: '100000' },
  },
});
const CONTACTS = Number(opts.contacts);
const SECONDS = Number(opts.seconds);
const WARMUP = Number(opts.warmup);
const POSTS = Number(opts.posts);
const ONLY = opts.only ? new Set(opts.only.split(',')) : undefined;
const wanted = (part) => !ONLY || ONLY.has(part);

/** A prefix that keeps this run's emails and event ids apart from the seeded ones. */
const RUN = randomBytes(6).toString('hex');
let serial = 0;
const unique = () => (++serial).toString(16).padStart(20, '0');
const hex32 = () => randomBytes(16).toString('hex');
const pick = (list) => list[randomInt(list.length)];
const fmt = (n, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const say = (message) => process.stderr.write(`${message}\n`);

// ---------------------------------------------------------------------------------------------
// Servers

/** Calls `wait(re)` → first line of `stream` matching `re` (match and time); rejects if the child exits first. */
function lineWatcher(child, stream) {
  const waiters = new Set();
  let stderr = '';
  child.stderr.on('data', (d) => ((stderr = (stderr + d).slice(-4000)), process.env.SHOW_STDERR && process.stderr.write(d)));
  createInterface({ input: stream }).on('line', (line) => {
    for (const w of waiters) {
      const m = line.match(w.re);
      if (m) waiters.delete(w), w.resolve({ m, at: performance.now() });
    }
  });
  child.on('exit', (code) => waiters.forEach((w) => w.reject(new Error(`server exited with ${code}:\n${stderr}`))));
  return (re) => new Promise((resolve, reject) => waiters.add({ re, resolve, reject }));
}

function stopChild(child) {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => (child.once('exit', resolve), child.kill('SIGTERM')));
}

/** The built CLI on a fresh database: it seeds the demo portal and CONTACTS contacts, then listens.
 * With --profile the seeding run is stopped and the CLI started again on the same data with the
 * profiler on, so that the profile shows the measurements only. */
async function startCli(dir) {
  const args = ['--data', join(dir, 'platform.db'), '--credentials', join(dir, 'credentials.json'), '--rate-limit', String(RATE_LIMIT), '--public-rate-limit', String(RATE_LIMIT)];
  const spawnCli = (flags, more) => {
    const child = spawn(process.execPath, [...flags, CLI, ...args, '--port', '0', '--forms-port', '0', ...more], { stdio: ['ignore', 'pipe', 'pipe'] });
    const wait = lineWatcher(child, child.stdout);
    return { child, seeded: wait(/^Seeded demo portal/), ready: wait(/base_url (\S+)\s+forms_url (\S+)/) };
  };
  let cli = spawnCli([], ['--seed-contacts', String(CONTACTS)]);
  const start = (await cli.seeded).at; // the contacts are seeded after the demo portal, before listening
  let { m, at } = await cli.ready;
  const seedSeconds = (at - start) / 1000;
  if (opts.profile) {
    await stopChild(cli.child);
    cli = spawnCli(['--cpu-prof', '--cpu-prof-dir', PROFILES], []);
    cli.seeded.catch(() => {}); // not printed again: the data is reused
    ({ m } = await cli.ready);
  }
  const { child } = cli;
  return { child, baseUrl: m[1], formsUrl: m[2], seedSeconds, stop: () => stopChild(child) };
}

/** The same database served from this process instead (only for --in-process). */
async function serveInProcess(database) {
  const platform = createPlatform({ database, logger: false, rateLimit: { max: RATE_LIMIT, windowMs: 10_000 }, publicRateLimit: { max: RATE_LIMIT, windowMs: 60_000 } });
  const { baseUrl, formsUrl } = await platform.listen({ basePort: 0, formsPort: 0 });
  return { baseUrl, formsUrl, stop: () => platform.close() };
}

/** The in-memory echo collector (bench/echo-collector.mjs), also in a child process. */
async function startPeer() {
  const child = spawn(process.execPath, [PEER], { stdio: ['ignore', 'ignore', 'pipe'] });
  const { m } = await lineWatcher(child, child.stderr)(/^listening (\d+)/);
  return { baseUrl: `http://127.0.0.1:${m[1]}`, stop: () => stopChild(child) };
}

/** Bytes of the database with its WAL and shared-memory files. */
function databaseSize(file) {
  return ['', '-wal', '-shm'].reduce((sum, ext) => sum + (existsSync(file + ext) ? statSync(file + ext).size : 0), 0);
}

// ---------------------------------------------------------------------------------------------
// Keys to look up

/** The vid range, sample emails and LINKED_UTKS visitor tokens linked (by the store, not HTTP) to random contacts. */
async function prepareKeys(database) {
  const platform = createPlatform({ database, logger: false });
  await platform.ready;
  try {
    const { lo, hi } = platform.db.prepare('SELECT min(vid) AS lo, max(vid) AS hi FROM contacts WHERE portal_id = ?').get(PORTAL);
    const byVid = platform.db.prepare('SELECT email FROM contacts WHERE vid = ?');
    const emails = [];
    const utks = [];
    await platform.services.engine.tx(async (t) => {
      for (let i = 0; i < Math.min(LINKED_UTKS, CONTACTS); i++) {
        const vid = randomInt(lo, hi + 1);
        const utk = hex32();
        await platform.services.visitors.link(t, PORTAL, utk, vid);
        utks.push(utk);
        emails.push(byVid.get(randomInt(lo, hi + 1)).email);
      }
    });
    return { lo, hi, emails, utks };
  } finally {
    await platform.close();
  }
}

/** POSTS blog posts in the demo portal's blog (written by the store, not HTTP), half of them
 * published, one a minute: the content list measurement pages through them. */
async function seedBlogPosts(database) {
  const started = performance.now();
  const platform = createPlatform({ database, logger: false });
  await platform.ready;
  try {
    const { content, engine } = platform.services;
    const blog = (await content.list(engine, PORTAL, 'blogs', { limit: 1 }, new Set())).objects[0];
    const body = { content_group_id: blog.id, post_body: `<p>${'Lorem ipsum dolor sit amet. '.repeat(20)}</p>`, post_summary: 'Summary', topic_ids: [], keywords: [], widgets: {} };
    const start = Date.now() - POSTS * 60_000;
    await engine.tx(async (t) => {
      for (let i = 0; i < POSTS; i++) {
        const at = start + i * 60_000;
        const published = i % 2 == 1;
        await content.insertRaw(t, PORTAL, 'blog-posts', {
          ...body, created: at, updated: at, name: `Bench post ${i}`, slug: `blog/bench-post-${i}`,
          state: published ? 'PUBLISHED' : 'DRAFT', is_draft: !published, publish_date: at,
        });
      }
    });
    return { blogId: blog.id, seconds: (performance.now() - started) / 1000 };
  } finally {
    await platform.close();
  }
}

/** The demo portal's private-app token and the guid of its 'Contact us' form. */
async function portalAccess(dir, baseUrl) {
  const { privateAppToken } = JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8'));
  const auth = { authorization: `Bearer ${privateAppToken}` };
  const forms = await (await fetch(`${baseUrl}/contacts/v1/forms`, { headers: auth })).json();
  const form = forms.find((f) => f.name == 'Contact us');
  if (!form) throw new Error(`no 'Contact us' form in ${JSON.stringify(forms).slice(0, 200)}`);
  return { auth, formGuid: form.guid };
}

// ---------------------------------------------------------------------------------------------
// Request generators: each call returns a new request (method, path, headers, body)

function pageRequest(auth, vidOffset) {
  return () => ({ method: 'GET', path: `/contacts/v1/lists/all/contacts/all?count=100&vidOffset=${vidOffset}`, headers: auth });
}

/** A page of a blog's published posts, newest first, at a random page among the first 50. */
function contentListRequest(auth, blogId) {
  return () => ({
    method: 'GET',
    path: `/content/api/v2/blog-posts?content_group_id=${blogId}&state=PUBLISHED&order_by=-publish_date&limit=20&offset=${20 * randomInt(50)}`,
    headers: auth,
  });
}

function lookupRequest(auth, kind, keys) {
  const key = { vid: () => randomInt(keys.lo, keys.hi + 1), email: () => encodeURIComponent(pick(keys.emails)), utk: () => pick(keys.utks) }[kind];
  return () => ({ method: 'GET', path: `/contacts/v1/contact/${kind}/${key()}/profile`, headers: auth });
}

/** 1,000 contacts, half new, half existing (seeded) emails whose company changes. */
function batchRequest(auth, keys) {
  return () => {
    const items = Array.from({ length: 1000 }, (_, i) =>
      i % 2
        ? { email: pick(keys.emails), properties: [{ property: 'company', value: `Bench ${unique()}` }] }
        : { email: `batch-${RUN}-${unique()}@example.test`, properties: [{ property: 'firstname', value: 'Batch' }, { property: 'company', value: 'Bench' }] },
    );
    return { method: 'POST', path: '/contacts/v1/contact/batch/', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(items) };
  };
}

/** A new lead on the 'Contact us' form, from a new visitor (svcutk), as the embed posts it. */
function formRequest(formGuid) {
  return () => {
    const context = { svcutk: hex32(), pageUrl: 'https://acme.test/contact', pageName: 'Contact us' };
    const body = new URLSearchParams({ email: `form-${RUN}-${unique()}@example.test`, firstname: 'Form', lastname: 'Bench', message: 'Hello', svc_context: JSON.stringify(context) });
    return { method: 'POST', path: `/uploads/form/v2/${PORTAL}/${formGuid}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: body.toString() };
  };
}

/** A tracker batch: 10 events of one visitor (half known contacts, half anonymous), 7 page views and 3 custom events; the
 * first page view comes from a search engine and the others from the page before, as the tracker sends referrers. */
function collectRequest(keys) {
  return () => {
    const vi = randomInt(2) ? pick(keys.utks) : hex32();
    const cts = String(Date.now());
    const events = Array.from({ length: 10 }, (_, i) =>
      i % 3 == 2
        ? { eid: RUN + unique(), k: '3', a: String(PORTAL), v: '1', cts, pu: 'https://acme.test/pricing', n: 'clicked-buy', m: '49', vi }
        : { eid: RUN + unique(), k: '1', a: String(PORTAL), v: '1', cts, pu: `https://acme.test/page-${i}`, t: 'Page', po: `/page-${i}`, vi,
            r: i == 0 ? 'https://www.google.com/' : `https://acme.test/page-${i - 1}` },
    );
    return { method: 'POST', path: '/collect/e', headers: { 'content-type': 'text/plain;charset=UTF-8' }, body: JSON.stringify(events) };
  };
}

// ---------------------------------------------------------------------------------------------
// Measuring

/** One request by fetch first, so a wrong setup fails loudly instead of benchmarking error answers. */
async function check(url, next, valid) {
  const { method, path, headers, body } = next();
  const res = await fetch(url + path, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  if (!valid(res.status, text)) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
}

/** Runs autocannon for `seconds`; the latencies come from the 'response' event because
 * autocannon's own histogram keeps whole milliseconds, too coarse for a 1 ms target. */
async function cannon(url, next, connections, seconds) {
  const times = [];
  const instance = autocannon({ url, connections, duration: seconds, requests: [{ setupRequest: (req) => Object.assign(req, next()) }] });
  instance.on('response', (_client, status, _bytes, ms) => status < 400 && times.push(ms));
  const result = await instance;
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? NaN;
  return { done: times.length, failed: result.non2xx + result.errors + result.timeouts, seconds: result.duration, p50: at(0.5), p99: at(0.99) };
}

async function measure({ url, next, valid, connections }) {
  await check(url, next, valid);
  await cannon(url, next, connections, WARMUP); // JIT and SQLite's page cache
  return cannon(url, next, connections, SECONDS);
}

const ms = (x) => `${fmt(x, x < 10 ? 2 : 1)} ms`;

/** A row for a latency target: `p50 ≤ target` ms. */
function latencyRow(label, r, target) {
  const ok = r.p50 <= target && !r.failed;
  const miss = r.failed ? `no: ${fmt(r.failed)} failed` : `no: p50 ${fmt(r.p50 / target, 2)}× the target`;
  return [label, `p50 ${ms(r.p50)} · p99 ${ms(r.p99)} (${fmt(r.done / r.seconds)} req/s)`, `p50 ≤ ${target} ms`, ok ? 'yes' : miss];
}

/** A row for a throughput target: `per` units per successful request, at least `target` units/s. */
function throughputRow(label, r, { per, unit, target }) {
  const rate = (r.done * per) / r.seconds;
  const result = `${fmt(rate)} ${unit}/s (${fmt(r.done / r.seconds, r.done / r.seconds < 100 ? 1 : 0)} req/s, p50 ${ms(r.p50)})`;
  if (target === undefined) return [label, result, '—', '—'];
  const ok = rate >= target && !r.failed;
  const miss = r.failed ? `no: ${fmt(r.failed)} failed` : `no: ${fmt((100 * rate) / target)} % of the target`;
  return [label, result, `≥ ${fmt(target)} ${unit}/s`, ok ? 'yes' : miss];
}

const is = (status) => (s) => s == status;
const accepted10 = (s, text) => s == 200 && JSON.parse(text).accepted == 10;

/** Every measurement against the platform, in an order where writes come after the reads they would disturb. */
async function measurePlatform({ baseUrl, formsUrl }, { auth, formGuid }, keys) {
  const rows = [];
  const run = async (label, spec, toRow) => {
    if (!wanted(spec.part)) return;
    say(`measuring: ${label}`);
    rows.push(toRow(await measure(spec)));
  };
  for (const [name, frac] of [['start', 0], ['25 %', 0.25], ['50 %', 0.5], ['99 %', 0.99]]) {
    const offset = keys.lo - 1 + Math.floor(frac * (keys.hi - keys.lo + 1));
    const label = `GET /contacts/v1/lists/all/contacts/all?count=100, vidOffset at ${name} (${fmt(offset)}), 1 connection`;
    await run(label, { part: 'pages', url: baseUrl, next: pageRequest(auth, offset), valid: is(200), connections: 1 }, (r) => latencyRow(label, r, 5));
  }
  for (const kind of ['vid', 'email', 'utk']) {
    const label = `GET /contacts/v1/contact/${kind}/:${kind}/profile, random ${kind}s, 1 connection`;
    await run(label, { part: 'lookups', url: baseUrl, next: lookupRequest(auth, kind, keys), valid: is(200), connections: 1 }, (r) => latencyRow(label, r, 1));
  }
  if (keys.blogId) {
    const label = `GET /content/api/v2/blog-posts?content_group_id=…&state=PUBLISHED&order_by=-publish_date&limit=20, ${fmt(POSTS)} posts, random page of the first 50, 1 connection`;
    await run(label, { part: 'content', url: baseUrl, next: contentListRequest(auth, keys.blogId), valid: is(200), connections: 1 }, (r) => latencyRow(label, r, 10));
  }
  const batch = 'POST /contacts/v1/contact/batch/, 1,000 contacts (½ new, ½ existing), 4 connections';
  await run(batch, { part: 'batch', url: baseUrl, next: batchRequest(auth, keys), valid: is(202), connections: 4 }, (r) =>
    throughputRow(batch, r, { per: 1000, unit: 'contacts', target: 20_000 }),
  );
  const form = 'POST {forms_url}/uploads/form/v2/… urlencoded, new email + svcutk, 10 connections';
  await run(form, { part: 'forms', url: formsUrl, next: formRequest(formGuid), valid: is(204), connections: 10 }, (r) =>
    throughputRow(form, r, { per: 1, unit: 'submissions', target: 2_000 }),
  );
  const collect = 'POST {base_url}/collect/e, batches of 10 events (text/plain), 10 connections';
  await run(collect, { part: 'collect', url: baseUrl, next: collectRequest(keys), valid: accepted10, connections: 10 }, (r) =>
    throughputRow(collect, r, { per: 10, unit: 'events', target: 20_000 }),
  );
  return rows;
}

async function measurePeer(keys) {
  const peer = await startPeer();
  try {
    const label = 'peer: in-memory echo collector (no storage), same batches, 10 connections';
    say(`measuring: ${label}`);
    const r = await measure({ url: peer.baseUrl, next: collectRequest(keys), valid: accepted10, connections: 10 });
    return throughputRow(label, r, { per: 10, unit: 'events' });
  } finally {
    await peer.stop();
  }
}

// ---------------------------------------------------------------------------------------------

function printTable(rows, facts) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  console.log(['', line(['measurement', 'result', 'target', 'ok?']), line(['---', '---', '---', '---']), ...rows.map(line), '', facts, ''].join('\n'));
}

async function main() {
  const started = performance.now();
  const dir = mkdtempSync(join(os.tmpdir(), 'svc-bench-platform-'));
  const database = join(dir, 'platform.db');
  let server;
  try {
    say(`seeding ${fmt(CONTACTS)} contacts in the platform CLI…`);
    server = await startCli(dir);
    const { seedSeconds } = server;
    const seededSize = databaseSize(database);
    if (opts['in-process']) {
      await server.stop();
      server = await serveInProcess(database);
    }
    say(`seeded in ${fmt(seedSeconds, 1)} s; linking ${fmt(Math.min(LINKED_UTKS, CONTACTS))} visitor tokens…`);
    const keys = await prepareKeys(database);
    let posts;
    if (wanted('content')) {
      say(`adding ${fmt(POSTS)} blog posts…`);
      posts = await seedBlogPosts(database);
      keys.blogId = posts.blogId;
    }
    const access = await portalAccess(dir, server.baseUrl);

    const rows = [
      [`seed ${fmt(CONTACTS)} contacts (CLI --seed-contacts, batches of 1,000)`, `${fmt(seedSeconds, 1)} s (${fmt(CONTACTS / seedSeconds)} contacts/s)`, '—', '—'],
      ...(posts ? [[`add ${fmt(POSTS)} blog posts (store, one transaction)`, `${fmt(posts.seconds, 1)} s`, '—', '—']] : []),
      ...(await measurePlatform(server, access, keys)),
    ];
    await server.stop();
    server = undefined;
    if (wanted('peer')) rows.push(await measurePeer(keys));

    const cpus = os.cpus();
    const mb = (bytes) => `${fmt(bytes / 2 ** 20)} MB`;
    printTable(
      rows,
      `Node ${process.version} · ${cpus.length} × ${cpus[0]?.model.trim()} · ${os.platform()} ${os.arch()} · database ${mb(seededSize)} after seeding, ` +
        `${mb(databaseSize(database))} at the end (with WAL) · ${SECONDS} s per measurement after ${WARMUP} s warm-up · ` +
        `server ${opts['in-process'] ? 'in the benchmark process' : 'in a child process'} · whole run ${fmt((performance.now() - started) / 1000)} s`,
    );
  } finally {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
    if (opts.profile) say(`CPU profile of the server: ${PROFILES} (open in Chrome DevTools)`);
  }
}

await main();
