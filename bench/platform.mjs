// Platform benchmark: the self-hostable platform (packages/platform) with a large contact table,
// under load from autocannon, printed as a markdown table (measurement | result | target | ok?).
// With --database it runs every measurement on SQLite and then on PostgreSQL, and prints one table
// with both side by side, plus 1 vs 2 platform processes on the one PostgreSQL database for the
// writes and a lookup. It is a benchmark, not a test: it never fails on a missed target, it reports it.
//
//   npm run bench:platform                                     1,000,000 contacts, 5 s per measurement
//   npm run bench:platform -- --contacts 20000 --seconds 2     a quick run
//   npm run bench:platform -- --database postgres://postgres@127.0.0.1:5432/test
//                                                              SQLite and PostgreSQL side by side (in a
//                                                              schema of its own, dropped at the end),
//                                                              PostgreSQL also on 2 processes
//   npm run bench:platform -- --profile                        also write a CPU profile of the server (path printed)
//   node bench/platform.mjs --cli ../other/packages/platform/bin/svc-platform.js   serve another build
//   npm run bench:platform -- --in-process                     serve from this process (for comparison)
//   npm run bench:platform -- --only forms,collect             some measurements: pages, lookups, content, batch, forms, collect, peer
//   npm run bench:platform -- --posts 20000                    blog posts for the content list (default 100,000)
//   npm run bench:platform -- --only dashboard --contacts 1000  the dashboard's panels over 90 days of rollups and
//                                                              sessions worth 10,000,000 tracking events (--events N)
//
// The server runs in a child process (the built CLI, which also seeds the contacts) so that
// autocannon's own CPU work does not share the server's event loop; on 2 cores an in-process
// server reports the load generator's cost as the server's. Everything lives in a temp dir (and on
// PostgreSQL a schema) that is removed at the end, also after a failure or Ctrl-C.
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fmt, latencyCells, measure, rateOf, throughputCells } from './lib/measure.mjs';
import { DASHBOARD_PANELS, dashboardRequest, seedDashboard } from './lib/dashboard-data.mjs';
import { portalAccess, prepareKeys, seedBlogPosts } from './lib/platform-data.mjs';
import {
  accepted10,
  batchRequest,
  collectRequest,
  contentListRequest,
  formRequest,
  is,
  lookupRequest,
  pageRequest,
} from './lib/platform-requests.mjs';
import { serveInProcess, startCli, startPeer, stopAllChildren } from './lib/platform-servers.mjs';
import { benchSchema } from './lib/postgres-schema.mjs';
import { oneEngineTable, printTable, sqliteSize, twoEngineTable } from './lib/platform-table.mjs';

const PORTAL = 62515; // the demo portal the CLI seeds
const LINKED_UTKS = 10_000;
const PROFILES = join(os.tmpdir(), 'svc-bench-profiles'); // kept after the run, unlike the data

