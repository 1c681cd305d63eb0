/** PostgreSQL for the tests, on the server of test/postgres-server.ts (`SVC_TEST_DATABASE_URL`;
 * without one the PostgreSQL tests skip locally and fail under CI=true). Each test file works in a
 * schema of its own, dropped after its tests. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll } from 'vitest';
import { tcpProxy } from '../../../test/tcp-proxy';
import { havePostgres, PG_URL } from './postgres-server';

export { havePostgres, PG_URL } from './postgres-server';

async function admin(text: string) {
  const client = new pg.Client(PG_URL);
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

const schemaName = (name: string) => `svc_test_${name.replace(/\W/g, '_')}_${randomBytes(4).toString('hex')}`;

/** `url` with `schema` as its connections' search_path (where their tables are made and found). */
export function withSearchPath(url: string, schema: string) {
  const withPath = new URL(url);
  withPath.searchParams.set('options', `-c search_path=${schema}`);
  return withPath.toString();
}

/** A fresh schema for this test file (created now, dropped with everything in it after the file). */
export async function pgSchema(name: string) {
  const schema = schemaName(name);
  if (!havePostgres) return schema;
  await admin(`CREATE SCHEMA ${schema}`);
  afterAll(() => admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
  return schema;
}

/** A database of its own for one platform (test/harness.ts): a fresh schema, named in the URL's
 * search_path as a user's own options would; `drop` removes it with everything in it. */
export async function pgDatabase(name: string) {
  if (!havePostgres)
    throw new Error(`PostgreSQL is not reachable at ${PG_URL} (set SVC_TEST_DATABASE_URL, or SVC_TEST_ENGINE=sqlite)`);
  const schema = schemaName(name);
  await admin(`CREATE SCHEMA ${schema}`);
  return { url: withSearchPath(PG_URL, schema), drop: () => admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`) };
}

/** A TCP proxy to PostgreSQL that can be stopped and started again on the same port; its URL
 * carries `schema` as the connections' search_path. */
export async function pgProxy(schema: string) {
  const target = new URL(PG_URL);
  const { port, start, stop } = await tcpProxy(target.hostname, Number(target.port || 5432));
  const url = new URL(PG_URL);
  url.host = `127.0.0.1:${port}`;
  return { url: withSearchPath(url.toString(), schema), start, stop };
}
