/** Every acknowledged write survives a crash: the built CLI runs on a file database, takes writes
 * from several concurrent clients, is killed with SIGKILL mid-stream, and restarts. */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startCli } from './cli-process';

const dir = mkdtempSync(join(tmpdir(), 'svc-durability-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const start = () =>
  startCli(['--data', join(dir, 'platform.db'), '--credentials', join(dir, 'credentials.json'), '--rate-limit', '100000'], children);

describe('durability', () => {
  it('keeps every acknowledged write after SIGKILL under write load', async () => {
    const first = await start();
    const token = JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8')).privateAppToken;
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const acknowledged: string[] = [];
    let killed = false;
    const writer = async (w: number) => {
      for (let i = 0; !killed; i++) {
        const email = `w${w}-${i}@crash.test`;
        try {
          const res = await fetch(`${first.baseUrl}/contacts/v1/contact/createOrUpdate/email/${email}`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ properties: [{ property: 'firstname', value: `W${w}` }] }),
          });
          if (res.status == 200) acknowledged.push(email);
        } catch {
          return; // the server is gone
        }
      }
    };
    const writers = Array.from({ length: 8 }, (_, w) => writer(w));
    await new Promise((r) => setTimeout(r, 1500));
    first.child.kill('SIGKILL');
    killed = true;
    await Promise.all(writers);
    expect(acknowledged.length).toBeGreaterThan(100);

    const second = await start();
    const missing: string[] = [];
    for (let i = 0; i < acknowledged.length; i += 100) {
      const batch = acknowledged.slice(i, i + 100);
      const res = await fetch(`${second.baseUrl}/contacts/v1/contact/emails/batch/${batch.map(encodeURIComponent).join(',')}`, { headers });
      const found = new Set(Object.values(await res.json()).map((c) => (c as { properties: { email: { value: string } } }).properties.email.value));
      missing.push(...batch.filter((e) => !found.has(e)));
    }
    expect(missing).toEqual([]);
    second.child.kill('SIGTERM');
  }, 60_000);
});
