/** POST /contacts/v1/contact/batch/: written at once (store/contacts/batch.ts) it must leave exactly
 * what the same items leave written one by one, history included, and fall back to one item at a
 * time for what it does not do itself. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
beforeAll(async () => {
  t = await startPlatform({ rateLimit: { max: 1_000_000, windowMs: 10_000 } }); // the one-by-one side makes hundreds of calls
});
afterAll(() => t.close());

type Item = { vid?: number; email?: string; properties: { property: string; value: string }[] };

const batch = (items: Item[]) => t.call('POST', '/contacts/v1/contact/batch/', { body: items });
const profile = async (vid: number) => (await t.call('GET', `/contacts/v1/contact/vid/${vid}/profile`)).json;
const byEmail = (email: string) => t.call('GET', `/contacts/v1/contact/email/${encodeURIComponent(email)}/profile`);
const versions = (
  p: { properties: Record<string, { versions: { value: string; 'source-type': string }[] }> },
  name: string,
) => p.properties[name]?.versions.map((v) => `${v.value} (${v['source-type']})`);

/** A small deterministic PRNG (mulberry32), so that a failure can be replayed. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 2 ** 32;
  };
}

describe('contact batch', () => {
  it('writes a contact named by several items once, each item a version, in item order', async () => {
    const vid = (
      await t.call('POST', '/contacts/v1/contact', {
        body: {
          properties: [
            { property: 'email', value: 'many@batch.test' },
            { property: 'firstname', value: 'Zero' },
          ],
        },
      })
    ).json.vid;
    t.clock.now += 1000;
    expect(
      (
        await batch([
          { email: 'MANY@batch.test', properties: [{ property: 'firstname', value: 'One' }] },
          { email: 'new@batch.test', properties: [{ property: 'firstname', value: 'New' }] },
          {
            vid,
            properties: [
              { property: 'firstname', value: 'Two' },
              { property: 'company', value: 'Acme' },
            ],
          },
          { email: 'new@batch.test', properties: [{ property: 'lastname', value: 'Twice' }] },
          { email: 'many@batch.test', properties: [{ property: 'firstname', value: 'Three' }] },
          { email: 'many@batch.test', properties: [{ property: 'firstname', value: 'Three' }] }, // changes nothing
        ])
      ).status,
    ).toBe(202);
    const many = await profile(vid);
    expect(versions(many, 'firstname')).toEqual(['Three (API)', 'Two (API)', 'One (API)', 'Zero (API)']);
    expect(many.properties.company.value).toBe('Acme');
    const made = await byEmail('new@batch.test');
    expect(made.status).toBe(200);
    expect(made.json.vid).toBeGreaterThan(vid);
    expect(made.json.properties).toMatchObject({
      firstname: { value: 'New' },
      lastname: { value: 'Twice' },
      email: { value: 'new@batch.test' },
    });
    expect(versions(made.json, 'lastname')).toEqual(['Twice (API)']);
    expect(made.json.properties.createdate.value).toBe(String(t.clock.now));
  });

  it('changes an email in a batch, and refuses one that another contact has, writing nothing', async () => {
    const a = (
      await t.call('POST', '/contacts/v1/contact', {
        body: { properties: [{ property: 'email', value: 'a@move.test' }] },
      })
    ).json.vid;
    await t.call('POST', '/contacts/v1/contact', {
      body: { properties: [{ property: 'email', value: 'b@move.test' }] },
    });
    expect(
      (
        await batch([
          { vid: a, properties: [{ property: 'email', value: 'c@move.test' }] },
          { email: 'd@move.test', properties: [] },
        ])
      ).status,
    ).toBe(202);
    expect((await byEmail('c@move.test')).json.vid).toBe(a);
    expect((await byEmail('a@move.test')).status).toBe(404);
    const taken = await batch([
      { email: 'e@move.test', properties: [] },
      { vid: a, properties: [{ property: 'email', value: 'b@move.test' }] },
    ]);
    expect(taken.status).toBe(400);
    expect(taken.json.message).toMatch(/^item 1: Contact already exists/);
    expect((await byEmail('e@move.test')).status).toBe(404);
  });

  it('refuses the whole batch for one bad item, naming it, whichever the item', async () => {
    const good = { email: 'good@bad.test', properties: [{ property: 'firstname', value: 'Good' }] };
    const cases: [Item, RegExp][] = [
      [
        { email: 'x@bad.test', properties: [{ property: 'no_such_property', value: '1' }] },
        /^item 1: Property values were not valid/,
      ],
      [{ email: 'not an email', properties: [] }, /^item 1: Email address not an email is invalid/],
      [{ vid: 987654321, properties: [] }, /^item 1: contact 987654321 does not exist/],
      [
        { email: 'y@bad.test', properties: [{ property: 'createdate', value: '1' }] },
        /^item 1: Property values were not valid/,
      ],
    ];
    for (const [bad, message] of cases) {
      const res = await batch([good, bad]);
      expect(res.status).toBe(400);
      expect(res.json.message).toMatch(message);
      expect(res.json.failureMessages[0].index).toBe(1);
      expect((await byEmail('good@bad.test')).status).toBe(404);
    }
  });

  it('leaves what the same items leave written one by one, for random batches with repeats', async () => {
    const next = random(17);
    const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)];
    const names = ['firstname', 'lastname', 'company', 'city'];
    // Existing contacts on both sides: `one` and `all` hold the same people under two domains.
    const people = Array.from({ length: 12 }, (_, i) => `p${i}`);
    const seeded: Record<string, { one: number; all: number }> = {};
    for (const p of people.slice(0, 6)) {
      const make = async (domain: string) =>
        (
          await t.call('POST', '/contacts/v1/contact', {
            body: {
              properties: [
                { property: 'email', value: `${p}@${domain}` },
                { property: 'firstname', value: 'Seed' },
              ],
            },
          })
        ).json.vid as number;
      seeded[p] = { one: await make('one.test'), all: await make('all.test') };
    }
    for (let round = 0; round < 4; round++) {
      t.clock.now += 1000;
      const items = Array.from({ length: 25 }, () => {
        const p = pick(people);
        const properties = Array.from({ length: 1 + Math.floor(next() * 2) }, () => ({
          property: pick(names),
          value: pick(['', 'x', 'y', `${p}-${round}`]),
        }));
        return { p, byVid: !!seeded[p] && next() < 0.4, properties };
      });
      const as = (domain: 'one' | 'all') => (i: (typeof items)[number]) =>
        i.byVid
          ? { vid: seeded[i.p][domain], properties: i.properties }
          : { email: `${i.p}@${domain}.test`, properties: i.properties };
      expect((await batch(items.map(as('all')))).status).toBe(202);
      for (const item of items.map(as('one'))) {
        const res = item.vid
          ? await t.call('POST', `/contacts/v1/contact/vid/${item.vid}/profile`, {
              body: { properties: item.properties },
            })
          : await t.call('POST', `/contacts/v1/contact/createOrUpdate/email/${item.email}/`, {
              body: { properties: item.properties },
            });
        expect(res.status).toBeLessThan(300);
      }
    }
    for (const p of people) {
      const [one, all] = [await byEmail(`${p}@one.test`), await byEmail(`${p}@all.test`)];
      expect(all.status).toBe(one.status);
      if (one.status != 200) continue;
      const shape = (json: { properties: Record<string, { value: string }> }) =>
        Object.fromEntries(
          Object.entries(json.properties)
            .filter(([k]) => k != 'email')
            .map(([k, v]) => [k, [v.value, versions(json as never, k)]]),
        );
      expect(shape(all.json)).toEqual(shape(one.json));
    }
  });
});
