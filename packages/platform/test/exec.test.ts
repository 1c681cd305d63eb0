/** `svc-platform exec -- CMD` as CI runs it, through the built CLI: CMD sees the twin's variables
 * and its calls work, exec exits with CMD's status, and nothing is left listening after. The
 * guide's example suite (examples/twin, docs/testing-against-the-twin.md) runs here as written. */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { havePostgres, PG_URL, pgSchema, withSearchPath } from './postgres';

const CLI = fileURLToPath(new URL('../bin/svc-platform.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'svc-exec-'));
const schema = await pgSchema('exec');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function exec(args: string[]) {
  const child = spawn(process.execPath, [CLI, 'exec', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
}

const SCRIPT = `
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('SVC_')));
const props = await fetch(env.SVC_BASE_URL + '/contacts/v1/properties', { headers: { authorization: 'Bearer ' + env.SVC_TOKEN } });
const portals = await fetch(env.SVC_ADMIN_URL + '/portals', { headers: { authorization: 'Bearer ' + env.SVC_ADMIN_KEY } });
const forms = await fetch(env.SVC_FORMS_URL + '/');
const refreshed = await fetch(env.SVC_BASE_URL + '/oauth/v1/token', {
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({ grant_type: 'refresh_token', client_id: env.SVC_CLIENT_ID, client_secret: env.SVC_CLIENT_SECRET, refresh_token: env.SVC_REFRESH_TOKEN }),
});
const keyed = await fetch(env.SVC_BASE_URL + '/content/api/v2/blog-posts?hapikey=' + env.SVC_API_KEY);
console.log(JSON.stringify({ env, statuses: [props.status, portals.status, forms.status, refreshed.status, keyed.status], portals: await portals.json() }));
process.exit(Number(process.argv[2]));
`;

// Each run starts node on the built CLI and a platform: seconds on a busy machine.
describe('svc-platform exec', { timeout: 60_000 }, () => {
  it("gives CMD the twin's variables, exits with CMD's status, and leaves nothing listening", async () => {
    const script = join(dir, 'script.mjs');
    writeFileSync(script, SCRIPT);
    const { code, stdout, stderr } = await exec(['--', process.execPath, script, '3']);
    expect(code, stderr).toBe(3);
    const seen = JSON.parse(stdout.trim().split('\n').pop()!);
    expect(Object.keys(seen.env).sort()).toEqual([
      'SVC_ADMIN_KEY',
      'SVC_ADMIN_URL',
      'SVC_API_KEY',
      'SVC_BASE_URL',
      'SVC_CLIENT_ID',
      'SVC_CLIENT_SECRET',
      'SVC_FORMS_URL',
      'SVC_PORTAL_ID',
      'SVC_REFRESH_TOKEN',
      'SVC_TOKEN',
    ]);
    expect(seen.statuses).toEqual([200, 200, 200, 200, 200]);
    expect(seen.env.SVC_ADMIN_URL).toBe(`${seen.env.SVC_BASE_URL}/_admin`);
    expect(seen.portals.portals.map((p: { portalId: number }) => p.portalId)).toContain(Number(seen.env.SVC_PORTAL_ID));
    // The key goes to CMD's environment only, never to exec's output.
    expect(stderr).not.toContain(seen.env.SVC_ADMIN_KEY);
    expect(stderr).toContain(seen.env.SVC_BASE_URL);
    for (const url of [seen.env.SVC_BASE_URL, seen.env.SVC_FORMS_URL])
      await expect(fetch(url as string)).rejects.toThrow(/fetch failed/);

    expect((await exec(['--', process.execPath, script, '0'])).code).toBe(0);
  });

  it("runs the guide's example suite as written", async () => {
    const { code, stdout, stderr } = await exec(['--', process.execPath, '--test', 'examples/twin/']);
    expect(code, stdout + stderr).toBe(0);
    expect(stdout).toMatch(/# pass [1-9]/);
    expect(stdout).toMatch(/# fail 0/);
  });

  it.skipIf(!havePostgres)("runs the guide's example suite as written on PostgreSQL (--database)", async () => {
    const database = withSearchPath(PG_URL, schema);
    const { code, stdout, stderr } = await exec([
      '--database',
      database,
      '--',
      process.execPath,
      '--test',
      'examples/twin/',
    ]);
    expect(code, stdout + stderr).toBe(0);
    expect(stdout).toMatch(/# pass [1-9]/);
    expect(stdout).toMatch(/# fail 0/);
  });

  it('passes a signal on to CMD, and exits with what CMD made of it', async () => {
    const child = spawn(
      process.execPath,
      [
        CLI,
        'exec',
        '--',
        process.execPath,
        '-e',
        "process.on('SIGTERM', () => { console.log('got SIGTERM'); process.exit(7); }); console.log('ready'); setInterval(() => {}, 1000);",
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      if (out.includes('ready')) child.kill('SIGTERM');
    });
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(out).toContain('got SIGTERM');
    expect(code).toBe(7);
  });

  it('refuses a missing command, and answers 127 for one that cannot start', async () => {
    const none = await exec([]);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/exec needs the command to run after --/);
    const missing = await exec(['--', 'no-such-command-svc-test']);
    expect(missing.code).toBe(127);
    expect(missing.stderr).toMatch(/cannot run no-such-command-svc-test: not found/);
    const bad = await exec(['--database', 'not-a-url', '--', 'true']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--database takes a PostgreSQL URL/);
  });
});
