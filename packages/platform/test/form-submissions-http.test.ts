/** The form submission route over real HTTP, byte for byte where a client could tell: statuses,
 * the header lines in order (the date's value aside), the error bodies, CORS on every answer. It
 * pins what the route answered through Express, so that its plain Node handler
 * (http/form-submissions.ts) answers the same. */
import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
let form: { guid: string };
let redirecting: { guid: string };
beforeAll(async () => {
  t = await startPlatform();
  await t.call('PUT', '/contacts/v1/properties/interests', {
    body: {
      label: 'Interests',
      groupName: 'contactinformation',
      type: 'enumeration',
      fieldType: 'checkbox',
      options: ['news', 'events'].map((v) => ({ label: v, value: v })),
    },
  });
  form = (
    await t.call('POST', '/contacts/v1/forms', {
      body: { name: 'Pinned', fields: [{ name: 'email', required: true }, { name: 'interests' }] },
    })
  ).json;
  redirecting = (
    await t.call('POST', '/contacts/v1/forms', {
      body: { name: 'Away', redirect: 'https://example.com/thanks#top', fields: [{ name: 'email' }] },
    })
  ).json;
});
afterAll(() => t.close());

const PORTAL = 62515;
const URLENCODED = 'application/x-www-form-urlencoded';

interface Answer {
  status: number;
  /** The header lines as sent, names in their case and order; the date's value left out. */
  lines: [string, string][];
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** One request on {forms_url} with node:http, which keeps the raw header lines. */
function send(
  method: string,
  path: string,
  { body, headers = {} }: { body?: string | Buffer; headers?: Record<string, string> } = {},
  base = t.formsUrl,
) {
  return new Promise<Answer>((resolve, reject) => {
    const req = request(
      base + path,
      {
        method,
        headers: body === undefined ? headers : { 'content-length': String(Buffer.byteLength(body)), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const lines: [string, string][] = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2)
            lines.push([res.rawHeaders[i], res.rawHeaders[i] == 'Date' ? '…' : res.rawHeaders[i + 1]]);
          let json;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode!, lines, headers: res.headers, text, json });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const submitPath = (guid = form.guid, portal: string | number = PORTAL) => `/uploads/form/v2/${portal}/${guid}`;
const post = (
  body: string | Buffer,
  { path = submitPath(), headers = {} }: { path?: string; headers?: Record<string, string> } = {},
  base?: string,
) => send('POST', path, { body, headers: { 'content-type': URLENCODED, ...headers } }, base);
const fields = (pairs: [string, string][]) => new URLSearchParams(pairs).toString();

/** The header lines of a JSON error answer (Content-Length as sent). */
const errorLines = (a: Answer, extra: [string, string][] = []) => [
  ['Access-Control-Allow-Origin', '*'],
  ...extra,
  ['Content-Type', 'application/json; charset=utf-8'],
  ['Content-Length', String(Buffer.byteLength(a.text))],
  ['Date', '…'],
  ['Connection', 'keep-alive'],
  ['Keep-Alive', 'timeout=5'],
];

/** A JSON error answer: its status, message and header lines, and the legacy body's keys. */
function expectError(a: Answer, status: number, message: string, extraLines: [string, string][] = []) {
  expect([a.status, a.json?.message]).toEqual([status, message]);
  expect(a.lines).toEqual(errorLines(a, extraLines));
  expect(a.json).toMatchObject({
    status: 'error',
    correlationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    requestId: expect.stringMatching(/^[0-9a-f]{32}$/),
  });
}

const profile = (email: string) => t.call('GET', `/contacts/v1/contact/email/${email}/profile`);

describe('form submissions over HTTP', () => {
  it('answers 204 with no body, CORS its only header of its own', async () => {
    const a = await post(fields([['email', 'pin204@example.com']]), { headers: { origin: 'https://site.example' } });
    expect([a.status, a.text]).toEqual([204, '']);
    expect(a.lines).toEqual([
      ['Access-Control-Allow-Origin', '*'],
      ['Date', '…'],
      ['Connection', 'keep-alive'],
      ['Keep-Alive', 'timeout=5'],
    ]);
  });

  it('answers 302 with the Location of the redirect and the submission guid', async () => {
    const a = await post(fields([['email', 'pin302@example.com']]), { path: submitPath(redirecting.guid) });
    expect(a.status).toBe(302);
    expect(a.text).toBe('');
    const location = a.headers.location as string;
    expect(location).toMatch(/^https:\/\/example\.com\/thanks\?submissionGuid=[0-9a-f-]{36}#top$/);
    expect(a.lines).toEqual([
      ['Access-Control-Allow-Origin', '*'],
      ['location', location],
      ['Date', '…'],
      ['Connection', 'keep-alive'],
      ['Keep-Alive', 'timeout=5'],
      ['Content-Length', '0'],
    ]);
  });

  it('takes a repeated field as an array (a checkbox group), a query string, a trailing slash and any case of the path', async () => {
    const a = await post(
      fields([
        ['email', 'pinarray@example.com'],
        ['interests', 'news'],
        ['interests', 'events'],
      ]),
      { path: `${submitPath()}/?hapikey=x&portalId=1&utm=y` },
    );
    expect(a.status).toBe(204);
    expect((await profile('pinarray@example.com')).json.properties.interests.value).toBe('news;events');
    const upper = await post(fields([['email', 'pincase@example.com']]), {
      path: submitPath().toUpperCase().replace(form.guid.toUpperCase(), form.guid),
    });
    expect(upper.status).toBe(204);
  });

  it('reads percent-encoded path parameters, and a gzipped body', async () => {
    const encoded = submitPath(form.guid.replace(/-/g, '%2D'));
    expect((await post(fields([['email', 'pinpct@example.com']]), { path: encoded })).status).toBe(204);
    const zipped = await post(gzipSync(fields([['email', 'pingzip@example.com']])), {
      headers: { 'content-encoding': 'gzip' },
    });
    expect(zipped.status).toBe(204);
    expect((await profile('pingzip@example.com')).status).toBe(200);
  });

  it('answers 404 for an unknown form, with CORS', async () => {
    expectError(
      await post(fields([['email', 'x@example.com']]), { path: submitPath('no-such-form') }),
      404,
      "No form found with guid 'no-such-form'",
    );
  });

  it('answers 400 naming the path parameter: a portal id that is not one, or percent-encoding that is not valid', async () => {
    expectError(
      await post(fields([['email', 'x@example.com']]), { path: submitPath(form.guid, 'abc') }),
      400,
      'path.portal_id: must be a portal id',
    );
    const undecodable = await post(fields([['email', 'x@example.com']]), { path: submitPath('%ZZ') });
    expectError(undecodable, 400, 'path.form_guid: is not valid percent-encoding');
    expect(undecodable.json.category).toBe('VALIDATION_ERROR');
  });

  it('answers 413 for a body over 1mb and for more than 1,000 fields', async () => {
    expectError(await post(`email=${'x'.repeat(1_100_000)}`), 413, 'request body exceeds 1mb');
    const many = Array.from({ length: 1001 }, (_, i) => `f${i}=1`).join('&');
    const tooMany = await post(many);
    expectError(tooMany, 413, 'request body has more than 1000 fields');
    expect(tooMany.json.category).toBe('VALIDATION_ERROR');
  });

  it('answers 415 for a charset or a content encoding it cannot read', async () => {
    expectError(
      await post('email=a%40b.co', { headers: { 'content-type': `${URLENCODED}; charset=koi8-r` } }),
      415,
      'unsupported charset "KOI8-R"',
    );
    expectError(
      await post('email=a%40b.co', { headers: { 'content-encoding': 'compress' } }),
      415,
      'unsupported content encoding "compress"',
    );
  });

  it('answers 400 for a NUL in a value or a name', async () => {
    expectError(
      await post('email=a%00b%40example.com'),
      400,
      'body.email: must not contain the NUL character (\\u0000)',
    );
    expectError(await post('email=a%40b.co&x%00y=1'), 400, 'body: keys must not contain the NUL character (\\u0000)');
  });

  it('reads a body of another type (or none) as no fields', async () => {
    const a = await post(JSON.stringify({ email: 'json@example.com' }), {
      headers: { 'content-type': 'application/json' },
    });
    expectError(a, 400, "Required field 'email' is missing");
    for (const type of ['text/plain', 'bogus'])
      expectError(
        await post('email=a%40b.co', { headers: { 'content-type': type } }),
        400,
        "Required field 'email' is missing",
      );
    // A parameter without a value is passed over.
    expect(
      (await post('email=param%40example.com', { headers: { 'content-type': `${URLENCODED}; charset` } })).status,
    ).toBe(204);
    expectError(await send('POST', submitPath()), 400, "Required field 'email' is missing");
  });

  it('answers the CORS preflight 204 with the cors defaults', async () => {
    const a = await send('OPTIONS', submitPath(), {
      headers: {
        origin: 'https://site.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect([a.status, a.text]).toEqual([204, '']);
    expect(a.lines).toEqual([
      ['Access-Control-Allow-Origin', '*'],
      ['Access-Control-Allow-Methods', 'GET,HEAD,PUT,PATCH,POST,DELETE'],
      ['Vary', 'Access-Control-Request-Headers'],
      ['Access-Control-Allow-Headers', 'content-type'],
      ['Content-Length', '0'],
      ['Date', '…'],
      ['Connection', 'keep-alive'],
      ['Keep-Alive', 'timeout=5'],
    ]);
  });

  it('answers another method 405 with Allow: POST, and another path 404, both with CORS', async () => {
    for (const method of ['GET', 'PUT', 'DELETE'])
      expectError(await send(method, submitPath()), 405, `${method} is not allowed here; use POST`, [
        ['Allow', 'POST'],
      ]);
    expectError(await send('POST', '/uploads/form/v2/1'), 404, 'no route for POST /uploads/form/v2/1');
    // A GET with a path parameter that cannot be decoded names no parameter (none of a GET route).
    expectError(await send('GET', submitPath('%ZZ')), 400, 'path: is not valid percent-encoding');
    const index = await send('GET', '/');
    expect([index.status, index.headers['content-type'], index.headers['access-control-allow-origin']]).toEqual([
      200,
      'text/html; charset=utf-8',
      '*',
    ]);
  });
});

describe('the per-address limit of form submissions', () => {
  let limited: TestPlatform;
  beforeAll(async () => {
    limited = await startPlatform({ publicRateLimit: { max: 2, windowMs: 60_000 } });
  });
  afterAll(() => limited.close());

  it('answers 429 with Retry-After and CORS past it, before reading the form', async () => {
    const statuses = [];
    for (let i = 0; i < 2; i++)
      statuses.push((await post(fields([['email', `l${i}@example.com`]]), {}, limited.formsUrl)).status);
    const over = await post(fields([['email', 'l3@example.com']]), {}, limited.formsUrl);
    expect(statuses).toEqual([404, 404]);
    const wait = over.headers['retry-after'] as string;
    expect(Number(wait)).toBeGreaterThan(0);
    expectError(over, 429, `Too many requests from this address: at most 2 in 60 s; try again in ${wait} s.`, [
      ['Retry-After', wait],
    ]);
    expect(over.json).toMatchObject({ errorType: 'RATE_LIMIT', policyName: 'PER_ADDRESS' });
    limited.clock.now += 61_000;
    expect((await post(fields([['email', 'l4@example.com']]), {}, limited.formsUrl)).status).toBe(404);
  });
});
