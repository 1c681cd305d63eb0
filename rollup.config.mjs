// Browser bundles: an IIFE for the script tag (minified, dependencies inlined) and an ESM build
// for bundlers (dependencies external). Node packages: ESM + CJS, dependencies external.
// Type declarations come from `tsc` (see `npm run build`).
import { rmSync } from 'node:fs';
import nodeResolve from '@rollup/plugin-node-resolve';
import terser from '@rollup/plugin-terser';
import typescript from '@rollup/plugin-typescript';

const ts = (pkg) =>
  typescript({
    tsconfig: `packages/${pkg}/tsconfig.json`,
    declaration: false,
    declarationDir: undefined,
    emitDeclarationOnly: false,
    noEmitOnError: true,
    // Each package's own `tsc -p` (npm run build) and the root typecheck check the types; checking
    // them again here cost about two thirds of the bundling time.
    noCheck: true,
  });

/** Terser settings tuned for the size budget: modern syntax, several passes, no eval; `compress`
 * adds to them. */
const minify = (compress) =>
  terser({
    ecma: 2020,
    toplevel: true,
    compress: { passes: 3, unsafe_arrows: true, unsafe_methods: true, pure_getters: true, ...compress },
    format: { comments: false },
  });

/** One browser package: `src/auto.ts` → `dist/<name>.js` (IIFE), `src/index.ts` → `dist/<name>.mjs`.
 * `tight`: the IIFE's output options and terser's compress options beyond the defaults. */
const browserPackage = (pkg, name, tight = {}) => [
  {
    input: `packages/${pkg}/src/auto.ts`,
    output: {
      file: `packages/${pkg}/dist/${name}.js`,
      format: 'iife',
      ...tight.output,
      plugins: [minify(tight.compress)],
    },
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
const freshChunks = (pkg) => ({
  name: 'fresh-chunks',
  buildStart: () => rmSync(`packages/${pkg}/dist/chunks`, { recursive: true, force: true }),
});

/** A Node package: `src/<entry>.ts` → `dist/<entry>.js` (ESM) and `.cjs`; nothing bundled but its own code. */
const nodePackage = (pkg, entries = ['index']) => ({
  input: Object.fromEntries(entries.map((e) => [e, `packages/${pkg}/src/${e}.ts`])),
  output: [
    {
      dir: `packages/${pkg}/dist`,
      format: 'es',
      entryFileNames: '[name].js',
      chunkFileNames: 'chunks/[name]-[hash].js',
    },
    {
      dir: `packages/${pkg}/dist`,
      format: 'cjs',
      entryFileNames: '[name].cjs',
      chunkFileNames: 'chunks/[name]-[hash].cjs',
    },
  ],
  external: (id) => !id.startsWith('.') && !id.startsWith('/') && !id.startsWith('\0'),
  plugins: [freshChunks(pkg), ts(pkg)],
});

export default [
  // First: the browser bundles inline (and tree-shake) its ESM build, dist/index.js.
  // signed-token: the Node-only entry (node:crypto), never imported by the browser bundles.
  nodePackage('protocol', ['index', 'signed-token']),
  // The tracker at its budget (packages/tracker/README.md, Size): one more pass, functions used once
  // left as functions (inlined, they gzip 6 B larger), and no 'use strict' (8 B): compiled from
  // TypeScript, its code means the same in sloppy mode (no `this` in plain calls, no eval or with,
  // no writes to `arguments`), and jsdom and Chromium tests run this very file.
  ...browserPackage('tracker', 'tracker', { output: { strict: false }, compress: { passes: 4, reduce_funcs: false } }),
  // After the tracker: forms.js inlines the tracker's shared cookie code from dist/tracker.mjs.
  ...browserPackage('forms', 'forms'),
  // The React bindings: ESM only (a React app bundles them; there is no script-tag use). React and the
  // tracker and embed stay imports, the latter two loaded when first needed. 'use client' marks the
  // module for React Server Components (Next.js App Router), which would otherwise refuse its hooks.
  {
    input: 'packages/react/src/index.ts',
    output: { file: 'packages/react/dist/react.mjs', format: 'es', banner: "'use client';" },
    external: ['react', '@svc/tracker', '@svc/forms'],
    plugins: [ts('react')],
  },
  nodePackage('api'),
  nodePackage('platform', ['index', 'cli', 'testing']),
  nodePackage('client'),
  // Two entries for sites: the Express middleware (index) and the fetch handler alone (fetch).
  nodePackage('companion', ['index', 'fetch', 'cli']),
];
