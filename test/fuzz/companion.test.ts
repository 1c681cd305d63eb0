/** Every route of the companion under hostile input, through both doors (the Express middleware and
 * the fetch handler): cookies, path segments, query strings and bodies as a careless or hostile
 * browser or backend sends them (test/fuzz/hostile.ts). With the platform healthy behind it, no
 * answer is a 5xx and every error is JSON naming the problem (a bad path parameter by its name). */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  forEachDoor,
  mountOn,
  startTestPlatform,
  type Mounted,
  type TestPlatform,
} from '../../packages/companion/test/harness';
import { timeoutMs } from './budget';
import { hostileText, jsonBody, pathSegment, queryString } from './hostile';
import { decodablePath, fuzz, type FuzzRequest } from './requests';

const SECRET = 'a-shared-secret-for-fuzzing-backends';
/** The tracker's wire fields (the collector proxy checks them) and a backend event's fields. */
const WIRE = ['eid', 'k', 'a', 'v', 'cts', 'pu', 't', 'vi', 'u', 'b', 'nc', 'ce', 'i', 'n', 'm', 'po', 'r'];
const EVENT = ['eventId', 'email', 'utk', 'value', 'properties', 'occurredAt', 'id', 'events'];

interface CompanionRoute {
  method: string;
  path: string;
  body?: 'json' | 'text';
  keys?: string[];
  headers?: Record<string, string>;
}

/** The companion's routes (it has no catalog), as mounted at /svc. */
const ROUTES: CompanionRoute[] = [
  { method: 'GET', path: '/visitor' },
  { method: 'GET', path: '/forms/:guid' },
  { method: 'GET', path: '/forms/:guid/visitor' },
  { method: 'GET', path: '/healthz' },
  { method: 'GET', path: '/subscriptions', keys: ['token'] },
  { method: 'PUT', path: '/subscriptions', body: 'json', keys: ['token', 'subscriptions', 'unsubscribeFromAll'] },
  { method: 'GET', path: '/preferences', keys: ['token'] },
  { method: 'POST', path: '/events', body: 'json', keys: EVENT, headers: { authorization: `Bearer ${SECRET}` } },
  {
    method: 'POST',
    path: '/webhooks',
    body: 'json',
    keys: ['workflowId', 'vid', 'portalId', 'email', 'properties', 'timestamp'],
  },
  { method: 'POST', path: '/collect/e', body: 'text', keys: WIRE },
  { method: 'GET', path: '/collect/p.gif', keys: WIRE },
  { method: 'POST', path: '/e', body: 'text', keys: WIRE },
  { method: 'GET', path: '/p.gif', keys: WIRE },
  { method: 'GET', path: '/tracker.js' },
  { method: 'GET', path: '/forms.js' },
  { method: 'GET', path: '/preferences.js' },
  { method: 'GET', path: '/:script.:hash.js' },
];

/** A Cookie header a browser (or anyone) might send: the utk and consent cookies, hostile. */
const cookie = fc
  .tuple(hostileText, fc.constantFrom('yes', 'no', '', '%ZZ'))
  .map(([utk, optOut]) => `svcutk=${encodeURIComponent(utk.replace(/[\uD800-\uDFFF]/g, ''))}; __svc_opt_out=${optOut}`);

function requestsFor(route: CompanionRoute, origin: string): fc.Arbitrary<FuzzRequest> {
  const keys = route.keys ?? [];
  return fc
    .record({
      params: fc.array(pathSegment, { minLength: 2, maxLength: 2 }),
      query: queryString(keys),
      body: route.body
        ? jsonBody(route.body == 'text' ? [] : keys).map((b) => (route.body == 'text' ? `[${b}]` : b))
        : fc.constant(undefined),
      cookie,
      // A body that says it is gzip but is not.
      gzip: route.body ? fc.boolean() : fc.constant(false),
      csrf: hostileText,
    })
    .map(({ params, query, body, cookie, gzip, csrf }) => {
      let i = 0;
      const path = route.path.replace(/:([A-Za-z_]\w*)/g, () => params[i++]);
      return {
        label: `${route.method} ${route.path}`,
        fields: [...keys, 'guid', 'script', 'hash', 'token', 'event', 'events'],
        method: route.method,
        url: `${origin}${path}${query ? `?${query}` : ''}`,
        headers: {
          cookie,
          'x-csrf-token': encodeURIComponent(csrf.replace(/[\uD800-\uDFFF]/g, '')),
          ...(route.body ? { 'content-type': route.body == 'json' ? 'application/json' : 'text/plain' } : {}),
          ...(gzip ? { 'content-encoding': 'gzip' } : {}),
          ...route.headers,
        },
        body,
      };
    });
}

/** The companion's own rule on top: a path parameter that does not percent-decode is a 400 that
 * names the parameter, e.g. `the path parameter guid is not valid percent-encoding`. */
function namesTheParameter(req: FuzzRequest, answer: { status: number; text: string }) {
  if (answer.status != 400 || decodablePath(req.url)) return undefined;
  const named = /the path parameter (\w+) is not valid percent-encoding/.exec(answer.text)?.[1];
  return named && req.label.includes(`:${named}`)
    ? undefined
    : `answered 400 to a path that does not decode without naming its parameter: ${answer.text.slice(0, 200)}`;
}

forEachDoor((door) => {
  let t: TestPlatform;
  let m: Mounted;
  beforeAll(async () => {
    t = await startTestPlatform();
    m = await mountOn(
      t,
      {
        events: { secret: SECRET },
        subscriptions: { linkSecret: 'l'.repeat(40) },
        webhooks: { secret: 'w'.repeat(40) },
      },
      { door },
    );
    // A handler, so that /webhooks checks what it is sent instead of answering 404.
    m.companion.webhooks.on('workflow', () => undefined);
  });
  afterAll(async () => {
    await m.close();
    await t.close();
  });

  describe('fuzz: the companion', () => {
    it(
      'answers hostile input on every route with a 4xx JSON error, never a 5xx',
      async () => {
        const request = fc.constantFrom(...ROUTES).chain((r) => requestsFor(r, m.url));
        await fuzz(`the companion (${door})`, request, ROUTES.length * 40, namesTheParameter);
        // Still serving.
        expect((await call(`${m.url}/healthz`)).json).toMatchObject({ status: 'ok' });
      },
      timeoutMs(120_000),
    );
  });
});
