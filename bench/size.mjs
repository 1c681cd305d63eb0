// Size benchmark: our script-tag bundles next to peer trackers' script-tag files, all measured
// in the same run with the same compressors, printed as a markdown table.
//
//   npm run bench:size              peers at the pinned versions below
//   npm run bench:size -- --latest  peers at their latest published versions
//   node bench/size.mjs --ours      our bundles only, against their budgets (test/bundle-size.test.ts)
//
// Peers live in the git-ignored .bench-peers/ folder, never in the workspace's dependencies,
// so benchmarking cannot change what we ship or what `npm ci` installs.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants } from 'node:zlib';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PEERS_DIR = join(ROOT, '.bench-peers');
const TMP_DIR = join(PEERS_DIR, 'tmp');
const LATEST = process.argv.includes('--latest');
const OURS_ONLY = process.argv.includes('--ours');

/** Our browser bundles; the gzip budget is what `gzip -9` may produce. ESM files that an app's
 * bundler takes in are measured as it ships them (`prepare`: minified, the imports named external
 * left out); rows without a budget are context, not competitors. */
const OURS = [
  { pkg: 'tracker', file: 'dist/tracker.js', budget: 3072, required: true },
  { pkg: 'forms', file: 'dist/forms.js', budget: 7168 }, // issue 19: pre-fill, queued questions, page values, consent, honeypot, steps
  // issue 41: the React bindings' own code, on top of the tracker (which they load as a chunk of its own).
  {
    pkg: 'react',
    file: 'dist/react.mjs',
    budget: 1536,
    prepare: (path) => appBundle(path, 'react.min.mjs', ['react', '@svc/tracker', '@svc/forms']),
    notes: 'own code as an app ships it (minified; react, tracker and forms not in it)',
  },
  {
    pkg: 'tracker',
    file: 'dist/tracker.mjs',
    context: true,
    prepare: (path) => appBundle(path, 'tracker.min.mjs', []),
    notes: 'the chunk <SvcTracker> loads, as an app ships it (js-cookie and protocol in it)',
  },
];

/** Build tool used to prepare peers that ship no minified tag file. Stays pinned under --latest so the minifier is not a variable. */
const ESBUILD = { pkg: 'esbuild', version: '0.28.2' };

/**
 * Peer script-tag files. `prepare` turns the shipped file into what a site would actually load
 * and returns the path to measure; `reference` rows are context, not competitors.
 */
const PEERS = [
  { pkg: 'posthog-js', version: '1.449.2', file: 'dist/array.js' },
  { pkg: '@segment/analytics-next', version: '1.84.3', file: 'dist/umd/standalone.js' },
  { pkg: 'mixpanel-browser', version: '2.83.0', file: 'dist/mixpanel.min.js' },
  { pkg: '@snowplow/browser-tracker', version: '4.10.1', file: 'dist/index.umd.min.js' },
  {
    pkg: '@rudderstack/analytics-js',
    version: '3.34.1',
    file: 'dist/npm/modern/umd/index.js',
    prepare: minifyRudderstack,
    notes: 'esbuild --minify',
  },
  { pkg: 'analytics', version: '0.8.19', file: 'dist/analytics.min.js' },
  {
    pkg: 'plausible-tracker',
    version: '0.3.9',
    file: 'build/module/index.js',
    prepare: bundlePlausible,
    notes: 'ESM bundled by esbuild',
  },
  {
    pkg: 'js-cookie',
    version: '3.0.8',
    file: 'dist/js.cookie.min.js',
    reference: true,
    notes: 'reference: inlined in tracker.js',
  },
];

// ---------------------------------------------------------------------------------------------
// Measuring

/** Byte count of `gzip -9 -c FILE`; the CLI (not zlib) so the number matches what people check by hand, file name header included. */
function gzipSize(path) {
  return execFileSync('gzip', ['-9', '-c', path], { maxBuffer: 64 * 1024 * 1024 }).length;
}

function brotliSize(buffer) {
  return brotliCompressSync(buffer, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_LGWIN]: 24 },
  }).length;
}

function measure(path) {
  const buffer = readFileSync(path);
  return { raw: buffer.length, gzip: gzipSize(path), brotli: brotliSize(buffer) };
}

