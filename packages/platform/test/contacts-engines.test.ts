/** The contact and property stores on both engines, and what only PostgreSQL meets: two processes
 * (here two engines, each with its own connection pool, on one schema) writing at once. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine, Queryable } from '../src/db/engine';
import { sqliteEngine } from '../src/db/engine-sqlite';
import { openDatabase } from '../src/db/open';
import { openPostgres } from '../src/db/open-postgres';
import { txContext } from '../src/db/tx-context';
import { contentEngine } from '../src/store/content/engine';
import { type ChangedContact, contactStore } from '../src/store/contacts';
import { createPortal } from '../src/store/portals';
import { propertyStore } from '../src/store/properties';
import { socialStore } from '../src/store/social';
import { havePostgres, PG_URL, pgSchema } from './postgres';

const schema = await pgSchema('contacts_engines');
const PORTAL = 62515;
const now = () => 1_700_000_000_000;

/** The stores of one process on `engine`; `heard` collects the changes they announce. */
function stores(engine: Engine) {
  const properties = propertyStore(engine, now);
  const heard: ChangedContact[] = [];
  const contacts = contactStore(engine, properties, now, (_db, _portal, changed) => void heard.push(...changed));
  return { properties, contacts, heard };
}

const engines: [string, boolean, () => Promise<Engine>][] = [
  ['sqlite', true, async () => sqliteEngine(openDatabase(':memory:'))],
  ['postgres', havePostgres, () => openPostgres(PG_URL, { schema })],
];

for (const [name, available, open] of engines) {
  describe.skipIf(!available)(`contacts and properties on ${name}`, () => {
    let engine: Engine;
    beforeAll(async () => {
      engine = await open();
      await engine.tx((t) =>
        createPortal(
          t,
          { content: contentEngine(engine, now), social: socialStore(engine, now) },
          { id: PORTAL, name: 'p', tier: 'enterprise', now: now() },
        ),
      );
    });
    afterAll(() => engine?.close());

    it('writes a contact with its history, finds it by email, pages and searches, forgets a deleted property', async () => {
      const { properties, contacts, heard } = stores(engine);
      await properties.create(engine, PORTAL, 'shoe_size', {
        label: 'Shoe size',
        groupName: 'contactinformation',
        type: 'number',
        fieldType: 'number',
      });
      const vid = await contacts.create(engine, PORTAL, [
        { property: 'email', value: 'Ada@Example.test' },
        { property: 'firstname', value: 'Ada' },
        { property: 'shoe_size', value: '38' },
      ]);
      await contacts.update(engine, PORTAL, vid, [{ property: 'firstname', value: 'Augusta' }]);
      expect(heard.map((c) => c.properties?.firstname)).toEqual(['Ada', 'Augusta']);
      const row = (await contacts.getByEmail(engine, PORTAL, 'ADA@example.test'))!;
      expect(row.vid).toBe(vid);
      const record = await contacts.record(engine, row, { profile: true });
      expect(record.properties.firstname.versions!.map((v) => v.value)).toEqual(['Augusta', 'Ada']);
      expect(
        (await contacts.search(engine, PORTAL, 'augus', 10, 0, { property: 'shoe_size' })).rows.map((r) => r.vid),
      ).toEqual([vid]);
      expect((await contacts.page(engine, PORTAL, 10)).rows.map((r) => r.vid)).toEqual([vid]);
      await properties.remove(engine, PORTAL, 'shoe_size');
      expect(await contacts.forgetProperty(engine, PORTAL, 'shoe_size')).toBe(1);
      expect(JSON.parse((await contacts.get(engine, PORTAL, vid))!.properties)).not.toHaveProperty('shoe_size');
      // A value of a property that no longer exists is refused.
      await expect(
        contacts.update(engine, PORTAL, vid, [{ property: 'shoe_size', value: '39' }]),
      ).rejects.toMatchObject({ kind: 'invalid' });
    });

    it('gathers what a transaction announces in its context, savepoints included (txContext)', async () => {
      const gathering = txContext<string[]>();
      const seen: string[] = [];
      await engine.tx(async (t) => {
        const bound = gathering.bind(t, seen);
        await bound.tx(async (s: Queryable) => void gathering.of(s)?.push('in a savepoint'));
        gathering.of(bound)?.push('in the transaction');
        expect(gathering.of(t)).toBeUndefined();
      });
      expect(seen).toEqual(['in a savepoint', 'in the transaction']);
    });
  });
}

