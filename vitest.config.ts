import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** The platform's HTTP tests run twice: on SQLite with everything else, and again on PostgreSQL
 * (SVC_TEST_ENGINE=postgres, each platform in a schema of its own; see packages/platform/test/
 * harness.ts), and so does the root fuzz test of every route (test/fuzz/platform.test.ts). */
const ROOT = fileURLToPath(new URL('.', import.meta.url));
const PLATFORM_TESTS = 'packages/platform/test';
const ON_POSTGRES = [
  'attribution',
  'auth',
  'blog-v1',
  'client-error',
  'contacts',
  'contacts-batch',
  'contacts-more',
  'content-blog-posts',
  'content-collections',
  'dashboard',
  'email',
  'event-occurrences',
  'files',
  'forms',
  'inspector',
  'keywords-settings',
  'legacy-client',
  'lists',
  'part2-bad-input',
  'properties',
  'prospects',
  'rollups',
  'routes',
  'social',
  'tracking',
  'utk-links',
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
    if (!existsSync(fileURLToPath(new URL(file, import.meta.url)))) throw new Error(`vitest.config.ts names ${file}, which does not exist`);
    return file;
  });
const onPostgres = [...files(ON_POSTGRES), 'test/fuzz/platform.test.ts'];

// Locally, without a PostgreSQL server the second run is left out (with the warning
// packages/platform/test/postgres-server.ts prints); under CI=true that module throws instead.
const { havePostgres } = await import('./packages/platform/test/postgres-server.js');

export default defineConfig({
  resolve: {
    // Tests run the catalog from source; the browser packages are tested as built (dist).
    alias: {
      '@svc/protocol': fileURLToPath(new URL('packages/protocol/src/index.ts', import.meta.url)),
      '@svc/api': fileURLToPath(new URL('packages/api/src/index.ts', import.meta.url)),
      '@svc/client': fileURLToPath(new URL('packages/client/src/index.ts', import.meta.url)),
    },
  },
  test: {
    testTimeout: 20000,
    projects: [
      { extends: true, test: { name: 'all', include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts'] } },
      // Rooted here, so that it finds its files from packages/platform too.
      ...(havePostgres ? [{ extends: true as const, root: ROOT, test: { name: 'platform-postgres', include: onPostgres, env: { SVC_TEST_ENGINE: 'postgres' } } }] : []),
    ],
  },
});
