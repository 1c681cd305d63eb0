/** PostgreSQL restarted under load, at the platform's level: while the server is gone every
 * request gets a clear 503 with Retry-After (never a 500, never a hang), and once it is back the
 * same platform serves again without a restart, every acknowledged write kept. The "restart" is
 * a TCP proxy in front of the test server stopped and started (connections cut, new ones
 * refused), as the machine's own server is shared. */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type TestPlatform } from './harness';
import { havePostgres, pgProxy, pgSchema } from './postgres';

const schema = await pgSchema('outage');

describe.skipIf(!havePostgres)('PostgreSQL restarted under load', () => {
  let t: TestPlatform;
  let proxy: Awaited<ReturnType<typeof pgProxy>>;
  /** What the platform logs: the background work's errors. */
  const logged: { msg: string }[] = [];
  const logger = pino(
    { level: 'error' },
    new Writable({ write: (line, _, done) => (logged.push(JSON.parse(String(line))), done()) }),
  );
  beforeAll(async () => {
    proxy = await pgProxy(schema);
    t = await startPlatform({ database: proxy.url, rateLimit: { max: 1_000_000, windowMs: 10_000 }, logger });
  });
  afterAll(async () => {
    await proxy?.start().catch(() => {}); // closing needs the database (started already unless the test failed)
    await t?.close();
    await proxy?.stop();
  });

  it('answers 503 with Retry-After while it is gone, and serves again by itself once it is back', async () => {
    const statuses: number[] = [];
    const acknowledged: string[] = [];
    let retryAfter: string | null = null;
    let running = true;
    const worker = async (w: number) => {
      for (let i = 0; running; i++) {
        const email = `outage${w}-${i}@example.test`;
        const write = await t.call('POST', `/contacts/v1/contact/createOrUpdate/email/${email}`, {
          body: { properties: [{ property: 'firstname', value: 'Out' }] },
        });
        statuses.push(write.status);
        if (write.status == 200) acknowledged.push(email);
        if (write.status == 503) retryAfter = write.headers.get('retry-after');
        const read = await t.call('GET', '/contacts/v1/lists/all/contacts/all?count=5');
        statuses.push(read.status);
        if (write.status == 503 || read.status == 503) await new Promise((r) => setTimeout(r, 100));
      }
    };
    const workers = [0, 1, 2, 3].map(worker);
    await new Promise((r) => setTimeout(r, 500));
    await proxy.stop();
    const cutAt = statuses.length;
    await new Promise((r) => setTimeout(r, 2_000));
    const whileGone = statuses.slice(cutAt + 8); // requests in flight at the cut may have finished
    await proxy.start();
    const backAt = statuses.length;
    // Back: within a few seconds every worker's requests succeed again.
    const deadline = Date.now() + 10_000;
    const recovered = () => statuses.length - backAt >= 16 && statuses.slice(-16).every((s) => s == 200);
    while (Date.now() < deadline && !recovered()) await new Promise((r) => setTimeout(r, 200));
    running = false;
    await Promise.all(workers);

    expect(statuses.filter((s) => s >= 500 && s != 503)).toEqual([]);
    expect(whileGone.length).toBeGreaterThan(0);
    expect(new Set(whileGone)).toEqual(new Set([503]));
    expect(retryAfter).toBe('1');
    expect(statuses.slice(-16)).toEqual(Array(16).fill(200));
    const missing = [];
    for (const email of acknowledged)
      if ((await t.call('GET', `/contacts/v1/contact/email/${email}/profile`)).status != 200) missing.push(email);
    expect(missing).toEqual([]);
    // The timers of the background work ran each second while it was gone: each said so once.
    for (const what of ['scheduler', 'workflow engine'])
      expect(logged.filter((l) => l.msg.startsWith(what)).length, what).toBeLessThanOrEqual(1);
    expect(
      logged.filter((l) => l.msg.startsWith('scheduler')).length +
        logged.filter((l) => l.msg.startsWith('workflow engine')).length,
    ).toBeGreaterThan(0);
  }, 40_000);
});
