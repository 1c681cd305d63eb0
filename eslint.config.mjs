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
    },
  },
  // Node scripts (bins, benches, builds) and the pages' browser scripts.
  { files: ['**/*.{js,mjs,cjs}'], languageOptions: { globals: { ...globals.node } } },
  {
    files: ['demo/public/**/*.js', 'packages/platform/inspector/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
);
