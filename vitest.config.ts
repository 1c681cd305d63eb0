import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

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
    include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 20000,
  },
});
