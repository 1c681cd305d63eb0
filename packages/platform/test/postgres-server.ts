/** The PostgreSQL server of the tests: `SVC_TEST_DATABASE_URL` (default the machine's 127.0.0.1:5432,
 * database `test`), and whether it answers. Without it the PostgreSQL tests skip locally and fail
 * under CI=true. Apart from test/postgres.ts, the vitest config reads it (to run the platform's
 * tests on PostgreSQL when there is one), so it imports nothing else of the project. */
import pg from 'pg';

export const PG_URL = process.env.SVC_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

async function reachable() {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export const havePostgres = await reachable();
if (!havePostgres) {
  if (process.env.CI)
    throw new Error(`PostgreSQL is not reachable at ${PG_URL}: CI needs it (set SVC_TEST_DATABASE_URL)`);
  console.warn(
    `PostgreSQL is not reachable at ${PG_URL}: the PostgreSQL tests are skipped (set SVC_TEST_DATABASE_URL)`,
  );
}
