// What a form submission costs the platform server: main-thread and process CPU time, SQL
// statements and socket writes per request (bench/lib/request-cost.cjs, loaded into the server),
// figures that a machine busy with other work disturbs far less than throughput. The built CLI
// seeds a fresh database (SQLite, or a schema of its own on PostgreSQL, dropped at the end), then
// takes `--warm` submissions and `--requests` more, counted.
//
//   node bench/request-cost.mjs                                   SQLite, 4,000 submissions
//   node bench/request-cost.mjs --database postgres://postgres@127.0.0.1:5432/test
//   node bench/request-cost.mjs --no-statements                   without the statement counters' cost
//
// Compare two builds by running this in each checkout one after the other, or both at once (the
// same load on both).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { portalAccess } from './lib/platform-data.mjs';
import { formRequest } from './lib/platform-requests.mjs';
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
    'no-statements': { type: 'boolean', default: false },
  },
});
const PORTAL = 62515; // the demo portal the CLI seeds
const dir = mkdtempSync(join(os.tmpdir(), 'svc-request-cost-'));
const out = join(dir, 'cost.txt');
const engine = opts.database ? 'PostgreSQL' : 'SQLite';
Object.assign(process.env, {
  NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${fileURLToPath(new URL('lib/request-cost.cjs', import.meta.url))}`,
  COST_PATH: '/uploads/form',
  COST_OUT: out,
  COST_LABEL: `${opts.label} ${engine}`.trim(),
  COST_PIDFILE: join(dir, 'pid'),
  COST_STATEMENTS: opts['no-statements'] ? '0' : '1',
});

let schema;
try {
  if (opts.database) schema = await benchSchema(opts.database);
  const data = schema ? { env: { DATABASE_URL: schema.url } } : { args: ['--data', join(dir, 'platform.db')] };
  const server = await startCli({ dir, data, seedContacts: Number(opts.contacts) });
  const { formGuid } = await portalAccess(dir, server.baseUrl);
  const next = formRequest(PORTAL, formGuid);
  const submit = (amount) =>
    new Promise((resolve, reject) =>
      autocannon({ url: server.formsUrl, connections: Number(opts.connections), amount, requests: [{ setupRequest: (req) => Object.assign(req, next()) }] }, (err, r) =>
        err ? reject(err) : r.non2xx || r.errors ? reject(new Error(`${r.non2xx} answers not 2xx, ${r.errors} errors`)) : resolve(r),
      ),
    );
  await submit(Number(opts.warm));
  process.kill(Number(readFileSync(join(dir, 'pid'), 'utf8')), 'SIGUSR2');
  await new Promise((resolve) => setTimeout(resolve, 150)); // the server's next sample starts the count
  const r = await submit(Number(opts.requests));
  await server.stop();
  console.log(`${readFileSync(out, 'utf8').trim()} (${Math.round(r.requests.total / r.duration)}/s)`);
} finally {
  await stopAllChildren();
  await schema?.drop();
  rmSync(dir, { recursive: true, force: true });
}
