/** The admin API from the command line: off by default; `--admin` makes a key, keeps it in the
 * credentials file and never prints it off a terminal; `--admin-key` gives one; an `adminKey` in
 * the credentials file turns the API on by itself; reset of the demo portal seeds its demo data. */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startCli } from './cli-process';

const dir = mkdtempSync(join(tmpdir(), 'svc-admin-cli-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const portals = (baseUrl: string, key: string) =>
  fetch(`${baseUrl}/_admin/portals`, { headers: { authorization: `Bearer ${key}` } });

describe('svc-platform --admin', { timeout: 60_000 }, () => {
  it('is off without the flag', async () => {
    const file = join(dir, 'off.json');
    const run = await startCli(['--memory', '--credentials', file], children);
    expect((await portals(run.baseUrl, 'x'.repeat(20))).status).toBe(404);
    expect(run.output()).not.toContain('admin API');
    run.child.kill('SIGTERM');
  });

  it('makes a key, keeps it in the credentials file, prints where it is but not the key', async () => {
    const file = join(dir, 'made.json');
    const run = await startCli(['--memory', '--credentials', file, '--admin'], children);
    await expect.poll(() => run.output()).toContain(`admin API: ${run.baseUrl}/_admin/`);
    const { adminKey, privateAppToken } = JSON.parse(readFileSync(file, 'utf8'));
    expect(adminKey).toMatch(/^[\w-]{32}$/);
    expect(run.output()).not.toContain(adminKey);
    expect(run.output()).toContain(`adminKey from ${file}`);
    expect((await portals(run.baseUrl, adminKey)).status).toBe(200);
    expect((await portals(run.baseUrl, privateAppToken)).status).toBe(403);

    // The demo portal's reset brings its demo data back, and its token still works.
    const auth = { authorization: `Bearer ${privateAppToken}` };
    const forms = async () =>
      ((await (await fetch(`${run.baseUrl}/contacts/v1/forms`, { headers: auth })).json()) as { name: string }[]).map(
        (f) => f.name,
      );
    const before = await forms();
    const reset = await fetch(`${run.baseUrl}/_admin/portals/62515/reset`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey}` },
    });
    expect(reset.status).toBe(200);
    expect(await forms()).toEqual(before);
    run.child.kill('SIGTERM');
  });

  it('takes --admin-key, and an adminKey in the credentials file alone turns it on', async () => {
    const file = join(dir, 'given.json');
    const key = 'a-key-given-on-the-command-line';
    const run = await startCli(['--memory', '--credentials', file, '--admin-key', key], children);
    expect((await portals(run.baseUrl, key)).status).toBe(200);
    run.child.kill('SIGTERM');

    const fromFile = join(dir, 'file.json');
    writeFileSync(fromFile, JSON.stringify({ adminKey: 'a-key-kept-in-the-credentials-file' }));
    const again = await startCli(['--memory', '--credentials', fromFile], children);
    expect((await portals(again.baseUrl, 'a-key-kept-in-the-credentials-file')).status).toBe(200);
    again.child.kill('SIGTERM');
  });
});