const { values: opts } = parseArgs({
  options: {
    contacts: { type: 'string', default: '1000000' },
    seconds: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    profile: { type: 'boolean', default: false },
    cli: { type: 'string' },
    'in-process': { type: 'boolean', default: false },
    only: { type: 'string' },
    posts: { type: 'string', default: '100000' },
    events: { type: 'string', default: '10000000' },
    database: { type: 'string' },
  },
});
const CONTACTS = Number(opts.contacts);
const POSTS = Number(opts.posts);
const EVENTS = Number(opts.events);
const TIMING = { seconds: Number(opts.seconds), warmup: Number(opts.warmup) };
const ONLY = opts.only ? new Set(opts.only.split(',')) : undefined;
const wanted = (part) => !ONLY || ONLY.has(part);
const say = (message) => process.stderr.write(`${message}\n`);
/** Progress names the engine only when there are two. */
const on = (name) => (opts.database ? ` (${name})` : '');
if (opts.database !== undefined && !/^postgres(ql)?:\/\//i.test(opts.database))
  throw new Error(`--database takes a PostgreSQL URL (postgres://…), not "${opts.database}"`);

/** Each engine's targets: SQLite's since issue 14 (the collector's from issue 18: 30,000 events/s
 * with attribution, sessions and rollups on), PostgreSQL's from issue 17 (which names none for the
 * content list: it keeps SQLite's). */
const TARGETS = {
  sqlite: { page: 5, lookup: 1, content: 10, batch: 20_000, forms: 2_000, collect: 30_000, dashboard: 200 },
  postgres: { page: 10, lookup: 2, content: 10, batch: 10_000, forms: 1_000, collect: 15_000, dashboard: 200 },
};
const TWO_PROCESS_KEYS = ['lookup-vid-2', 'batch', 'forms', 'collect'];

/** Every measurement against the platform served by `servers` (the load split across them when
 * several), in an order where writes come after the reads they would disturb: key, part, label,
 * what to run (`urls`, `next`, `valid`, `connections`) and the cells of its result. */
function platformMeasurements(servers, { auth, formGuid, dashboardPanel }, keys, t) {
  const base = servers.map((s) => s.baseUrl);
  const list = [];
  for (const [name, frac] of [
    ['start', 0],
    ['25 %', 0.25],
    ['50 %', 0.5],
    ['99 %', 0.99],
  ]) {
    const offset = keys.lo - 1 + Math.floor(frac * (keys.hi - keys.lo + 1));
    const label = `GET /contacts/v1/lists/all/contacts/all?count=100, vidOffset at ${name} (${fmt(offset)}), 1 connection`;
    list.push({
      key: `page-${name}`,
      part: 'pages',
      label,
      urls: base,
      next: pageRequest(auth, offset),
      valid: is(200),
      connections: 1,
      cells: (r) => latencyCells(r, t.page),
    });
  }
  for (const kind of ['vid', 'email', 'utk']) {
    const label = `GET /contacts/v1/contact/${kind}/:${kind}/profile, random ${kind}s, 1 connection`;
    list.push({
      key: `lookup-${kind}`,
      part: 'lookups',
      label,
      urls: base,
      next: lookupRequest(auth, kind, keys),
      valid: is(200),
      connections: 1,
      cells: (r) => latencyCells(r, t.lookup),
    });
  }
  const lookup2 = 'GET /contacts/v1/contact/vid/:vid/profile, random vids, 2 connections (1 vs 2 processes)';
  list.push({
    key: 'lookup-vid-2',
    part: 'lookups',
    label: lookup2,
    urls: base,
    next: lookupRequest(auth, 'vid', keys),
    valid: is(200),
    connections: 2,
    cells: (r) => latencyCells(r, t.lookup),
    per: 1,
  });
  if (keys.blogId) {
    const label = `GET /content/api/v2/blog-posts?content_group_id=…&state=PUBLISHED&order_by=-publish_date&limit=20, ${fmt(POSTS)} posts, random page of the first 50, 1 connection`;
    list.push({
      key: 'content',
      part: 'content',
      label,
      urls: base,
      next: contentListRequest(auth, keys.blogId),
      valid: is(200),
      connections: 1,
      cells: (r) => latencyCells(r, t.content),
    });
  }
  if (keys.dashboard)
    for (const panel of DASHBOARD_PANELS) {
      const label = `GET /_inspector/api/dashboard/${panel}?range=90d, rollups of ${fmt(EVENTS)} events, 1 connection`;
      list.push({
        key: `dashboard-${panel}`,
        part: 'dashboard',
        label,
        urls: base,
        next: dashboardPanel(panel),
        valid: is(200),
        connections: 1,
        cells: (r) => latencyCells(r, t.dashboard),
      });
    }
  const batch = 'POST /contacts/v1/contact/batch/, 1,000 contacts (½ new, ½ existing), 4 connections';
  list.push({
    key: 'batch',
    part: 'batch',
    label: batch,
    urls: base,
    next: batchRequest(auth, keys),
    valid: is(202),
    connections: 4,
    per: 1000,
    cells: (r) => throughputCells(r, { per: 1000, unit: 'contacts', target: t.batch }),
  });
  const form = 'POST {forms_url}/uploads/form/v2/… urlencoded, new email + svcutk, 10 connections';
  const forms = servers.map((s) => s.formsUrl);
  list.push({
    key: 'forms',
    part: 'forms',
    label: form,
    urls: forms,
    next: formRequest(PORTAL, formGuid),
    valid: is(204),
    connections: 10,
    per: 1,
    cells: (r) => throughputCells(r, { per: 1, unit: 'submissions', target: t.forms }),
  });
  const collect = 'POST {base_url}/collect/e, batches of 10 events (text/plain), 10 connections';
  list.push({
    key: 'collect',
    part: 'collect',
    label: collect,
    urls: base,
    next: collectRequest(PORTAL, keys),
    valid: accepted10,
    connections: 10,
    per: 10,
    cells: (r) => throughputCells(r, { per: 10, unit: 'events', target: t.collect }),
  });
  // The servers' main-thread CPU per request is measured when they are child processes (not --in-process).
  const pids = servers.every((s) => s.pid) ? servers.map((s) => s.pid) : [];
  return list.filter((m) => wanted(m.part)).map((m) => ({ ...m, pids }));
}

/** Runs `list`, each measurement's result kept by key (`r`) with its label and cells. */
async function runAll(list, results = new Map(), prefix = '') {
  for (const m of list) {
    say(`measuring${prefix}: ${m.label}`);
    const r = await measure(m, TIMING);
    results.set(m.key, { label: m.label, cells: m.cells(r), r, per: m.per });
  }
  return results;
}

/** One engine, end to end: the CLI seeds a fresh database and serves it; keys and blog posts are
 * added through the store; every measurement runs on one process, then (`twoProcesses`) the
 * writes and a lookup with a second CLI process on the same database, the load split across both. */
async function benchEngine({ name, dir, data, database, size, twoProcesses }) {
  const filesDir = join(dir, 'files');
  say(`seeding ${fmt(CONTACTS)} contacts in the platform CLI${on(name)}…`);
  let server = await startCli({ dir, data, seedContacts: CONTACTS, profile: opts.profile && PROFILES, cli: opts.cli });
  const { seedSeconds } = server;
  const results = new Map();
  const twoResults = new Map();
  try {
    const seededSize = await size();
    if (opts['in-process']) {
      await server.stop();
      server = await serveInProcess(database, filesDir);
    }
    say(`seeded in ${fmt(seedSeconds, 1)} s; linking ${fmt(Math.min(LINKED_UTKS, CONTACTS))} visitor tokens…`);
    const keys = await prepareKeys(database, filesDir, PORTAL, Math.min(LINKED_UTKS, CONTACTS));
    const seedCells = [`${fmt(seedSeconds, 1)} s (${fmt(CONTACTS / seedSeconds)} contacts/s)`, '—', '—'];
    results.set('seed', {
      label: `seed ${fmt(CONTACTS)} contacts (CLI --seed-contacts, batches of 1,000)`,
      cells: seedCells,
    });
    if (wanted('content')) {
      say(`adding ${fmt(POSTS)} blog posts…`);
      const posts = await seedBlogPosts(database, filesDir, PORTAL, POSTS);
      keys.blogId = posts.blogId;
      results.set('posts', {
        label: `add ${fmt(POSTS)} blog posts (store, one transaction)`,
        cells: [`${fmt(posts.seconds, 1)} s`, '—', '—'],
      });
    }
    if (wanted('dashboard')) {
      say(`filling the dashboard's rollups and sessions as ${fmt(EVENTS)} tracking events would${on(name)}…`);
      const filled = await seedDashboard(database, filesDir, PORTAL, EVENTS);
      keys.dashboard = true;
      const rows = Object.entries(filled.rows)
        .map(([table, n]) => `${fmt(n)} ${table}`)
        .join(', ');
      // The rows made in the result, not the label: they differ a little between two runs (random
      // visitors), and one label names both engines' rows.
      results.set('dashboard-seed', {
        label: `fill the dashboard's tables for ${fmt(EVENTS)} events over 90 days (engine, transactions of 200,000 rows)`,
        cells: [`${fmt(filled.seconds, 1)} s (${rows})`, '—', '—'],
      });
    }
    const access = {
      ...(await portalAccess(dir, server.baseUrl)),
      dashboardPanel: (panel) => dashboardRequest(dir, PORTAL, panel),
    };
    const targets = TARGETS[name];
    const one = platformMeasurements([server], access, keys, targets).filter(
      (m) => twoProcesses || m.key != 'lookup-vid-2',
    );
    // Rows in the list's order (a Map keeps a key's first place), but the 2-connection lookup runs
    // last, right before the same lookup on two processes.
    for (const m of one) results.set(m.key, undefined);
    await runAll(
      [...one.filter((m) => m.key != 'lookup-vid-2'), ...one.filter((m) => m.key == 'lookup-vid-2')],
      results,
      on(name),
    );
    if (twoProcesses && one.some((m) => TWO_PROCESS_KEYS.includes(m.key))) {
      say(`starting a second platform process on the same database${on(name)}…`);
      const second = await startCli({ dir, data, cli: opts.cli });
      try {
        const two = platformMeasurements([server, second], access, keys, targets).filter((m) =>
          TWO_PROCESS_KEYS.includes(m.key),
        );
        await runAll(two, twoResults, ` (${name}, 2 processes)`);
      } finally {
        await second.stop();
      }
    }
    return { results, twoResults, keys, seededSize };
  } finally {
    await server.stop();
  }
}

/** The echo peer; its row says what fraction of it the SQLite collector (`collect`, if measured)
 * reached: issue 18 aims at 0.5×. */
async function measurePeer(keys, collect) {
  const peer = await startPeer();
  try {
    const label = 'peer: in-memory echo collector (no storage), same batches, 10 connections';
    say(`measuring: ${label}`);
    const r = await measure(
      {
        urls: [peer.baseUrl],
        pids: [peer.pid],
        next: collectRequest(PORTAL, keys),
        valid: accepted10,
        connections: 10,
      },
      TIMING,
    );
    const [result] = throughputCells(r, { per: 10, unit: 'events' });
    const ratio = collect?.r.done && r.done ? rateOf(collect.r, collect.per) / rateOf(r, 10) : undefined;
    return {
      label,
      cells: [
        result,
        'the collector ≥ 0.5× of it',
        ratio === undefined ? '—' : `${ratio >= 0.5 ? 'yes' : 'no'}: ${fmt(ratio, 2)}×`,
      ],
    };
  } finally {
    await peer.stop();
  }
}

async function main() {
  const started = performance.now();
  const dir = mkdtempSync(join(os.tmpdir(), 'svc-bench-platform-'));
  const cleanups = [() => rmSync(dir, { recursive: true, force: true })];
  let cleaning;
  const cleanup = () =>
    (cleaning ??= (async () => {
      await stopAllChildren();
      for (const fn of cleanups.reverse())
        await (async () => fn())().catch((err) => say(`cleaning up: ${err.message}`));
    })());
  for (const signal of ['SIGINT', 'SIGTERM'])
    process.once(
      signal,
      () => (say(`${signal}: stopping the servers and removing the data…`), cleanup().finally(() => process.exit(130))),
    );
  try {
    const engines = [];
    const sqliteDir = join(dir, 'sqlite');
    mkdirSync(sqliteDir);
    const file = join(sqliteDir, 'platform.db');
    engines.push({
      name: 'sqlite',
      dir: sqliteDir,
      data: { args: ['--data', file] },
      database: file,
      size: async () => sqliteSize(file),
    });
    let pg;
    if (opts.database) {
      pg = await benchSchema(opts.database);
      cleanups.push(pg.drop);
      say(`PostgreSQL: schema ${pg.schema}`);
      const pgDir = join(dir, 'postgres');
      mkdirSync(pgDir);
      engines.push({
        name: 'postgres',
        dir: pgDir,
        data: { env: { DATABASE_URL: pg.url } },
        database: pg.url,
        size: pg.size,
        twoProcesses: true,
      });
    }
    const runs = {};
    for (const engine of engines) {
      runs[engine.name] = await benchEngine(engine);
      runs[engine.name].endSize = await engine.size(); // the server stopped: SQLite's WAL as it was left
    }
    const peer = wanted('peer') ? await measurePeer(runs.sqlite.keys, runs.sqlite.results.get('collect')) : undefined;

    const cpus = os.cpus();
    const mb = (bytes) => `${fmt(bytes / 2 ** 20)} MB`;
    const machine = `Node ${process.version} · ${cpus.length} × ${cpus[0]?.model.trim()} · ${os.platform()} ${os.arch()}`;
    const timing = `${TIMING.seconds} s per measurement after ${TIMING.warmup} s warm-up`;
    const where = `server ${opts['in-process'] ? 'in the benchmark process' : 'in a child process'}`;
    const whole = `whole run ${fmt((performance.now() - started) / 1000)} s`;
    const sqliteSizes = `${mb(runs.sqlite.seededSize)} after seeding, ${mb(runs.sqlite.endSize)} at the end (with WAL)`;
    if (!pg) {
      printTable(
        oneEngineTable(runs.sqlite.results, peer),
        `${machine} · database ${sqliteSizes} · ${timing} · ${where} · ${whole}`,
      );
      return;
    }
    const { results, twoResults, seededSize, endSize } = runs.postgres;
    printTable(
      twoEngineTable(runs.sqlite.results, results, twoResults, peer),
      `${machine} · SQLite database ${sqliteSizes} · PostgreSQL ${await pg.serverVersion()}, schema ${pg.schema}: ${mb(seededSize)} after seeding, ` +
        `${mb(endSize)} at the end (its tables with their indexes) · ${timing} · ${where} · 2 processes: a second CLI process on the same ` +
        `database, the connections split evenly between the two, after the 1-process writes · ${whole}`,
    );
  } finally {
    await cleanup();
    if (opts.profile) say(`CPU profile of the server: ${PROFILES} (open in Chrome DevTools)`);
  }
}

await main();
