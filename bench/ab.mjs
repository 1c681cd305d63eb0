// Two platform servers side by side, measured in turns: A, B, A, B… a few seconds each. This
// machine's speed drifts by a third within minutes, so two builds measured one after the other
// differ by more than most changes do; measured in alternation, each pair sees the same machine.
// Each side is the built CLI with environment variables of its own (`--a` / `--b`, `K=V,K=V`) or
// another checkout's CLI (`--a-cli` / `--b-cli`), on a database it seeds itself (SQLite).
//
//   node bench/ab.mjs --b SVC_SOMETHING=1 --only collect,forms
//   node bench/ab.mjs --a-cli /work/wt-base/packages/platform/bin/svc-platform.js --rounds 8
//
// Prints, per measurement, each round's main-thread CPU per request (and the whole process's: its
// checkpointer thread's too) and throughput for A and B, and their medians.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { fmt, measure, rateOf } from './lib/measure.mjs';
import * as platformData from './lib/platform-data.mjs';
import {
  accepted10,
  batchRequest,
  collectRequest,
  formRequest,
  is,
  lookupRequest,
  pageRequest,
} from './lib/platform-requests.mjs';
import { startCli, stopAllChildren } from './lib/platform-servers.mjs';

const { values: opts } = parseArgs({
  options: {
    a: { type: 'string', default: '' },
    b: { type: 'string', default: '' },
    'a-cli': { type: 'string' },
    'b-cli': { type: 'string' },
    only: { type: 'string', default: 'collect,forms' },
    rounds: { type: 'string', default: '6' },
    seconds: { type: 'string', default: '3' },
    contacts: { type: 'string', default: '20000' },
  },
});
const PORTAL = 62515; // the demo portal the CLI seeds
const ROUNDS = Number(opts.rounds);
const TIMING = { seconds: Number(opts.seconds), warmup: 1 };
const envOf = (spec) =>
  Object.fromEntries(
    spec
      .split(',')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );

const MEASUREMENTS = {
  collect: (keys) => ({
    next: collectRequest(PORTAL, keys),
    valid: accepted10,
    connections: 10,
    per: 10,
    forms: false,
  }),
  forms: (_keys, access) => ({
    next: formRequest(PORTAL, access.formGuid),
    valid: is(204),
    connections: 10,
    per: 1,
    forms: true,
  }),
  lookup: (keys, access) => ({
    next: lookupRequest(access.auth, 'vid', keys),
    valid: is(200),
    connections: 1,
    per: 1,
    forms: false,
  }),
  batch: (keys, access) => ({
    next: batchRequest(access.auth, keys),
    valid: is(202),
    connections: 4,
    per: 1000,
    forms: false,
  }),
  page: (keys, access) => ({
    next: pageRequest(access.auth, keys.lo - 1 + Math.floor((keys.hi - keys.lo) / 2)),
    valid: is(200),
    connections: 1,
    per: 1,
    forms: false,
  }),
};

async function side(name, env, cli) {
  const dir = mkdtempSync(join(os.tmpdir(), `svc-ab-${name}-`));
  const file = join(dir, 'platform.db');
  const server = await startCli({
    dir,
    data: { args: ['--data', file], env },
    seedContacts: Number(opts.contacts),
    cli,
  });
  // Another checkout's keys are prepared by its own code: this one's could migrate its database
  // to a schema its server does not know.
  const { prepareKeys } = cli
    ? await import(pathToFileURL(join(dirname(cli), '../../../bench/lib/platform-data.mjs')).href)
    : platformData;
  const keys = await prepareKeys(file, join(dir, 'files'), PORTAL, Math.min(10_000, Number(opts.contacts)));
  return { name, dir, server, keys, access: await platformData.portalAccess(dir, server.baseUrl) };
}

const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const sides = [];
try {
  sides.push(await side('A', envOf(opts.a), opts['a-cli']), await side('B', envOf(opts.b), opts['b-cli']));
  console.log(`A: ${opts['a-cli'] ?? 'this checkout'} ${opts.a}\nB: ${opts['b-cli'] ?? 'this checkout'} ${opts.b}`);
  for (const key of opts.only.split(',')) {
    const figures = { A: [], B: [] };
    for (let round = 0; round < ROUNDS; round++) {
      // Alternating which goes first, so neither always measures right after the other.
      for (const s of round % 2 ? [...sides].reverse() : sides) {
        const m = MEASUREMENTS[key](s.keys, s.access);
        const r = await measure(
          { ...m, urls: [m.forms ? s.server.formsUrl : s.server.baseUrl], pids: [s.server.pid] },
          TIMING,
        );
        figures[s.name].push({ cpu: r.cpuPerRequest, all: r.processCpuPerRequest, rate: rateOf(r, m.per) });
      }
      console.log(
        `${key} round ${round + 1}: ${sides.map((s) => `${s.name} ${fmt(figures[s.name].at(-1).cpu)} µs/req (process ${fmt(figures[s.name].at(-1).all)}) ${fmt(figures[s.name].at(-1).rate)}/s`).join(' · ')}`,
      );
    }
    const med = (name, f) => median(figures[name].map(f));
    const cpuA = med('A', (x) => x.cpu);
    const cpuB = med('B', (x) => x.cpu);
    console.log(
      `${key} median: A ${fmt(cpuA)} µs/req (process ${fmt(med('A', (x) => x.all))}) ${fmt(med('A', (x) => x.rate))}/s · B ${fmt(cpuB)} µs/req (process ${fmt(med('B', (x) => x.all))}) ${fmt(med('B', (x) => x.rate))}/s · B/A CPU ${fmt(cpuB / cpuA, 3)}`,
    );
  }
} finally {
  await stopAllChildren();
  for (const s of sides) rmSync(s.dir, { recursive: true, force: true });
}
