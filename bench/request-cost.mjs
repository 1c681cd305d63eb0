// What a form submission (or a collector batch) costs the platform server: main-thread and
// process CPU time, SQL statements and socket writes per request (bench/lib/request-cost.cjs,
// loaded into the server), figures that a machine busy with other work disturbs far less than
// throughput; on PostgreSQL also the CPU time of the database server's processes per request
// (from /proc, when the server runs on this machine: a round trip costs it as much as the
// platform). The built CLI seeds a fresh database (SQLite, or a schema of its own on PostgreSQL,
// dropped at the end), then takes `--warm` requests and `--requests` more, counted.
//
//   node bench/request-cost.mjs                                   SQLite, 4,000 submissions
//   node bench/request-cost.mjs --database postgres://postgres@127.0.0.1:5432/test
//   node bench/request-cost.mjs --measure collect                 tracker batches of 10 events
//   node bench/request-cost.mjs --no-statements                   without the statement counters' cost
//   node bench/request-cost.mjs --cli ../other/packages/platform/bin/svc-platform.js   another build's CLI
//
// Compare two builds by running this in each checkout one after the other, or both at once (the
// same load on both).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { portalAccess, prepareKeys } from './lib/platform-data.mjs';
import { collectRequest, formRequest } from './lib/platform-requests.mjs';
import { startCli, stopAllChildren } from './lib/platform-servers.mjs';
import { benchSchema } from './lib/postgres-schema.mjs';

const { values: opts } = parseArgs({
  options: {
    database: { type: 'string' },
    requests: { type: 'string', default: '4000' },
    warm: { type: 'string', default: '1000' },
    contacts: { type: 'string', default: '20000' },
    connections: { type: 'string', default: '10' },
    label: { type: 'string', default: '' },
    measure: { type: 'string', default: 'forms' },
    'no-statements': { type: 'boolean', default: false },
    cli: { type: 'string' },
  },
});
const PORTAL = 62515; // the demo portal the CLI seeds
const dir = mkdtempSync(join(os.tmpdir(), 'svc-request-cost-'));
const out = join(dir, 'cost.txt');
const engine = opts.database ? 'PostgreSQL' : 'SQLite';
Object.assign(process.env, {
  NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${fileURLToPath(new URL('lib/request-cost.cjs', import.meta.url))}`,
  COST_PATH: opts.measure == 'collect' ? '/collect' : '/uploads/form',
  COST_OUT: out,
  COST_LABEL: `${opts.label} ${engine}`.trim(),
  COST_PIDFILE: join(dir, 'pid'),
  COST_STATEMENTS: opts['no-statements'] ? '0' : '1',
});

/** The CPU time (µs) of each process named postgres on this machine so far, by pid (the
 * database server's backends, its WAL writer and checkpointer). */
function databaseCpu() {
  const byPid = new Map();
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      byPid.set(pid, (Number(fields[11]) + Number(fields[12])) * 10_000); // utime + stime, ticks of 1/100 s
    } catch {
      // gone meanwhile
    }
  }
  return byPid;
}
/** What the postgres processes spent between two databaseCpu() readings: a process that started
 * meanwhile counts whole; one that exited meanwhile is missed (a pool's connections live on). */
const databaseCpuSince = (before, after) => [...after].reduce((sum, [pid, us]) => sum + us - (before.get(pid) ?? 0), 0);

let schema;
try {
  if (opts.database) schema = await benchSchema(opts.database);
  const data = schema ? { env: { DATABASE_URL: schema.url } } : { args: ['--data', join(dir, 'platform.db')] };
  const server = await startCli({ dir, data, seedContacts: Number(opts.contacts), cli: opts.cli });
  const { formGuid } = await portalAccess(dir, server.baseUrl);
  const collect = opts.measure == 'collect';
  const keys =
    collect &&
    (await prepareKeys(
      schema?.url ?? join(dir, 'platform.db'),
      join(dir, 'files'),
      PORTAL,
      Math.min(10_000, Number(opts.contacts)),
    ));
  const next = collect ? collectRequest(PORTAL, keys) : formRequest(PORTAL, formGuid);
  const url = collect ? server.baseUrl : server.formsUrl;
  const submit = (amount) =>
    new Promise((resolve, reject) =>
      autocannon(
        {
          url,
          connections: Number(opts.connections),
          amount,
          requests: [{ setupRequest: (req) => Object.assign(req, next()) }],
        },
        (err, r) =>
          err
            ? reject(err)
            : r.non2xx || r.errors
              ? reject(new Error(`${r.non2xx} answers not 2xx, ${r.errors} errors`))
              : resolve(r),
      ),
    );
  await submit(Number(opts.warm));
  process.kill(Number(readFileSync(join(dir, 'pid'), 'utf8')), 'SIGUSR2');
  await new Promise((resolve) => setTimeout(resolve, 150)); // the server's next sample starts the count
  const database = schema && databaseCpu();
  const r = await submit(Number(opts.requests));
  const databaseUs = schema && databaseCpuSince(database, databaseCpu()) / r.requests.total;
  await server.stop();
  const pg = schema ? `, PostgreSQL's processes ${databaseUs.toFixed(0)} µs per request` : '';
  console.log(`${readFileSync(out, 'utf8').trim()}${pg} (${Math.round(r.requests.total / r.duration)}/s)`);
} finally {
  await stopAllChildren();
  await schema?.drop();
  rmSync(dir, { recursive: true, force: true });
}
