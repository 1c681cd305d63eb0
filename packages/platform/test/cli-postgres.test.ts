/** `svc-platform` on PostgreSQL, as a user runs it: `--database URL`, or env `DATABASE_URL`. The first
 * start migrates the database and seeds the demo portal; the next reuses it. PostgreSQL only by
 * nature (cli.test.ts runs the SQLite options). */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startCli } from './cli-process';
import { havePostgres, PG_URL, pgSchema, withSearchPath } from './postgres';

const schema = await pgSchema('cli');
const dir = mkdtempSync(join(tmpdir(), 'svc-cli-pg-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** The test database with a password in its URL (the server trusts the address; the password
 * must never be printed). */
const url = (() => {
  const u = new URL(withSearchPath(PG_URL, schema));
  u.password = 'not-to-be-printed';
  return u.toString();
})();
/** A server that is not there. */
const NOWHERE = 'postgres://postgres@127.0.0.1:1/test';
const file = join(dir, 'credentials.json');

const stopped = async (cli: { child: ChildProcess }) => {
  const exited = new Promise((r) => cli.child.once('exit', r));
  cli.child.kill('SIGTERM');
  return exited;
};

describe.skipIf(!havePostgres)('svc-platform --database postgres://…', () => {
  it('migrates, seeds the demo portal once and serves it; DATABASE_URL names the same database', async () => {
    const first = await startCli(['--database', url, '--credentials', file], children);
    expect(first.output()).toContain('Seeded demo portal 62515');
    await expect.poll(() => first.output()).toContain('data: PostgreSQL postgres://postgres:***@127.0.0.1:');
    expect(first.output()).not.toContain('not-to-be-printed');
    const creds = JSON.parse(readFileSync(file, 'utf8'));
    const auth = { authorization: `Bearer ${creds.privateAppToken}` };
    const get = async (base: string, path: string) => (await fetch(base + path, { headers: auth })).json();

    // The demo portal's data is in PostgreSQL, served by the process.
    expect((await get(first.baseUrl, '/email/public/v1/subscriptions')).subscriptionDefinitions.length).toBeGreaterThan(
      2,
    );
    expect((await get(first.baseUrl, '/email/public/v1/campaigns')).campaigns.length).toBeGreaterThan(1);
    expect((await get(first.baseUrl, '/content/api/v2/blogs')).objects[0].root_url).toBe(
      `${first.baseUrl}/sites/62515/blog`,
    );
    expect(
      (await get(first.baseUrl, '/broadcast/v1/channels/setting/publish/current')).map((c: { type: string }) => c.type),
    ).toEqual(['Twitter', 'LinkedIn']);
    const token = await fetch(first.baseUrl + '/auth/v1/refresh', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        client_id: creds.oauth.clientId,
        client_secret: creds.oauth.clientSecret,
        refresh_token: creds.oauth.refreshToken,
      }),
    });
    expect(token.status).toBe(200);
    const { access_token } = await token.json();
    expect(await stopped(first)).toBe(0);

    // The same database through DATABASE_URL: nothing seeded twice, the token issued before works.
    const second = await startCli(['--credentials', file], children, { DATABASE_URL: url });
    expect(second.output()).not.toContain('Seeded');
    expect(
      (await fetch(`${second.baseUrl}/content/api/v2/blogs`, { headers: { authorization: `Bearer ${access_token}` } }))
        .status,
    ).toBe(200);
    const inspect = await fetch(`${second.baseUrl}/_inspector/api/portals`, {
      headers: { authorization: `Bearer ${creds.inspectorKey}` },
    });
    expect(inspect.status).toBe(200);
    expect(await stopped(second)).toBe(0);
  }, 60_000);

  it('takes the flags over DATABASE_URL: --database, and --memory or --data for SQLite', async () => {
    const flag = await startCli(['--database', url, '--credentials', file], children, { DATABASE_URL: NOWHERE });
    await expect.poll(() => flag.output()).toContain('data: PostgreSQL');
    expect(await stopped(flag)).toBe(0);
    const memory = await startCli(['--memory', '--credentials', join(dir, 'memory.json')], children, {
      DATABASE_URL: NOWHERE,
    });
    await expect.poll(() => memory.output()).toContain('data: in memory');
    expect(await stopped(memory)).toBe(0);
  }, 30_000);

  it('refuses two places for the data, a --database or DATABASE_URL that is not PostgreSQL, and says when it cannot reach it', async () => {
    await expect(startCli(['--database', url, '--memory'], children)).rejects.toThrow(
      '--database and --data/--memory name two places for the data: give one',
    );
    await expect(startCli(['--database', join(dir, 'p.db')], children)).rejects.toThrow(
      `--database takes a PostgreSQL URL (postgres://…), not "${join(dir, 'p.db')}"; a SQLite file is --data FILE`,
    );
    await expect(
      startCli(['--credentials', file], children, { DATABASE_URL: 'mysql://root:hidden@db/x' }),
    ).rejects.toThrow('DATABASE_URL must be a PostgreSQL URL (postgres://…), not "mysql://root:***@db/x"');
    const unreachable = startCli(['--database', NOWHERE, '--credentials', file], children);
    await expect(unreachable).rejects.toThrow(
      `cannot open the data (PostgreSQL ${NOWHERE}): the database is unavailable; try again shortly`,
    );
  }, 30_000);
});
