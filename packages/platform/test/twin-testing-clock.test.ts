/** The admin client of `@svc/platform/testing` (the built package) for the clock and snapshots:
 * typed methods a site's suite calls, and `startTwin({ importFile })` starting from a snapshot. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminError, startTwin, type Twin } from '@svc/platform/testing';

const DAY = 24 * 3_600_000;
const dir = mkdtempSync(join(tmpdir(), 'svc-twin-clock-'));
let twin: Twin;
beforeAll(async () => {
  twin = await startTwin();
});
afterAll(async () => {
  await twin?.close();
  rmSync(dir, { recursive: true, force: true });
});

const contact = (t: Twin, method: string, path: string, body?: unknown) =>
  fetch(t.baseUrl + '/contacts/v1/contact' + path, {
    method,
    headers: { authorization: `Bearer ${t.credentials.privateAppToken}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe('the admin client: clock', () => {
  it('reads, advances and sets the clock; refusals are AdminErrors with the message', async () => {
    const { now, iso } = await twin.admin.clock.get();
    expect(new Date(now).toISOString()).toBe(iso);
    const moved = await twin.admin.clock.advance(DAY);
    expect(moved.now).toBeGreaterThanOrEqual(now + DAY);
    const target = new Date(moved.now + 7 * DAY);
    expect((await twin.admin.clock.set(target)).now).toBeGreaterThanOrEqual(target.getTime());
    const back = await twin.admin.clock.set(now).catch((err: unknown) => err);
    expect(back).toBeInstanceOf(AdminError);
    expect(back).toMatchObject({ status: 400, message: expect.stringMatching(/never goes backwards/) });
  });
});

describe('the admin client: snapshots', () => {
  it('exports, imports, and a twin starts from the file', async () => {
    expect(
      (await contact(twin, 'POST', '', { properties: [{ property: 'email', value: 'kept@acme.test' }] })).status,
    ).toBe(200);
    const file = await twin.admin.snapshot.export();
    expect(file.subarray(0, 2)).toEqual(new Uint8Array([0x1f, 0x8b]));
    await contact(
      twin,
      'DELETE',
      `/vid/${(await (await contact(twin, 'GET', '/email/kept@acme.test/profile')).json()).vid}`,
    );
    expect((await contact(twin, 'GET', '/email/kept@acme.test/profile')).status).toBe(404);
    const { imported } = await twin.admin.snapshot.import(file);
    expect(imported.tables).toBeGreaterThan(30);
    expect((await contact(twin, 'GET', '/email/kept@acme.test/profile')).status).toBe(200);
    await expect(twin.admin.snapshot.import(file.subarray(0, 50))).rejects.toMatchObject({ status: 400 });

    const saved = join(dir, 'state.jsonl.gz');
    writeFileSync(saved, file);
    const again = await startTwin({ importFile: saved });
    try {
      expect(again.portalId).toBe(twin.portalId);
      expect((await contact(again, 'GET', '/email/kept@acme.test/profile')).status).toBe(200);
    } finally {
      await again.close();
    }
  });
});
