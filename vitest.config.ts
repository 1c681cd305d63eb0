import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

/** The platform's HTTP tests run twice: on SQLite with everything else, and again on PostgreSQL
 * (SVC_TEST_ENGINE=postgres, each platform in a schema of its own; see packages/platform/test/
 * harness.ts), and so does the root fuzz test of every route (test/fuzz/platform.test.ts). */
const ROOT = fileURLToPath(new URL('.', import.meta.url));
const PLATFORM_TESTS = 'packages/platform/test';
const ON_POSTGRES = [
  'admin-faults',
  'admin-journal-outbox',
  'admin-portals',
  'attribution',
  'auth',
  'blog-v1',
  'client-error',
  'collector-limit',
  'contacts',
  'contacts-batch',
  'contacts-more',
  'content-blog-posts',
  'content-collections',
  'dashboard',
  'email',
  'event-occurrences',
  'files',
  'form-submissions-http',
  'forms',
  'forms-marketing',
  'inspector',
  'intake-bulk',
  'keywords-settings',
  'legacy-client',
  'lists',
  'mail-catcher',
  'part2-bad-input',
  'properties',
  'prospects',
  'rollups',
  'routes',
  'social',
  'spam-review',
  'submission-bulk',
  'tracking',
  'twin-clock',
  'twin-snapshot',
  'utk-links',
  'webhooks',
  'workflows',
];
// Not in the list, and run once (on SQLite, or on both engines inside the file): SQLite by
// nature — checkpointer, durability (the SQLite file under SIGKILL), group-commit, migrations (of
// SQLite files), cli (--data, --memory) — and the files that open both engines themselves or
// PostgreSQL alone — engine, portal-stores-engines, contacts-engines, forms-engines,
// lists-engines, schema-postgres, migrate-postgres, rolling-window, postgres-processes,
// postgres-outage, two-processes, multi-process, workflow-processes, cli-postgres — and uuid-v7,
// which has no database.

const files = (names: string[]) =>
  names.map((name) => {
    const file = `${PLATFORM_TESTS}/${name}.test.ts`;
    if (!existsSync(fileURLToPath(new URL(file, import.meta.url))))
      throw new Error(`vitest.config.ts names ${file}, which does not exist`);
    return file;
  });
const onPostgres = [...files(ON_POSTGRES), 'test/fuzz/platform.test.ts'];

/** The files that change what the whole process sees, each in a fresh worker process (vitest's
 * default isolation): the ESM builds' tests run in vitest's jsdom environment and replace
 * globalThis.fetch, and the Express 4 test mocks `express` for the companion's own import of it,
 * which a module already loaded in a shared worker would not see. The React bindings' tests start
 * the one tracker a window has (and React keeps per-environment state), so each file needs its own. */
const ISOLATED = [
  'packages/forms/test/esm.test.ts',
  'packages/tracker/test/esm.test.ts',
  'packages/companion/test/express4.test.ts',
  'packages/react/test/*.test.ts',
];

// Locally, without a PostgreSQL server the second run is left out (with the warning
// packages/platform/test/postgres-server.ts prints); under CI=true that module throws instead.
const { havePostgres } = await import('./packages/platform/test/postgres-server.js');

export default defineConfig({
  resolve: {
    // Tests run the catalog from source; the browser packages are tested as built (dist).
    alias: {
      // Before '@svc/protocol', which would otherwise take its subpath too (…/index.ts/signed-token).
      '@svc/protocol/signed-token': fileURLToPath(new URL('packages/protocol/src/signed-token.ts', import.meta.url)),
      '@svc/protocol': fileURLToPath(new URL('packages/protocol/src/index.ts', import.meta.url)),
      '@svc/api': fileURLToPath(new URL('packages/api/src/index.ts', import.meta.url)),
      '@svc/client': fileURLToPath(new URL('packages/client/src/index.ts', import.meta.url)),
    },
  },
  test: {
    testTimeout: 20000,
    // Most of the suite waits: on HTTP, child processes, PostgreSQL, Chromium. Vitest's default on
    // this 2-core machine is one worker (the cores less one), which runs the files one after the
    // other; three keep both cores busy (four took as long, with more tests short of CPU at once).
    maxWorkers: 3,
    // A worker runs one file after the other without a fresh process and module graph for each
    // (loading the platform's sources again cost about a second of CPU per file); helpers keep no
    // state per file but through test/file-cleanup.ts, run by this setup file.
    isolate: false,
    setupFiles: ['test/setup.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'all',
          include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...ISOLATED],
        },
      },
      { extends: true, test: { name: 'isolated', include: ISOLATED, isolate: true } },
      // Rooted here, so that it finds its files from packages/platform too.
      ...(havePostgres
        ? [
            {
              extends: true as const,
              root: ROOT,
              test: { name: 'platform-postgres', include: onPostgres, env: { SVC_TEST_ENGINE: 'postgres' } },
            },
          ]
        : []),
    ],
  },
});
