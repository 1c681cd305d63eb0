// The build as `npm start` runs it: the steps of `npm run build`, one line each instead of the
// compilers' output (shown only when a step fails), and nothing at all when no source changed
// since the last build (a hash of the sources and build settings, kept in node_modules/.cache).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STAMP = join(ROOT, 'node_modules/.cache/svc-build-stamp');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const steps = manifest.scripts.build.split(' && ');

/** Every file the build reads: package sources, manifests and configs (not the docs: editing a
 * README must not cost a minute's build at the next start). */
export function inputs(dir = join(ROOT, 'packages')) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (['node_modules', 'dist', 'test', 'docs'].includes(e.name) || e.name.endsWith('.md')) return [];
    const path = join(dir, e.name);
    return e.isDirectory() ? inputs(path) : [path];
  });
}

export function fingerprint() {
  const hash = createHash('sha256').update(manifest.scripts.build);
  const files = [...inputs(), 'rollup.config.mjs', 'tsconfig.json', 'package-lock.json']
    .map((f) => (f.startsWith('/') ? f : join(ROOT, f)))
    .sort();
  for (const file of files)
    hash
      .update(file)
      .update(String(statSync(file).size))
      .update(readFileSync(file));
  return hash.digest('hex');
}

/** Marks the current sources as built (after `npm run build`, which does not stamp). */
export const stamp = (value = fingerprint()) => {
  mkdirSync(join(ROOT, 'node_modules/.cache'), { recursive: true });
  writeFileSync(STAMP, value);
};

function build() {
  const built = readdirSync(join(ROOT, 'packages')).every((p) => existsSync(join(ROOT, 'packages', p, 'dist')));
  const current = fingerprint();
  if (built && existsSync(STAMP) && readFileSync(STAMP, 'utf8') == current) return console.log('build: up to date');
  const bin = join(ROOT, 'node_modules/.bin');
  for (const step of steps) {
    const started = Date.now();
    const [command, ...args] = step.split(' ');
    const result = spawnSync(join(bin, command), args, {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
    });
    const what = step
      .replace(/^tsc -p packages\/(\w+)\/tsconfig\.json$/, 'types of @svc/$1')
      .replace(/^rollup -c$/, 'bundles and packages (rollup)');
    if (result.status !== 0) {
      process.stdout.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
      console.error(`build: ${what} failed`);
      process.exit(1);
    }
    console.log(`build: ${what} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  }
  stamp(current);
}

if (process.argv[1] && import.meta.url == pathToFileURL(process.argv[1]).href) build();
