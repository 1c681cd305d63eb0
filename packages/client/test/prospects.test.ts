/** Prospects through the client, against the real platform and its built-in sample mapping of
 * addresses to organisations (documentation ranges, e.g. 192.0.2.0/24 → Acme Analytics). */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, startTestPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
beforeAll(async () => {
  t = await startTestPlatform();
});
afterAll(() => t.close());

describe('prospects', () => {
  it('reads the timeline, one organisation and a search; hides and shows one again', async () => {
    const event = {
      eid: randomBytes(16).toString('hex'),
      k: '1',
      a: '62515',
      cts: String(t.clock.now),
      vi: randomBytes(16).toString('hex'),
      pu: 'https://www.example.com/',
    };
    await fetch(`${t.baseUrl}/collect/e`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'x-forwarded-for': '192.0.2.10' },
      body: JSON.stringify([event]),
    });
    const c = clientFor(t);
    expect((await c.prospects.timeline()).prospects.map((p) => p.organization)).toEqual(['Acme Analytics']);
    expect((await c.prospects.getOrganization('acme-analytics'))['page-views']).toBe(1);
    expect((await c.prospects.search('city', { q: 'Boston' })).prospects).toHaveLength(1);
    const names: string[] = [];
    for await (const p of c.prospects.timelineAll()) names.push(p.organization);
    expect(names).toEqual(['Acme Analytics']);
    expect(await c.prospects.hide({ organization: 'Acme Analytics' })).toBeUndefined();
    expect(await c.prospects.listHidden()).toEqual([{ organization: 'Acme Analytics' }]);
    expect((await c.prospects.timeline()).prospects).toEqual([]);
    expect(await c.prospects.unhide({ organization: 'Acme Analytics' })).toBeUndefined();
    expect((await c.prospects.timeline()).prospects).toHaveLength(1);
  });
});
