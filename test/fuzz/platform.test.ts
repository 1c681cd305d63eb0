/** Every catalog route of the platform under hostile input (test/fuzz/hostile.ts): no answer is a
 * 5xx, every error is JSON naming the problem, and the platform still serves afterwards. */
import fc from 'fast-check';
import { routes } from '@svc/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type TestPlatform } from '../../packages/platform/test/harness';
import { timeoutMs } from './budget';
import { fuzz, requestsFor } from './requests';

let t: TestPlatform;
beforeAll(async () => {
  // checkResponses: an answer off its catalog schema is a 500 too, so the fuzz finds those.
  t = await startPlatform({ rateLimit: { max: 1_000_000, windowMs: 10_000 } });
});
afterAll(() => t.close());

describe('fuzz: the platform', () => {
  it(
    'answers hostile input on every route with a 4xx JSON error naming the problem, never a 5xx',
    async () => {
      const auth = t.portals[0].auth;
      const request = fc
        .constantFrom(...routes)
        .chain((r) => requestsFor(r, r.host == 'forms' ? t.formsUrl : t.baseUrl, auth));
      await fuzz('the platform', request, routes.length * 8);
      // Still serving, with nothing half-written in its way.
      expect((await t.call('GET', '/contacts/v1/contacts/statistics')).status).toBe(200);
    },
    timeoutMs(120_000),
  );
});
