// bench/platform.mjs on PostgreSQL: each run works in a schema of its own, made at the start and
// dropped at the end (after a failure or Ctrl-C too), as the platform's tests do
// (packages/platform/test/postgres.ts): the URL names the schema as its connections' search_path.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** Runs one statement on a connection of its own to `url`'s database. */
async function admin(url, text, params) {
  const client = new pg.Client(url);
  await client.connect();
  try {
    return (await client.query(text, params)).rows;
  } finally {
    await client.end();
  }
}

/** A fresh schema on the database of `url` (created now). `url` of the result opens it: the
 * platform's tables are made and found there, and every connection of the run carries its
 * application_name, so that `drop` can end the ones still open (a process that did not stop) before
 * it drops the schema with everything in it. `size`: bytes of its tables with their indexes. */
export async function benchSchema(baseUrl) {
  const schema = `svc_bench_${randomBytes(4).toString('hex')}`;
  const application = schema.replaceAll('_', '-');
  await admin(baseUrl, `CREATE SCHEMA ${schema}`).catch((err) => {
    throw new Error(
      `cannot make a schema on PostgreSQL at ${baseUrl.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@')}: ${err.message}`,
    );
  });
  const url = new URL(baseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  url.searchParams.set('application_name', application);
  let dropped;
  return {
    schema,
    url: url.toString(),
    size: async () => {
      const [{ bytes }] = await admin(
        baseUrl,
        `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::text AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = $1 AND c.relkind IN ('r', 'p')`,
        [schema],
      );
      return Number(bytes);
    },
    serverVersion: async () => (await admin(baseUrl, 'SHOW server_version'))[0].server_version,
    drop: () =>
      (dropped ??= (async () => {
        await admin(
          baseUrl,
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()',
          [application],
        );
        await admin(baseUrl, `DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      })()),
  };
}
