/** Prospects (§4.10) over HTTP: organisations derived from page views sent to the collector from
 * mapped addresses (X-Forwarded-For), the timeline of the most recent 20 with paging, one
 * organisation, search by city/region/country, and hiding. */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
const hex = () => randomBytes(16).toString('hex');

beforeAll(async () => {
  t = await startPlatform({
    rateLimit: { max: 1_000_000, windowMs: 10_000 },
    prospects: [
      { prefix: '10.1.', organization: 'Acme Inc', city: 'Springfield', region: 'Illinois', country: 'United States' },
      { prefix: '10.2.', organization: 'Globex', city: 'Cypress Creek', region: 'Oregon', country: 'United States' },
      { prefix: '10.3.', organization: 'Initech', city: 'Austin', region: 'Texas', country: 'United States' },
      ...Array.from({ length: 25 }, (_, i) => ({
        prefix: `10.100.${i}.`,
        organization: `Org ${String(i).padStart(2, '0')}`,
        city: 'Paris',
        region: 'Ile-de-France',
        country: 'France',
      })),
    ],
  });
});
afterAll(() => t.close());

/** A page view from `ip`, as the tracker sends it (through a proxy that sets X-Forwarded-For). */
async function view(
  ip: string,
  { utk = hex(), url = 'https://www.example.com/pricing', portal = 62515, at = t.clock.now } = {},
) {
  const res = await fetch(`${t.baseUrl}/collect/e`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain', 'x-forwarded-for': `${ip}, 10.0.0.1` },
    body: JSON.stringify([{ eid: hex(), k: '1', a: String(portal), cts: String(at), vi: utk, pu: url }]),
  });
  expect((await res.json()).accepted).toBe(1);
  return utk;
}

