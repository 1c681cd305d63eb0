/** Token refresh through the companion, on the platform's moved clock: OAuth credentials refreshed
 * through /auth/v1/refresh — once for 1,000 concurrent lookups that find the token expired — with
 * rotated refresh tokens kept in the file token store, so a restarted companion goes on working.
 * Through both doors. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from 'undici';
import {
  call,
  forEachDoor,
  identifiedVisitor,
  mountOn,
  newUtk,
  startTestPlatform,
  tempDir,
  type TestPlatform,
} from './harness';

forEachDoor((door) => {
  let t: TestPlatform;
  const ada = newUtk();
  const dir = tempDir();
  const tokenFile = join(dir, 'tokens.json');
  let refreshes = 0;

  beforeAll(async () => {
    t = await startTestPlatform({ rotateRefreshTokens: true, tokenLifetimeSeconds: 1800 });
    await identifiedVisitor(t, ada, { email: 'ada@example.com', firstname: 'Ada' });
  });
  afterAll(() => t.close());

  const oauth = () => ({
    oauth: {
      clientId: t.portals[0].oauth.clientId,
      clientSecret: t.portals[0].oauth.clientSecret,
      refreshToken: t.portals[0].oauth.refreshToken,
    },
  });
  const companion = () =>
    mountOn(
      t,
      {
        auth: oauth(),
        tokenFile,
        visitor: { cacheTtlMs: 0 },
        client: { rateLimit: { max: Infinity }, concurrency: 50, onRefresh: () => void refreshes++ },
      },
      { door },
    );

  describe('OAuth through the companion', () => {
    it('refreshes once for 1,000 concurrent lookups across the token\u2019s expiry', async () => {
      const m = await companion();
      const agent = new Agent({ connections: 100 });
      try {
        expect((await call(`${m.url}/visitor`, { cookie: `svcutk=${ada}` })).json.known).toBe(true);
        expect(refreshes).toBe(1); // the first call had no token yet
        t.clock.now += 1_800_000; // expired
        const answers = await Promise.all(
          Array.from({ length: 1000 }, (_, i) =>
            fetch(`${m.url}/visitor`, {
              headers: { cookie: `svcutk=${i % 10 == 0 ? ada : newUtk()}` },
              dispatcher: agent,
            } as RequestInit).then(async (r) => ({ status: r.status, body: await r.json() })),
          ),
        );
        expect(answers.filter((a) => a.status == 200)).toHaveLength(1000);
        expect(answers.filter((a) => a.body.known)).toHaveLength(100);
        expect(refreshes).toBe(2);
        const logs = m.logs.text();
        for (const secret of [t.portals[0].oauth.clientSecret, t.portals[0].oauth.refreshToken])
          expect(logs).not.toContain(secret);
      } finally {
        await agent.close();
        await m.close();
      }
    });

    it('keeps the rotated refresh token in the file store, so a restart goes on working', async () => {
      const stored = JSON.parse(readFileSync(tokenFile, 'utf8'));
      expect(stored.refreshToken).not.toBe(t.portals[0].oauth.refreshToken); // rotated
      t.clock.now += 1_800_000;
      const m = await companion(); // a new process would start from the same file
      try {
        const r = await call(`${m.url}/visitor`, { cookie: `svcutk=${ada}` });
        expect(r.json).toMatchObject({ known: true, properties: { firstname: 'Ada' } });
        expect(refreshes).toBe(3);
        expect(JSON.parse(readFileSync(tokenFile, 'utf8')).refreshToken).not.toBe(stored.refreshToken);
      } finally {
        await m.close();
      }
    });
  });
});
