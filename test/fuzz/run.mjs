// `npm run fuzz -- --seconds N`: the fuzz tests of test/fuzz for N seconds each (default 60) with a
// random seed, printed so that a failure can be replayed: FUZZ_SEED=<seed> npm run fuzz -- ...
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '60' }, seed: { type: 'string' } } });
if (!/^\d+$/.test(values.seconds) || Number(values.seconds) < 1)
  throw new Error(`--seconds must be a whole number of seconds, not "${values.seconds}"`);
const env = { ...process.env, FUZZ_SECONDS: values.seconds, ...(values.seed ? { FUZZ_SEED: values.seed } : {}) };
const run = spawnSync(
  process.execPath,
  ['node_modules/vitest/vitest.mjs', 'run', 'test/fuzz', '--no-file-parallelism'],
  { env, stdio: 'inherit' },
);
process.exit(run.status ?? 1);