// ---------------------------------------------------------------------------------------------
// Our bundles

function readJson(path) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** An ESM build the way an app's bundler ships it: its imports bundled in but for `external`, then
 * minified with the settings of our own script-tag bundles (rollup.config.mjs), as one module. */
async function appBundle(input, name, external) {
  const { rollup } = await import('rollup');
  const { default: nodeResolve } = await import('@rollup/plugin-node-resolve');
  const { default: terser } = await import('@rollup/plugin-terser');
  const out = join(TMP_DIR, name);
  mkdirSync(TMP_DIR, { recursive: true });
  // A module-level directive ('use client') is the app bundler's to read, and not shipped.
  const onwarn = (warning, warn) => warning.code != 'MODULE_LEVEL_DIRECTIVE' && warn(warning);
  const bundle = await rollup({ input, external, onwarn, plugins: [nodeResolve({ browser: true })] });
  const terse = terser({
    ecma: 2020,
    module: true,
    toplevel: true,
    compress: { passes: 3, unsafe_arrows: true, unsafe_methods: true, pure_getters: true },
    format: { comments: false },
  });
  await bundle.write({ file: out, format: 'es', plugins: [terse] });
  await bundle.close();
  return out;
}

/** Measured rows for our bundles that exist; exits early if the tracker was never built. */
async function measureOurs() {
  const rows = [];
  for (const bundle of OURS) {
    const dir = join(ROOT, 'packages', bundle.pkg);
    const path = join(dir, bundle.file);
    if (!existsSync(path)) {
      if (!bundle.required) continue;
      console.error(`Missing ${join('packages', bundle.pkg, bundle.file)}: run \`npm run build\` first.`);
      process.exit(1);
    }
    const { name, version } = readJson(join(dir, 'package.json'));
    const measured = measure(bundle.prepare ? await bundle.prepare(path) : path);
    rows.push({
      name,
      version,
      file: bundle.file,
      budget: bundle.budget,
      context: bundle.context,
      notes: bundle.notes,
      ...measured,
    });
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// Peers

function installedVersion(pkg) {
  const manifest = join(PEERS_DIR, 'node_modules', pkg, 'package.json');
  return existsSync(manifest) ? readJson(manifest).version : undefined;
}

/**
 * Installs peers only when something is missing or at the wrong version. Every spec is passed
 * each time because `npm install --no-save` prunes packages it was not asked for.
 */
function ensurePeersInstalled() {
  const wanted = [...PEERS, ESBUILD];
  const stale = wanted.some(({ pkg, version }) => LATEST || installedVersion(pkg) !== version);
  if (!stale) return;

  // Own package.json so npm treats .bench-peers as the project instead of walking up to the workspace root.
  mkdirSync(PEERS_DIR, { recursive: true });
  const manifest = join(PEERS_DIR, 'package.json');
  if (!existsSync(manifest)) writeFileSync(manifest, '{"private":true}\n');

  const specs = wanted.map(({ pkg, version }) => `${pkg}@${LATEST && pkg !== ESBUILD.pkg ? 'latest' : version}`);
  console.error(`Installing peers into .bench-peers: ${specs.join(' ')}`);
  // npm's stdout goes to stderr so stdout stays just the table.
  execFileSync(
    'npm',
    ['install', '--prefix', '.bench-peers', '--no-save', '--no-audit', '--no-fund', '--loglevel=error', ...specs],
    { cwd: ROOT, stdio: ['ignore', 2, 2] },
  );
}

/** Runs the pinned esbuild; an empty tsconfig stops it picking up the workspace tsconfig.json (its `strict` adds "use strict" to peer output). */
function esbuild(args) {
  execFileSync(
    join(PEERS_DIR, 'node_modules', '.bin', 'esbuild'),
    [...args, '--tsconfig-raw={}', '--log-level=warning'],
    { cwd: TMP_DIR, stdio: 'inherit' },
  );
}

/** RudderStack ships its UMD build unminified; a site would serve it minified, so compare that. */
function minifyRudderstack(source) {
  const out = join(TMP_DIR, 'rudderstack-analytics.min.js');
  esbuild([source, '--minify', `--outfile=${out}`]);
  return out;
}

/** plausible-tracker has no tag file: bundle the smallest realistic use (page views, SPA navigation) into a browser IIFE. */
function bundlePlausible() {
  const entry = join(TMP_DIR, 'plausible-entry.mjs');
  const out = join(TMP_DIR, 'plausible.min.js');
  writeFileSync(
    entry,
    [
      "import Plausible from 'plausible-tracker';",
      "const p = Plausible({domain:'example.com'});",
      'p.trackPageview();',
      'p.enableAutoPageviews();',
      '',
    ].join('\n'),
  );
  esbuild([entry, '--bundle', '--minify', '--format=iife', '--platform=browser', `--outfile=${out}`]);
  return out;
}

/** Measured rows for peers; a file missing (e.g. moved in a --latest release) is reported and skipped. */
function measurePeers() {
  mkdirSync(TMP_DIR, { recursive: true });
  const rows = [];
  for (const peer of PEERS) {
    const source = join(PEERS_DIR, 'node_modules', peer.pkg, peer.file);
    if (!existsSync(source)) {
      console.error(`Skipping ${peer.pkg}: ${peer.file} not found in the installed package.`);
      continue;
    }
    const path = peer.prepare ? peer.prepare(source) : source;
    rows.push({
      name: peer.pkg,
      version: installedVersion(peer.pkg),
      file: peer.file,
      reference: peer.reference,
      notes: peer.notes,
      ...measure(path),
    });
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// Report

const num = (n) => n.toLocaleString('en-US');

function budgetCell({ gzip, budget }) {
  return gzip <= budget ? `${num(gzip)} / ${num(budget)} ok` : `over by ${num(gzip - budget)}`;
}

/** Markdown table with padded cells so it also reads well in a terminal. */
function markdownTable(header, align, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const pad = (cell, i) => (align[i] === 'right' ? cell.padStart(widths[i]) : cell.padEnd(widths[i]));
  const line = (cells) => `| ${cells.map(pad).join(' | ')} |`;
  const rule = `| ${widths.map((w, i) => (align[i] === 'right' ? `${'-'.repeat(w - 1)}:` : '-'.repeat(w))).join(' | ')} |`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

function report(ours, peers) {
  const tracker = ours[0];
  const competitors = peers.filter((p) => !p.reference).sort((a, b) => a.gzip - b.gzip);
  const ordered = [...ours, ...competitors, ...peers.filter((p) => p.reference)];

  const header = ['bundle', 'version', 'file', 'raw', 'gzip -9', 'brotli', 'gzip budget', 'ours vs peer', 'notes'];
  const align = ['left', 'left', 'left', 'right', 'right', 'right', 'left', 'right', 'left'];
  const cells = ordered.map((r) => [
    r.name,
    r.version,
    r.file,
    num(r.raw),
    num(r.gzip),
    num(r.brotli),
    r.budget ? budgetCell(r) : '',
    r.budget || r.context ? '' : `${(r.gzip / tracker.gzip).toFixed(1)}x`,
    r.notes ?? '',
  ]);
  console.log(markdownTable(header, align, cells));

  if (competitors.length) {
    const smallest = competitors[0];
    const largest = competitors.at(-1);
    console.log(
      `\ntracker.js: ${num(tracker.gzip)} B gzip — smallest peer (${smallest.name}) ${num(smallest.gzip)} B, largest (${largest.name}) ${num(largest.gzip)} B`,
    );
  }
  const react = ours.find((r) => r.name == '@svc/react');
  const chunk = ours.find((r) => r.context);
  if (react && chunk)
    console.log(
      `@svc/react: ${num(react.gzip)} B gzip on top of the tracker (its chunk ${num(chunk.gzip)} B as an app ships it, tracker.js ${num(tracker.gzip)} B)`,
    );
}

// ---------------------------------------------------------------------------------------------

const ours = await measureOurs();
if (!OURS_ONLY) ensurePeersInstalled();
report(ours, OURS_ONLY ? [] : measurePeers());

const over = ours.filter((r) => r.gzip > r.budget);
for (const r of over) console.error(`${r.file} is over its gzip budget: ${num(r.gzip)} > ${num(r.budget)} bytes.`);
if (over.length) process.exit(1);
