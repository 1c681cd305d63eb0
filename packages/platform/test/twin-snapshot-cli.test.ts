/** The command line's snapshot flags, as a user runs them: `--export-on-exit FILE` writes the
 * whole state when the platform is stopped, and `--import FILE` starts another platform from it,
 * whose answers (with the same credentials) are the first one's. SQLite in memory: the flags do
 * the same on either engine (twin-snapshot.test.ts runs the snapshots themselves on both). */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startCli } from './cli-process';
import { fetchJson } from './harness';

const dir = mkdtempSync(join(tmpdir(), 'svc-snapshot-cli-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});
const credentials = join(dir, 'credentials.json');
const file = join(dir, 'state.jsonl.gz');
const common = ['--memory', '--credentials', credentials, '--no-inspector'];

const stopped = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });

describe('svc-platform --export-on-exit and --import', () => {
  it('writes the state when stopped, and a new platform starts from it', async () => {
    const first = await startCli([...common, '--export-on-exit', file], children);
    const creds = JSON.parse(readFileSync(credentials, 'utf8')) as { privateAppToken: string };
    const auth = { authorization: `Bearer ${creds.privateAppToken}` };
    const made = await fetchJson(`${first.baseUrl}/contacts/v1/contact`, {
      method: 'POST',
      body: { properties: [{ property: 'email', value: 'kept@acme.test' }] },
      headers: auth,
    });
    expect(made.status).toBe(200);
    const profile = `/contacts/v1/contact/vid/${made.json.vid}/profile`;
    const before = await fetchJson(first.baseUrl + profile, { headers: auth });
    expect(await stopped(first.child)).toBe(0);
    expect(first.output()).toContain(`snapshot written to ${file}`);
    expect(existsSync(file)).toBe(true);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);

    const second = await startCli([...common, '--import', file], children);
    expect(second.output()).toMatch(/Loaded snapshot .*: \d+ rows of \d+ tables, 0 files\./);
    expect(second.output()).not.toContain('Seeded demo portal');
    const after = await fetchJson(second.baseUrl + profile, { headers: auth });
    expect(after.status).toBe(200);
    expect(after.json).toEqual(before.json);
    expect(await stopped(second.child)).toBe(0);
  });

  it('refuses a missing or cut snapshot before serving, naming the flag and the file', async () => {
    await expect(startCli([...common, '--import', join(dir, 'nothing.gz')], children)).rejects.toThrow(
      `--import ${join(dir, 'nothing.gz')}: no such file`,
    );
    const cut = join(dir, 'cut.jsonl.gz');
    writeFileSync(cut, readFileSync(file).subarray(0, 100));
    await expect(startCli([...common, '--import', cut], children)).rejects.toThrow(
      /--import .*cut\.jsonl\.gz: the snapshot is not whole gzip/,
    );
  });
});

/** `svc-platform exec FLAGS -- node SCRIPT`, resolving to its status and output. */
function exec(args: string[]) {
  const cli = fileURLToPath(new URL('../bin/svc-platform.js', import.meta.url));
  const child = spawn(process.execPath, [cli, 'exec', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  child.stdout.on('data', (c) => (output += c));
  child.stderr.on('data', (c) => (output += c));
  return new Promise<{ code: number | null; output: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, output })),
  );
}

/** Makes a contact (`make`) or exits 0 only when it is there (`check`), with the twin's token. */
const SCRIPT = `
const [mode] = process.argv.slice(2);
const auth = { authorization: 'Bearer ' + process.env.SVC_TOKEN };
const url = process.env.SVC_BASE_URL + '/contacts/v1/contact';
if (mode == 'make') {
  const res = await fetch(url, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ properties: [{ property: 'email', value: 'exec@acme.test' }] }) });
  process.exit(res.status == 200 ? 0 : 2);
}
const res = await fetch(url + '/email/exec@acme.test/profile', { headers: auth });
process.exit(res.status == 200 ? 0 : 3);
`;

describe('svc-platform exec --export-on-exit and --import', () => {
  it("carries one run's state into the next, whose credentials are its demo portal's", async () => {
    const script = join(dir, 'script.mjs');
    writeFileSync(script, SCRIPT);
    const saved = join(dir, 'exec.jsonl.gz');
    const first = await exec(['--export-on-exit', saved, '--', process.execPath, script, 'make']);
    expect(first.code, first.output).toBe(0);
    expect(first.output).toContain(`snapshot written to ${saved}`);
    // Without the snapshot, the contact is not there.
    expect((await exec(['--', process.execPath, script, 'check'])).code).toBe(3);
    const second = await exec(['--import', saved, '--', process.execPath, script, 'check']);
    expect(second.code, second.output).toBe(0);
  });
});