describe('prospects', () => {
  it('sums page views per organisation: views, visitors, leads, latest address and URL, touched domains', async () => {
    const ada = await view('10.1.0.5', { url: 'https://www.example.com/a' });
    await view('10.1.0.5', { utk: ada, url: 'https://docs.example.com/b' });
    await view('10.1.0.6', { url: 'https://www.example.com/c' });
    await view('172.16.0.1'); // no organisation: not a prospect
    // Ada becomes a contact: her visits count as a lead.
    await t.call('POST', '/contacts/v1/contact', {
      body: { properties: [{ property: 'email', value: 'ada@acme.test' }] },
    });
    const identify = [
      {
        eid: hex(),
        k: '1',
        a: '62515',
        cts: String(t.clock.now),
        vi: ada,
        pu: 'https://www.example.com/d',
        i: 'email=ada%40acme.test',
      },
    ];
    await fetch(`${t.baseUrl}/collect/e`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify(identify),
    });

    const acme = (await t.call('GET', '/prospects/v1/timeline/acme-inc')).json;
    expect(acme).toMatchObject({
      slug: 'acme-inc',
      organization: 'Acme Inc',
      'page-views': 3,
      visitors: 2,
      leads: 1,
      city: 'Springfield',
      region: 'Illinois',
      country: 'United States',
      'ip-address': '10.1.0.6',
      url: 'https://www.example.com/c',
    });
    expect(acme.touches.map((x: { domain: string }) => x.domain).sort()).toEqual([
      'docs.example.com',
      'www.example.com',
    ]);
    expect((await t.call('GET', '/prospects/v1/timeline/acme-inc', { portal: t.portals[1] })).status).toBe(404);
    expect((await t.call('GET', '/prospects/v1/timeline/nobody')).status).toBe(404);
  });

  it('pages the timeline, newest first, 20 at most, with timeOffset and orgOffset', async () => {
    const p = t.portals[1];
    const base = t.clock.now;
    for (let i = 0; i < 25; i++) await view(`10.100.${i}.1`, { portal: p.portalId, at: base - 5000 + (i % 5) * 1000 });
    const first = (await t.call('GET', '/prospects/v1/timeline', { portal: p })).json;
    expect(first.prospects).toHaveLength(20);
    expect(first['has-more']).toBe(true);
    expect(first.prospects.slice(0, 5).map((x: { organization: string }) => x.organization)).toEqual([
      'Org 04',
      'Org 09',
      'Org 14',
      'Org 19',
      'Org 24',
    ]);
    const next = (
      await t.call(
        'GET',
        `/prospects/v1/timeline?timeOffset=${first.timeOffset}&orgOffset=${encodeURIComponent(first.orgOffset)}`,
        { portal: p },
      )
    ).json;
    expect(next.prospects).toHaveLength(5);
    expect(next['has-more']).toBe(false);
    const all = [...first.prospects, ...next.prospects].map((x: { organization: string }) => x.organization);
    expect(new Set(all).size).toBe(25);
    expect((await t.call('GET', '/prospects/v1/timeline?count=3', { portal: p })).json.prospects).toHaveLength(3);
    expect((await t.call('GET', '/prospects/v1/timeline?count=50', { portal: p })).json.prospects).toHaveLength(20);
  });

  it('searches by city, region or country, and nothing else', async () => {
    await view('10.2.0.1');
    await view('10.3.0.1');
    const names = async (path: string) =>
      (await t.call('GET', path)).json.prospects.map((x: { organization: string }) => x.organization).sort();
    expect(await names('/prospects/v1/search/city?q=austin')).toEqual(['Initech']);
    expect(await names('/prospects/v1/search/region?q=Oregon')).toEqual(['Globex']);
    expect(await names('/prospects/v1/search/country?q=united')).toEqual(['Acme Inc', 'Globex', 'Initech']);
    expect(await names('/prospects/v1/search/city?q=Paris')).toEqual([]);
    const bad = await t.call('GET', '/prospects/v1/search/street?q=Main');
    expect(bad.status).toBe(400);
    expect(bad.json.message).toMatch(/^path\.search_type: /);
    expect((await t.call('GET', '/prospects/v1/search/city')).json.message).toBe('query.q: is required');
  });

  it('hides an organisation from the timeline and searches, lists it, and shows it again', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    expect((await t.call('POST', '/prospects/v1/filters', { body: 'organization=Globex', headers: form })).status).toBe(
      204,
    );
    expect((await t.call('GET', '/prospects/v1/filters')).json).toEqual([{ organization: 'Globex' }]);
    const timeline = (await t.call('GET', '/prospects/v1/timeline')).json.prospects.map(
      (x: { organization: string }) => x.organization,
    );
    expect(timeline).not.toContain('Globex');
    expect((await t.call('GET', '/prospects/v1/search/region?q=Oregon')).json.prospects).toEqual([]);
    expect((await t.call('GET', '/prospects/v1/filters', { portal: t.portals[1] })).json).toEqual([]);
    expect(
      (await t.call('DELETE', '/prospects/v1/filters', { body: 'organization=Globex', headers: form })).status,
    ).toBe(204);
    expect((await t.call('GET', '/prospects/v1/filters')).json).toEqual([]);
    expect(
      (await t.call('DELETE', '/prospects/v1/filters', { body: 'organization=Globex', headers: form })).status,
    ).toBe(404);
    expect(
      (await t.call('POST', '/prospects/v1/filters', { body: 'organization=', headers: form })).json.message,
    ).toMatch(/^body\.organization: /);
  });

  it('takes the organisation to show again as a query parameter too (older clients send no body)', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    expect(
      (await t.call('POST', '/prospects/v1/filters', { body: 'organization=Initech', headers: form })).status,
    ).toBe(204);
    expect((await t.call('GET', '/prospects/v1/filters')).json).toEqual([{ organization: 'Initech' }]);
    expect((await t.call('DELETE', '/prospects/v1/filters?organization=Initech')).status).toBe(204);
    expect((await t.call('GET', '/prospects/v1/filters')).json).toEqual([]);
    expect((await t.call('DELETE', '/prospects/v1/filters?organization=Initech')).status).toBe(404);
    const none = await t.call('DELETE', '/prospects/v1/filters');
    expect([none.status, none.json.message]).toEqual([
      400,
      'body.organization: is required (or give it as ?organization=)',
    ]);
    expect((await t.call('DELETE', '/prospects/v1/filters?organization=')).json.message).toMatch(
      /^query\.organization: /,
    );
  });

  it('believes X-Forwarded-For only from a trusted proxy: anyone else is taken at their own address', async () => {
    const direct = await startPlatform({
      trustedProxies: [],
      prospects: [
        {
          prefix: '10.1.',
          organization: 'Acme Inc',
          city: 'Springfield',
          region: 'Illinois',
          country: 'United States',
        },
      ],
    });
    try {
      const res = await fetch(`${direct.baseUrl}/collect/e`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', 'x-forwarded-for': '10.1.0.5' },
        body: JSON.stringify([
          { eid: hex(), k: '1', a: '62515', cts: String(direct.clock.now), vi: hex(), pu: 'https://www.example.com/' },
        ]),
      });
      expect((await res.json()).accepted).toBe(1);
      expect((await direct.call('GET', '/prospects/v1/timeline')).json.prospects).toEqual([]);
    } finally {
      await direct.close();
    }
  });
});
