// Browser bundles: an IIFE for the script tag (minified, dependencies inlined) and an ESM build
// for bundlers (dependencies external). Node packages: ESM + CJS, dependencies external.
// Type declarations come from `tsc` (see `npm run build`).
import { rmSync } from 'node:fs';
import nodeResolve from '@rollup/plugin-node-resolve';
import terser from '@rollup/plugin-terser';
import typescript from '@rollup/plugin-typescript';

const ts = (pkg) =>
  typescript({ tsconfig: `packages/${pkg}/tsconfig.json`, declaration: false, declarationDir: undefined, emitDeclarationOnly: false, noEmitOnError: true });

/** Terser settings tuned for the size budget: modern syntax, several passes, no eval. */
const minify = terser({
  ecma: 2020,
  toplevel: true,
  compress: { passes: 3, unsafe_arrows: true, unsafe_methods: true, pure_getters: true },
  format: { comments: false },
});

/** One browser package: `src/auto.ts` → `dist/<name>.js` (IIFE), `src/index.ts` → `dist/<name>.mjs`. */
const browserPackage = (pkg, name) => [
  {
    input: `packages/${pkg}/src/auto.ts`,
    output: { file: `packages/${pkg}/dist/${name}.js`, format: 'iife', plugins: [minify] },
    plugins: [nodeResolve({ browser: true }), ts(pkg)],
    // js-cookie only builds its API object when imported: a bundle that never calls it (the form
    // embed, which reads the utk cookie itself) leaves it out.
    treeshake: { moduleSideEffects: (id) => !id.includes('/node_modules/js-cookie/') },
  },
  {
    input: `packages/${pkg}/src/index.ts`,
    output: { file: `packages/${pkg}/dist/${name}.mjs`, format: 'es' },
    // The form embed's ESM imports the tracker's shared cookie code rather than inlining it.
    external: ['js-cookie', '@svc/tracker', '@svc/protocol'],
    plugins: [ts(pkg)],
  },
];

/** Removes a package's chunks of earlier builds: their names carry a content hash, so they
 * would otherwise pile up beside the current ones. */
const freshChunks = (pkg) => ({ name: 'fresh-chunks', buildStart: () => rmSync(`packages/${pkg}/dist/chunks`, { recursive: true, force: true }) });

/** A Node package: `src/<entry>.ts` → `dist/<entry>.js` (ESM) and `.cjs`; nothing bundled but its own code. */
const nodePackage = (pkg, entries = ['index']) => ({
  input: Object.fromEntries(entries.map((e) => [e, `packages/${pkg}/src/${e}.ts`])),
  output: [
    { dir: `packages/${pkg}/dist`, format: 'es', entryFileNames: '[name].js', chunkFileNames: 'chunks/[name]-[hash].js' },
    { dir: `packages/${pkg}/dist`, format: 'cjs', entryFileNames: '[name].cjs', chunkFileNames: 'chunks/[name]-[hash].cjs' },
  ],
  external: (id) => !id.startsWith('.') && !id.startsWith('/') && !id.startsWith('\0'),
  plugins: [freshChunks(pkg), ts(pkg)],
});

export default [
  // First: the browser bundles inline (and tree-shake) its ESM build, dist/index.js.
  // signed-token: the Node-only entry (node:crypto), never imported by the browser bundles.
  nodePackage('protocol', ['index', 'signed-token']),
  ...browserPackage('tracker', 'tracker'),
  // After the tracker: forms.js inlines the tracker's shared cookie code from dist/tracker.mjs.
  ...browserPackage('forms', 'forms'),
  nodePackage('api'),
  nodePackage('platform', ['index', 'cli']),
  nodePackage('client'),
  nodePackage('companion', ['index', 'cli']),
];
