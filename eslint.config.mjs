// ESLint: typescript-eslint's recommended rules with type information on the TypeScript of every
// package (source and tests), and ESLint's recommended rules on the tree's JavaScript (scripts,
// benches, the demo and inspector pages). Formatting is Prettier's (.prettierrc.json), not ESLint's.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '.bench-peers/**',
      '**/.data/**',
      'test-results/**',
      '**/.next/**',
      '**/next-env.d.ts',
    ],
  },
  js.configs.recommended,
  {
    files: ['**/*.ts'],
    ignores: ['examples/next/**'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A leading underscore marks a name kept on purpose: a key left out by rest destructuring,
      // Express's four-argument error handler.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
      // An interface that only extends a library's type names it in our declaration files (db/open.ts).
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
      // `{}` is `unknown` after a null check (a row's column, parsed JSON), as unchecked as the
      // `unknown` this rule leaves alone; its default list of names is kept.
      '@typescript-eslint/no-base-to-string': [
        'error',
        { ignoredTypeNames: ['Error', 'RegExp', 'URL', 'URLSearchParams', '{}'] },
      ],
      // A rejection passes on what it was given (an abort signal's reason, a driver's error).
      '@typescript-eslint/prefer-promise-reject-errors': [
        'error',
        { allowThrowingAny: true, allowThrowingUnknown: true },
      ],
    },
  },
  // The engines answer a promise interface for work done at once: `async` turns a throw into a rejection.
  {
    files: ['packages/platform/src/db/engine-sqlite.ts', 'packages/platform/src/db/engine-postgres.ts'],
    rules: { '@typescript-eslint/require-await': 'off' },
  },
  // The Next.js example is a project of its own (JSX, its `@/` paths), which `next build` checks.
  {
    files: ['examples/next/**/*.{ts,tsx}'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { project: './examples/next/tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
  },
  // Tests read answers' JSON bodies, which are untyped on purpose (what came over the wire is
  // what is checked): the rules against `any` flowing on would only ask for casts there.
  {
    files: ['**/test/**/*.ts', 'test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Test doubles stand in for async interfaces (fetch, stores, jobs): `async` keeps their throw a rejection.
      '@typescript-eslint/require-await': 'off',
    },
  },
  // Node scripts (bins, benches, builds) and the pages' browser scripts.
  { files: ['**/*.{js,mjs,cjs}'], languageOptions: { globals: { ...globals.node } } },
  {
    files: ['demo/public/**/*.js', 'packages/platform/inspector/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
);
