/** Every admin route (packages/platform/src/admin/openapi.ts lists them) under hostile input: no
 * answer is a 5xx, every error is JSON naming the problem, and the platform still serves after. */
import type { RouteDef } from '@svc/api';
import fc from 'fast-check';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_OPERATIONS } from '../../packages/platform/src/admin/openapi';
import { startPlatform, type TestPlatform } from '../../packages/platform/test/harness';
import { timeoutMs } from './budget';
import { fuzz, requestsFor } from './requests';

const KEY = 'admin-key-of-the-fuzz-test';
let t: TestPlatform;
beforeAll(async () => {
  t = await startPlatform({ adminKey: KEY });
});
afterAll(() => t.close());

/** An admin operation in the shape requestsFor reads of a catalog route. */
const asRoute = (op: (typeof ADMIN_OPERATIONS)[number]) =>
  ({
    id: `admin ${op.method} ${op.path}`,
    method: op.method.toUpperCase(),
    path: `/_admin${op.path.replace(/\{(\w+)\}/g, ':$1')}`,
    resource: 'portal',
    public: false,
    query: op.query ?? z.object({}),
    body: op.body ?? z.object({}),
    bodyType: op.body ? 'json' : 'none',
  }) as unknown as RouteDef;

describe('fuzz: the admin API', () => {
  it(
    'answers hostile input on every admin route with a 4xx JSON error naming the problem, never a 5xx',
    async () => {
      const request = fc
        .constantFrom(...ADMIN_OPERATIONS.map(asRoute))
        .chain((r) => requestsFor(r, t.baseUrl, { authorization: `Bearer ${KEY}` }));
      await fuzz('the admin API', request, ADMIN_OPERATIONS.length * 8);
      // Rules the fuzz made must not slow what follows.
      expect(
        (await t.call('DELETE', '/_admin/faults', { portal: null, headers: { authorization: `Bearer ${KEY}` } }))
          .status,
      ).toBe(204);
      expect((await t.call('GET', '/contacts/v1/contacts/statistics')).status).toBe(200);
    },
    timeoutMs(60_000),
  );
});
