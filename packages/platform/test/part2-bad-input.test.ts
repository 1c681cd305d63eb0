/** Never a 500 for bad input on the part-2 routes: every one of them gets odd path values, odd
 * queries and odd bodies, and answers a 2xx or a 4xx in JSON — never a 5xx. */
import { routes } from '@svc/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
beforeAll(async () => {
  t = await startPlatform({ rateLimit: { max: 1_000_000, windowMs: 10_000 } });
});
afterAll(() => t.close());

const PATH_VALUES = ['0', '999999999999999', 'x', '..', '%2e%2e%2fetc', 'a%00b'];
const QUERIES = [
  '',
  '?limit=abc&offset=-1',
  '?limit=0',
  '?order_by=x;drop',
  '?order_by=-widgets&name__in=&id__range=1,2,3',
  '?created__gt=abc&name__icontains=%25&deleted_at__is_null=maybe',
  '?count=999999999999999&page=999999999999999&timeOffset=1&orgOffset=x',
  '?status=SUCCESS&withChannelKeys=a&withChannelKeys=b&since=-5&q=',
  '?name=a&name=b&search=%00&draft=maybe&max=0',
];
const BODIES: [string, string][] = [
  ['application/json', '{}'],
  ['application/json', '[]'],
  ['application/json', '"text"'],
  ['application/json', '{"name": 123, "content_group_id": "x", "action": "publish", "version_id": -1}'],
  ['application/json', '{"name": "x", "content_group_id": 999999999999999, "publish_date": 1e300, "topic_ids": [1.5]}'],
  ['application/json', '{"keyword": {"a": 1}, "channelGuid": [], "content": {"body": 5}, "triggerAt": -1}'],
  ['application/x-www-form-urlencoded', 'organization=&name=&value='],
  ['application/atom+xml', '<entry><title>x</title><author><email>not-an-email</email></author></entry>'],
  ['application/atom+xml', '<entry><content>&amp;&lt;</content></entry>'],
  ['multipart/form-data; boundary=b', '--b\r\nContent-Disposition: form-data; name="files"; filename="a.txt"\r\n\r\nx'],
  ['multipart/form-data', 'no boundary'],
  ['text/plain', 'garbage'],
];

describe('bad input on part-2 routes', () => {
  it('never answers 5xx, and answers errors in JSON', async () => {
    const failures: string[] = [];
    const part2 = routes.filter((r) => r.milestone == 2);
    for (const route of part2) {
      const params = Object.keys(route.params.shape);
      const at = (value: string) =>
        params.reduce(
          (p, name) => p.replace(`:${name}`, name == 'ext' ? 'json' : name == 'search_type' ? 'city' : value),
          route.path,
        );
      const bodies: ([string, string] | undefined)[] = route.bodyType == 'none' ? [undefined] : BODIES;
      // Each odd path value, each odd query and each odd body once (not every combination).
      const cases: [string, string, [string, string] | undefined][] = [
        ...PATH_VALUES.map((v): [string, string, [string, string] | undefined] => [at(v), '', bodies[0]]),
        ...QUERIES.map((q): [string, string, [string, string] | undefined] => [at(PATH_VALUES[0]), q, bodies[0]]),
        ...bodies.map((b): [string, string, [string, string] | undefined] => [at(PATH_VALUES[0]), '', b]),
      ];
      for (const [path, query, body] of cases) {
        const res = await fetch(t.baseUrl + path + query, {
          method: route.method,
          headers: { ...t.portals[0].auth, ...(body ? { 'content-type': body[0] } : {}) },
          body: body?.[1],
        });
        const text = await res.text();
        if (res.status >= 500)
          failures.push(
            `${route.method} ${path}${query} ${body?.[1].slice(0, 40) ?? ''} → ${res.status} ${text.slice(0, 200)}`,
          );
        else if (res.status >= 400 && !res.headers.get('content-type')?.includes('json'))
          failures.push(`${route.method} ${path}${query} → ${res.status} not JSON`);
      }
    }
    expect(failures).toEqual([]);
  }, 60_000);

  it('refuses the NUL character by name, in a path, a query, a body and a key (PostgreSQL cannot store it: both engines answer alike)', async () => {
    const refused = async (method: string, path: string, body?: unknown) => {
      const res = await t.call(method, path, { body });
      return [res.status, res.json.message];
    };
    const nul = 'must not contain the NUL character (\\u0000)';
    expect(await refused('GET', '/keywords/v1/keywords/a%00b.json')).toEqual([400, `path.keyword_guid: ${nul}`]);
    expect(await refused('GET', '/keywords/v1/keywords.json?search=a%00')).toEqual([400, `query.search: ${nul}`]);
    expect(
      await refused('PUT', '/keywords/v1/keywords.json', [{ keyword: 'fine' }, { keyword: 'not\u0000fine' }]),
    ).toEqual([400, `body.1.keyword: ${nul}`]);
    expect(await refused('POST', '/content/api/v2/topics', { name: 'Topic', extra: { ['odd\u0000key']: 1 } })).toEqual([
      400,
      `body.extra: keys ${nul}`,
    ]);
    // Nothing of a refused request was written.
    expect((await t.call('GET', '/keywords/v1/keywords.json?search=fine')).json.keywords).toEqual([]);
    expect((await t.call('GET', '/content/api/v2/topics?name=Topic')).json.total).toBe(0);
  });
});
