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
  startCli(
    ['--data', join(dir, 'platform.db'), '--credentials', join(dir, 'credentials.json'), '--rate-limit', '100000'],
    children,
  );

/** Lets the writers run for 1.5 s, and on past that until `enough()` holds (30 s at most): the
 * suite runs files side by side on two cores, where 1.5 s could see 71 writes acknowledged. */
async function underLoad(enough: () => boolean) {
  const started = Date.now();
  while ((Date.now() - started < 1500 || !enough()) && Date.now() - started < 30_000)
    await new Promise((r) => setTimeout(r, 20));
}

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
    await underLoad(() => acknowledged.length > 100);
    first.child.kill('SIGKILL');
    killed = true;
    await Promise.all(writers);
    expect(acknowledged.length).toBeGreaterThan(100);

    const second = await start();
    const missing: string[] = [];
    for (let i = 0; i < acknowledged.length; i += 100) {
      const batch = acknowledged.slice(i, i + 100);
      const res = await fetch(
        `${second.baseUrl}/contacts/v1/contact/emails/batch/${batch.map(encodeURIComponent).join(',')}`,
        { headers },
      );
      const found = new Set(
        Object.values(await res.json()).map(
          (c) => (c as { properties: { email: { value: string } } }).properties.email.value,
        ),
      );
      missing.push(...batch.filter((e) => !found.has(e)));
    }
    expect(missing).toEqual([]);
    second.child.kill('SIGTERM');
    await new Promise((r) => second.child.once('exit', r));
  }, 60_000);

  it('keeps every acknowledged content write, with its version, after SIGKILL', async () => {
    const first = await start();
    const token = JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8')).privateAppToken;
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const POSTS = '/content/api/v2/blog-posts';
    const blogId = (await (await fetch(`${first.baseUrl}/content/api/v2/blogs`, { headers })).json()).objects[0].id;
    /** Post id → the body of its last acknowledged write and how many writes were acknowledged. */
    const acknowledged = new Map<number, { body: string; writes: number }>();
    let killed = false;
    const writer = async (w: number) => {
      for (let i = 0; !killed; i++) {
        try {
          const made = await fetch(first.baseUrl + POSTS, {
            method: 'POST',
            headers,
            body: JSON.stringify({ name: `W${w} ${i}`, content_group_id: blogId, post_body: 'v1' }),
          });
          if (made.status != 201) continue;
          const { id } = await made.json();
          acknowledged.set(id, { body: 'v1', writes: 1 });
          const updated = await fetch(`${first.baseUrl}${POSTS}/${id}`, {
            method: 'PUT',
            headers,
            body: JSON.stringify({ post_body: 'v2' }),
          });
          if (updated.status == 200) acknowledged.set(id, { body: 'v2', writes: 2 });
        } catch {
          return; // the server is gone
        }
      }
    };
    const writers = Array.from({ length: 6 }, (_, w) => writer(w));
    await underLoad(() => acknowledged.size > 20);
    first.child.kill('SIGKILL');
    killed = true;
    await Promise.all(writers);
    expect(acknowledged.size).toBeGreaterThan(20);

    const second = await start();
    const wrong: string[] = [];
    for (const [id, { body, writes }] of acknowledged) {
      const post = await (await fetch(`${second.baseUrl}${POSTS}/${id}`, { headers })).json();
      const versions = await (await fetch(`${second.baseUrl}${POSTS}/${id}/versions`, { headers })).json();
      // A later write may have landed unacknowledged; an acknowledged one is never missing.
      if (post.post_body != body && !(body == 'v1' && post.post_body == 'v2'))
        wrong.push(`${id}: ${post.post_body} instead of ${body}`);
      if (!Array.isArray(versions) || versions.length < writes)
        wrong.push(`${id}: ${versions.length} versions, ${writes} acknowledged writes`);
    }
    expect(wrong).toEqual([]);
    second.child.kill('SIGTERM');
  }, 60_000);
});