describe.skipIf(!havePostgres)('two processes on one PostgreSQL database', () => {
  let one: Engine;
  let two: Engine;
  beforeAll(async () => {
    [one, two] = [await openPostgres(PG_URL, { schema }), await openPostgres(PG_URL, { schema })];
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
  });

  it("sees a property the other made at once, though it had the portal's definitions cached", async () => {
    const a = stores(one);
    const b = stores(two);
    expect(await b.properties.validate(two, PORTAL, [{ property: 'hat_size', value: '7' }])).toHaveLength(1); // cached now
    await a.properties.create(one, PORTAL, 'hat_size', {
      label: 'Hat size',
      groupName: 'contactinformation',
      type: 'number',
      fieldType: 'number',
    });
    expect(await b.properties.validate(two, PORTAL, [{ property: 'hat_size', value: '7' }])).toEqual([]);
    await a.properties.update(one, PORTAL, 'hat_size', { label: 'Hat' });
    expect((await b.properties.get(two, PORTAL, 'hat_size')).label).toBe('Hat');
  });

  it('checks the definitions once per transaction, and sees its own new property at once', async () => {
    const a = stores(one);
    await one.tx(async (t) => {
      const cap = [{ property: 'cap_size', value: '1' }];
      expect(await a.properties.validate(t, PORTAL, cap)).toHaveLength(1);
      await a.properties.create(t, PORTAL, 'cap_size', {
        label: 'Cap',
        groupName: 'contactinformation',
        type: 'number',
        fieldType: 'number',
      }); // a savepoint
      expect(await a.properties.validate(t, PORTAL, cap)).toEqual([]);
    });
  });

  it('makes one contact of an email two processes write at once, both writes on it', async () => {
    const a = stores(one);
    const b = stores(two);
    for (let i = 0; i < 10; i++) {
      const email = `race${i}@example.test`;
      const [x, y] = await Promise.all([
        a.contacts.upsertByEmail(one, PORTAL, email, [{ property: 'firstname', value: 'One' }]),
        b.contacts.upsertByEmail(two, PORTAL, email, [{ property: 'lastname', value: 'Two' }]),
      ]);
      expect(x.vid).toBe(y.vid);
      expect([x.isNew, y.isNew].sort()).toEqual([false, true]);
      const props = JSON.parse((await a.contacts.get(one, PORTAL, x.vid))!.properties);
      expect(props).toMatchObject({ email, firstname: 'One', lastname: 'Two' });
    }
  });

  it('makes one contact of each email two processes batch at once, every item written to it', async () => {
    const a = stores(one);
    const b = stores(two);
    for (let round = 0; round < 5; round++) {
      // Overlapping new emails in opposite orders: one batch's insert finds some taken by the other.
      const emails = Array.from({ length: 40 }, (_, i) => `batch${round}-${i}@example.test`);
      await Promise.all([
        a.contacts.batch(
          one,
          PORTAL,
          emails.slice(0, 30).map((email) => ({ email, properties: [{ property: 'firstname', value: 'One' }] })),
        ),
        b.contacts.batch(
          two,
          PORTAL,
          emails
            .slice(10)
            .reverse()
            .map((email) => ({ email, properties: [{ property: 'lastname', value: 'Two' }] })),
        ),
      ]);
      for (const [i, email] of emails.entries()) {
        const props = JSON.parse((await a.contacts.getByEmail(one, PORTAL, email))!.properties);
        expect(props).toMatchObject({
          email,
          ...(i < 30 ? { firstname: 'One' } : {}),
          ...(i >= 10 ? { lastname: 'Two' } : {}),
        });
      }
    }
  });

  it('writes batches over the same contacts in different orders at once, none refused (rows are locked in vid order)', async () => {
    const a = stores(one);
    const b = stores(two);
    const emails = Array.from({ length: 60 }, (_, i) => `shared${i}@example.test`);
    await a.contacts.batch(
      one,
      PORTAL,
      emails.map((email) => ({ email, properties: [] })),
    );
    const shuffled = (seed: number) =>
      [...emails].sort((x, y) => ((x.length * 31 + seed * x.charCodeAt(6) + y.charCodeAt(7)) % 7) - 3);
    for (let round = 0; round < 5; round++) {
      const writes = [0, 1, 2, 3].map((k) =>
        shuffled(round * 4 + k).map((email) => ({
          email,
          properties: [{ property: 'company', value: `Batch ${round}-${k}` }],
        })),
      );
      await Promise.all(
        writes.map((items, k) =>
          k % 2 ? b.contacts.batch(two, PORTAL, items.reverse()) : a.contacts.batch(one, PORTAL, items),
        ),
      );
    }
    const companies = await Promise.all(
      emails.map(async (email) => JSON.parse((await a.contacts.getByEmail(one, PORTAL, email))!.properties).company),
    );
    expect(companies.every((c) => /^Batch 4-[0-3]$/.test(c))).toBe(true);
  });

  it('loses neither of two updates of one contact made at once (the row is locked while it is rewritten)', async () => {
    const a = stores(one);
    const b = stores(two);
    const vid = await a.contacts.create(one, PORTAL, [{ property: 'email', value: 'locked@example.test' }]);
    for (let i = 0; i < 20; i++) {
      await Promise.all([
        a.contacts.update(one, PORTAL, vid, [{ property: 'firstname', value: `First ${i}` }]),
        b.contacts.update(two, PORTAL, vid, [{ property: 'lastname', value: `Last ${i}` }]),
      ]);
      const props = JSON.parse((await a.contacts.get(one, PORTAL, vid))!.properties);
      expect([props.firstname, props.lastname]).toEqual([`First ${i}`, `Last ${i}`]);
    }
  });
});
