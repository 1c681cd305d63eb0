/** The outbox across processes, with the built package (`npm run build` first): a companion
 * killed with SIGKILL while the platform is failing loses none of the events it accepted — the next
 * start delivers each exactly once — and one stopped with SIGTERM sends what waits before exiting. */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, countingProxy, mount, recordedEvents, startTestPlatform, tempDir, type TestPlatform } from './harness';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const SECRET = 'shared-secret-of-the-backends-0123';
let t: TestPlatform;
let proxy: Awaited<ReturnType<typeof countingProxy>>;

const CHILD = `
import express from 'express';
import { createCompanion } from '@svc/companion';
const e = process.env;
const companion = createCompanion({
  baseUrl: e.BASE_URL, auth: { accessToken: e.TOKEN }, logger: false, rateLimit: false,
  client: { retries: 0 },
  events: { outboxFile: e.OUTBOX, secret: e.SECRET, flushIntervalMs: 3600000 },
});
const app = express();
app.use('/svc', companion);
const server = app.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
`;

/** Starts the built companion in a child process; resolves with its URL once it listens. */
function startChild(outbox: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD], {
    cwd: ROOT,
    env: { ...process.env, BASE_URL: proxy.url, TOKEN: t.portals[0].privateAppToken, OUTBOX: outbox, SECRET },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the companion exited early (${code})`)));
    child.stdout.once('data', (d) => resolve({ child, url: `http://127.0.0.1:${JSON.parse(String(d)).port}/svc` }));
  });
}

const exited = (child: ChildProcess) =>
  new Promise<string | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));

async function send(url: string, n: number, prefix: string) {
  const events = Array.from({ length: n }, (_, i) => ({ eventId: 'restart', email: `${prefix}${i}@example.com` }));
  const r = await call(`${url}/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${SECRET}` },
    body: { events },
  });
  expect(r.status).toBe(202);
  return r.json.ids as string[];
}

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'packages/companion/dist/index.js')))
    throw new Error('run `npm run build` first: this test loads the built package');
  t = await startTestPlatform();
  proxy = await countingProxy(t.baseUrl);
});
afterAll(async () => {
  await proxy.close();
  await t.close();
});

describe('outbox across restarts', () => {
  it('a crash (SIGKILL) while the platform fails loses nothing; the next start delivers each event once', async () => {
    const outbox = join(tempDir(), 'outbox.jsonl');
    proxy.failing = true;
    const { child, url } = await startChild(outbox);
    const ids = [...(await send(url, 25, 'crash')), ...(await send(url, 5, 'crash-late'))];
    const gone = exited(child);
    child.kill('SIGKILL');
    expect(await gone).toBe('SIGKILL');
    expect(recordedEvents(t, ids)).toBe(0);

    // The restarted companion reaches the platform through a proxy of its own, which counts only
    // its requests (the dead process's last requests may still be in the old proxy's queue; it
    // keeps failing them).
    const fresh = await countingProxy(t.baseUrl);
    const next = await mount({
      baseUrl: fresh.url,
      auth: { accessToken: t.portals[0].privateAppToken },
      events: { outboxFile: outbox, flushIntervalMs: 3_600_000 },
    });
    try {
      await next.companion.events.flush();
      expect(recordedEvents(t, ids)).toBe(30);
      expect(fresh.forwarded.filter((r) => r == 'POST /v1/event')).toHaveLength(30);
      expect(next.companion.events.stats()).toMatchObject({ pending: 0, sent: 30 });
    } finally {
      await next.close();
      await fresh.close();
      proxy.failing = false;
    }
  });

  it('SIGTERM sends what waits, then the process ends as the signal says', async () => {
    const outbox = join(tempDir(), 'outbox.jsonl');
    const { child, url } = await startChild(outbox);
    const ids = await send(url, 7, 'term');
    expect(recordedEvents(t, ids)).toBe(0);
    const gone = exited(child);
    child.kill('SIGTERM');
    expect(await gone).toBe('SIGTERM');
    expect(recordedEvents(t, ids)).toBe(7);
  });
});
