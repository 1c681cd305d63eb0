/** The list store on both engines: the filters answer alike, and memberships follow contact writes
 * inside their transaction. Then what only PostgreSQL meets: two processes (here two engines, each
 * with its own connection pool, on one schema) refreshing one dynamic list at once, and refreshing
 * it while the other writes contacts. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Engine, type Queryable, sql, type Transaction } from '../src/db/engine';
import { sqliteEngine } from '../src/db/engine-sqlite';
import { openDatabase } from '../src/db/open';
import { openPostgres } from '../src/db/open-postgres';
import { contentEngine } from '../src/store/content/engine';
import { type ContactsChanged, contactStore } from '../src/store/contacts';
import type { ListFilters } from '../src/store/list-filters';
import { listStore } from '../src/store/lists';
import { createPortal } from '../src/store/portals';
import { propertyStore } from '../src/store/properties';
import { socialStore } from '../src/store/social';
import { havePostgres, PG_URL, pgSchema } from './postgres';

const schema = await pgSchema('lists_engines');
const now = () => 1_700_000_000_000;

/** The stores of one process on `engine`: the lists hear the contacts' writes, in their
 * transaction, as services/wiring.ts wires them. */
function stores(engine: Engine) {
  const properties = propertyStore(engine, now);
  let heard: ContactsChanged = () => undefined;
  const contacts = contactStore(engine, properties, now, (db, portalId, changed) => heard(db, portalId, changed));
  const lists = listStore(engine, contacts, now, (fn) => (heard = fn));
  return { properties, contacts, lists };
}

const newPortal = (engine: Engine, id: number) =>
  engine.tx((t) =>
    createPortal(
      t,
      { content: contentEngine(engine, now), social: socialStore(engine, now) },
      { id, name: `portal ${id}`, tier: 'enterprise', now: now() },
    ),
  );

const membersOf = async (db: Queryable, listId: number) =>
  (
    await db.all(sql<[number], { vid: number }>('SELECT vid FROM list_members WHERE list_id = ? ORDER BY vid'), listId)
  ).map((r) => r.vid);

const props = (o: Record<string, string>) => Object.entries(o).map(([property, value]) => ({ property, value }));

const engines: [string, boolean, () => Promise<Engine>][] = [
  ['sqlite', true, async () => sqliteEngine(openDatabase(':memory:'))],
  ['postgres', havePostgres, () => openPostgres(PG_URL, { schema })],
];

for (const [name, available, open] of engines) {
  describe.skipIf(!available)(`lists on ${name}`, () => {
    const PORTAL = 62515;
    let engine: Engine;
    beforeAll(async () => {
      engine = await open();
      await newPortal(engine, PORTAL);
    });
    afterAll(() => engine?.close());

    it('evaluates every operator alike: case without ASCII, numbers as numbers, % and _ as themselves, forms submitted', async () => {
      const { properties, contacts, lists } = stores(engine);
      await properties.create(engine, PORTAL, 'score', {
        label: 'Score',
        groupName: 'contactinformation',
        type: 'number',
        fieldType: 'number',
      });
      const a = await contacts.create(
        engine,
        PORTAL,
        props({ email: 'a@ops.test', firstname: 'ÉMILE', city: 'Paris', score: '10.50', lifecyclestage: 'lead' }),
      );
      const b = await contacts.create(
        engine,
        PORTAL,
        props({ email: 'b@ops.test', firstname: 'bob', city: '100% Ly_on', score: '9' }),
      );
      const c = await contacts.create(engine, PORTAL, props({ email: 'c@ops.test' }));
      await engine.run(
        sql<[number]>(
          "INSERT INTO forms (guid, portal_id, definition, created_at, updated_at) VALUES ('ops-form', ?, '{}', 1, 1)",
        ),
        PORTAL,
      );
      await engine.run(
        sql<[number, number]>(
          "INSERT INTO form_submissions (conversion_id, portal_id, vid, form_guid, timestamp, values_json) VALUES ('ops-1', ?, ?, 'ops-form', 1, '[]')",
        ),
        PORTAL,
        b,
      );
      const cases: [ListFilters[number][number], number[]][] = [
        [{ operator: 'EQ', property: 'firstname', value: 'émile' }, [a]],
        [{ operator: 'NEQ', property: 'firstname', value: 'Émile' }, [b, c]],
        [{ operator: 'EQ', property: 'score', value: '10.5' }, [a]],
        [{ operator: 'GT', property: 'score', value: 9.5 }, [a]],
        [{ operator: 'LT', property: 'score', value: '10' }, [b]],
        [{ operator: 'CONTAINS', property: 'city', value: '0% LY_' }, [b]],
        [{ operator: 'CONTAINS', property: 'city', value: '%' }, [b]],
        [{ operator: 'CONTAINS', property: 'city', value: '_' }, [b]],
        [{ operator: 'NOT_CONTAINS', property: 'city', value: 'ly' }, [a, c]],
        [{ operator: 'IS_NOT_EMPTY', property: 'city' }, [a, b]],
        [{ operator: 'IS_EMPTY', property: 'city' }, [c]],
        [{ operator: 'SET_ANY', property: 'lifecyclestage', value: 'customer; LEAD' }, [a]],
        [{ operator: 'HAS_FILLED_OUT_FORM', form: 'ops-form' }, [b]],
      ];
      let formList = 0;
      for (const [filter, expected] of cases) {
        const list = await lists.create(engine, PORTAL, {
          name: filter.operator,
          dynamic: true,
          filters: [[{ operator: 'CONTAINS', property: 'email', value: '@ops.test' }, filter]],
        });
        expect([filter, await membersOf(engine, list.listId)]).toEqual([filter, expected]);
        expect(list.metaData.size).toBe(expected.length);
        formList = list.listId;
      }
      // A write's re-check reads the contact's submissions too: a submission's write (which
      // changes their number) moves the contact; another write does not re-check a form filter.
      await engine.run(
        sql<[number, number]>(
          "INSERT INTO form_submissions (conversion_id, portal_id, vid, form_guid, timestamp, values_json) VALUES ('ops-2', ?, ?, 'ops-form', 2, '[]')",
        ),
        PORTAL,
        c,
      );
      await contacts.update(engine, PORTAL, c, props({ firstname: 'Cy' }));
      expect(await membersOf(engine, formList)).toEqual([b]);
      await contacts.update(
        engine,
        PORTAL,
        c,
        props({ num_conversion_events: '1' }),
        { type: 'FORM', id: 'ops-2' },
        true,
      );
      expect(await membersOf(engine, formList)).toEqual([b, c]);
    });

    it('re-checks written contacts in their transaction: rolled back with it, and a refresh finds what no write announced', async () => {
      const { contacts, lists } = stores(engine);
      const list = await lists.create(engine, PORTAL, {
        name: 'Adas',
        dynamic: true,
        filters: [[{ operator: 'EQ', property: 'firstname', value: 'Ada' }]],
      });
      const ada = await contacts.create(engine, PORTAL, props({ email: 'ada@tx.test', firstname: 'Ada' }));
      const bob = await contacts.create(engine, PORTAL, props({ email: 'bob@tx.test', firstname: 'Bob' }));
      expect(await membersOf(engine, list.listId)).toEqual([ada]);

      // In a transaction that fails afterwards: the membership change goes with the write.
      await expect(
        engine.tx(async (t) => {
          await contacts.update(t, PORTAL, bob, props({ firstname: 'Ada' }));
          expect(await membersOf(t, list.listId)).toEqual([ada, bob]);
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind');
      expect(await membersOf(engine, list.listId)).toEqual([ada]);

      await contacts.update(engine, PORTAL, bob, props({ firstname: 'ada' }));
      await contacts.remove(engine, PORTAL, ada);
      expect(await membersOf(engine, list.listId)).toEqual([bob]);
      expect((await lists.get(engine, PORTAL, list.listId)).metaData.size).toBe(1);

      // Written behind the store's back (no re-check): a refresh puts it right.
      await engine.run(sql<[number]>('DELETE FROM list_members WHERE list_id = ?'), list.listId);
      await lists.refresh(engine, PORTAL, list.listId);
      expect(await membersOf(engine, list.listId)).toEqual([bob]);
    });

    it('reads the dynamic lists ahead, right after the contacts a write locks (PostgreSQL), and again after a savepoint rolled back', async () => {
      const { contacts, lists } = stores(engine);
      const list = await lists.create(engine, PORTAL, {
        name: 'Lyon',
        dynamic: true,
        filters: [[{ operator: 'EQ', property: 'city', value: 'Lyon' }]],
      });
      const vid = await contacts.create(engine, PORTAL, props({ email: 'ahead@tx.test', city: 'Paris' }));
      /** `t`, noting its statements (lists read, contact read to write, lock) in order. */
      const noting = (t: Transaction, seen: string[]): Transaction => {
        const note = (text: string) =>
          seen.push(text.includes('FROM lists') ? 'lists' : text.includes('FROM contacts') ? 'contact' : 'other');
        return {
          ...t,
          get: (q, ...params) => (note(q.text), t.get(q, ...params)),
          all: (q, ...params) => (note(q.text), t.all(q, ...params)),
          lock: (key, mode) => (seen.push(`lock ${String(key)}`), t.lock(key, mode)),
          tx: (fn) => t.tx((s) => fn(noting(s, seen))),
        };
      };
      const listsLock = `lock lists:${PORTAL}`;
      const seen: string[] = [];
      await engine.tx(async (t) => {
        await contacts.updateFromAll(noting(t, seen), PORTAL, [
          { vid, compute: () => props({ city: 'Lyon' }), source: { type: 'ANALYTICS' } },
        ]);
      });
      expect(await membersOf(engine, list.listId)).toEqual([vid]);
      // On PostgreSQL sent with the contact's read, after it; on SQLite read by the re-check alone.
      const ahead = name == 'postgres';
      expect(seen.filter((s) => s == 'lists')).toHaveLength(1);
      expect(seen.indexOf('contact')).toBeLessThan(seen.indexOf(listsLock));
      expect(seen.indexOf(listsLock)).toBeLessThan(seen.indexOf('lists'));
      if (ahead) expect(seen.slice(0, 3)).toEqual(['contact', listsLock, 'lists']);

      // Read ahead in a savepoint that rolls back (its lock went with it): the re-check takes the
      // lock and reads the lists again.
      const again: string[] = [];
      await engine.tx(async (t) => {
        const w = noting(t, again);
        await w
          .tx(async (s) => {
            await contacts.getByEmailToWrite(s, PORTAL, 'ahead@tx.test');
            throw new Error('changed my mind');
          })
          .catch(() => {});
        await contacts.update(w, PORTAL, vid, props({ city: 'Paris' }));
      });
      expect(await membersOf(engine, list.listId)).toEqual([]);
      expect(again.filter((s) => s == 'lists')).toHaveLength(ahead ? 2 : 1);
      expect(again.filter((s) => s == listsLock)).toHaveLength(ahead ? 2 : 1);
    });

    it('reads the contacts a write will update ahead, with the lists after them (PostgreSQL), and again after a savepoint rolled back', async () => {
      const { contacts, lists } = stores(engine);
      const list = await lists.create(engine, PORTAL, {
        name: 'Nantes',
        dynamic: true,
        filters: [[{ operator: 'EQ', property: 'city', value: 'Nantes' }]],
      });
      const [a, b] = [
        await contacts.create(engine, PORTAL, props({ email: 'a-ahead@tx.test' })),
        await contacts.create(engine, PORTAL, props({ email: 'b-ahead@tx.test' })),
      ];
      const noting = (t: Transaction, seen: string[]): Transaction => {
        const note = (text: string) =>
          seen.push(text.includes('FROM lists') ? 'lists' : text.includes('FROM contacts') ? 'contacts' : 'other');
        return {
          ...t,
          get: (q, ...p) => (note(q.text), t.get(q, ...p)),
          all: (q, ...p) => (note(q.text), t.all(q, ...p)),
          lock: (key, mode) => (seen.push('lock'), t.lock(key, mode)),
          tx: (fn) => t.tx((s) => fn(noting(s, seen))),
        };
      };
      const toNantes = (vid: number) => ({
        vid,
        compute: () => props({ city: 'Nantes' }),
        source: { type: 'ANALYTICS' as const },
      });
      const ahead = name == 'postgres';
      const seen: string[] = [];
      await engine.tx(async (t) => {
        const w = noting(t, seen);
        contacts.readToWriteAhead(w, PORTAL, [b, a]);
        await w.get(sql('SELECT 1 AS one'));
        await contacts.updateFromAll(w, PORTAL, [toNantes(a), toNantes(b)]);
      });
      expect(await membersOf(engine, list.listId)).toEqual([a, b].sort((x, y) => x - y));
      // Read once, before anything else the write sends after it; on SQLite by the update alone.
      const reads = seen.filter((s) => s == 'contacts').length;
      expect(reads).toBe(ahead ? 1 : 2);
      if (ahead) expect(seen.slice(0, 4)).toEqual(['contacts', 'lock', 'lists', 'other']);

      // Read ahead in a savepoint that rolls back (the rows' locks went with it): read again.
      const again: string[] = [];
      await engine.tx(async (t) => {
        const w = noting(t, again);
        await w
          .tx(async (s) => {
            contacts.readToWriteAhead(s, PORTAL, [a]);
            await s.get(sql('SELECT 1 AS one'));
            throw new Error('changed my mind');
          })
          .catch(() => {});
        await contacts.updateFromAll(w, PORTAL, [
          { vid: a, compute: () => props({ city: 'Brest' }), source: { type: 'ANALYTICS' } },
        ]);
      });
      expect(await membersOf(engine, list.listId)).toEqual([b]);
      expect(again.filter((s) => s == 'contacts')).toHaveLength(ahead ? 2 : 1);
    });
  });
}

describe.skipIf(!havePostgres)('one dynamic list, two processes on one PostgreSQL database', () => {
  const PORTAL = 70001;
  const OTHER = 70002;
  const filters: ListFilters = [[{ operator: 'EQ', property: 'firstname', value: 'in' }]];
  let one: Engine;
  let two: Engine;
  beforeAll(async () => {
    [one, two] = [await openPostgres(PG_URL, { schema }), await openPostgres(PG_URL, { schema })];
    await newPortal(one, PORTAL);
    await newPortal(one, OTHER);
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
  });

  /** The vids whose firstname is `in` now: what the list must hold. */
  const matching = async () =>
    (
      await one.all(
        sql<[number], { vid: number; properties: string }>(
          'SELECT vid, properties FROM contacts WHERE portal_id = ? AND deleted = 0 ORDER BY vid',
        ),
        PORTAL,
      )
    )
      .filter((r) => JSON.parse(r.properties).firstname == 'in')
      .map((r) => r.vid);

  it('numbers the lists both processes make at once one after the other (internalListId)', async () => {
    const a = stores(one);
    const b = stores(two);
    // In two portals, whose lists are made side by side.
    const made = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i % 2 ? b.lists.create(two, OTHER, { name: `n${i}` }) : a.lists.create(one, PORTAL, { name: `n${i}` }),
      ),
    );
    const ids = made.map((l) => l.internalListId).sort((x, y) => x - y);
    expect(ids).toEqual(Array.from({ length: 20 }, (_, i) => ids[0] + i));
    for (const l of made)
      await (l.portalId == PORTAL ? a.lists.remove(one, PORTAL, l.listId) : b.lists.remove(two, OTHER, l.listId));
  });

  it('ends with exactly the right members when both refresh it at once', async () => {
    const a = stores(one);
    const b = stores(two);
    await a.contacts.batch(
      one,
      PORTAL,
      Array.from({ length: 1200 }, (_, i) => ({
        email: `r${i}@refresh.test`,
        properties: props({ firstname: i % 2 ? 'out' : 'in' }),
      })),
    );
    const list = await a.lists.create(one, PORTAL, { name: 'In', dynamic: true, filters });
    const right = await matching();
    expect(right).toHaveLength(600);
    expect(await membersOf(one, list.listId)).toEqual(right);

    for (let round = 0; round < 5; round++) {
      // Wrong behind the store's back: half the members gone, and every other contact in.
      await one.run(sql<[number]>('DELETE FROM list_members WHERE list_id = ? AND vid % 2 = 0'), list.listId);
      await one.run(
        sql<[number, number]>(
          'INSERT INTO list_members (list_id, vid, added_at) SELECT ?, vid, 1 FROM contacts WHERE portal_id = ? ON CONFLICT DO NOTHING',
        ),
        list.listId,
        PORTAL,
      );
      await Promise.all([
        a.lists.refresh(one, PORTAL, list.listId),
        b.lists.refresh(two, PORTAL, list.listId),
        a.lists.refresh(one, PORTAL, list.listId),
        b.lists.refresh(two, PORTAL, list.listId),
      ]);
      expect(await membersOf(one, list.listId)).toEqual(right);
    }
    expect((await b.lists.get(two, PORTAL, list.listId)).metaData.size).toBe(600);
  });

  it('makes a list being made or refreshed wait for the contact writes in flight in the other process, and them wait for a refresh', async () => {
    const a = stores(one);
    const b = stores(two);
    const list = (await a.lists.page(one, PORTAL, 10, 0, 'DYNAMIC')).lists[0];
    const [x, y] = await matching();
    /** Runs `write` in a transaction of `engine` that stays open until the returned `end()`. */
    const held = async (engine: Engine, write: (t: Queryable) => Promise<unknown>) => {
      let end!: () => void;
      const ended = new Promise<void>((resolve) => (end = resolve));
      let written!: () => void;
      const inside = new Promise<void>((resolve) => (written = resolve));
      const done = engine.tx(async (t) => {
        await write(t);
        written();
        await ended;
      });
      await inside;
      return { end: () => (end(), done) };
    };
    /** Whether `work` is still waiting after a while. */
    const waiting = async (work: Promise<unknown>) => {
      let finished = false;
      void work.then(() => (finished = true));
      await new Promise((resolve) => setTimeout(resolve, 150));
      return !finished;
    };

    // A contact made in the second process's open transaction, while the first makes a list it
    // matches: the list waits for it, and holds it (from the contacts as committed before, it
    // would not; and the contact's re-check saw no list).
    const making = await held(two, (t) =>
      b.contacts.create(t, OTHER, props({ email: 'made@meanwhile.test', firstname: 'in' })),
    );
    const made = a.lists.create(one, OTHER, { name: 'In too', dynamic: true, filters });
    expect(await waiting(made)).toBe(true);
    await making.end();
    expect((await made).metaData.size).toBe(1);

    // x leaves in the second process's open transaction: the refresh waits for its end, and then
    // does not put x back (it would have, from x as committed before).
    const leaving = await held(two, (t) => b.contacts.update(t, PORTAL, x, props({ firstname: 'out' })));
    const refreshed = a.lists.refresh(one, PORTAL, list.listId);
    expect(await waiting(refreshed)).toBe(true);
    await leaving.end();
    await refreshed;
    expect(await membersOf(one, list.listId)).not.toContain(x);

    // A refresh in an open transaction: the other process's contact write waits for its end.
    const refreshing = await held(one, (t) => a.lists.refresh(t, PORTAL, list.listId));
    const written = b.contacts.update(two, PORTAL, y, props({ firstname: 'out' }));
    expect(await waiting(written)).toBe(true);
    await refreshing.end();
    await written;
    expect(await membersOf(one, list.listId)).toEqual(await matching());
  });

  it("removes a list's member while the other process changes the list, without a deadlock: the lists' lock before the list's row", async () => {
    const a = stores(one);
    const list = await a.lists.create(one, PORTAL, { name: 'In, for removal', dynamic: true, filters });
    const gone = await a.contacts.create(one, PORTAL, props({ email: 'gone@remove.test', firstname: 'in' }));
    expect(await membersOf(one, list.listId)).toContain(gone);
    // The other process holds the lists' lock alone (as a list change does, before it writes the
    // list's row) while the contact is removed here: the removal waits for that lock before it
    // touches the list's row, so the list change can still write it (the other way round each
    // would wait for the other, until PostgreSQL aborted one as a deadlock).
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    let locked!: () => void;
    const holding = new Promise<void>((resolve) => (locked = resolve));
    const changing = two.tx(async (t) => {
      await t.lock(`lists:${PORTAL}`, 'exclusive');
      await t.value(sql<[], { one: number }>('SELECT 1 AS one'));
      locked();
      await ended;
      await t.run(sql<[number, number]>('UPDATE lists SET processed_at = ? WHERE list_id = ?'), now(), list.listId);
    });
    await holding;
    const removing = a.contacts.remove(one, PORTAL, gone);
    await new Promise((resolve) => setTimeout(resolve, 150));
    end();
    await Promise.all([changing, removing]);
    expect(await membersOf(one, list.listId)).not.toContain(gone);
  });

  it('ends with exactly the matching contacts when one refreshes while the other writes contacts', async () => {
    const a = stores(one);
    const b = stores(two);
    const list = (await a.lists.page(one, PORTAL, 10, 0, 'DYNAMIC')).lists[0];
    const vids = (
      await one.all(sql<[number], { vid: number }>('SELECT vid FROM contacts WHERE portal_id = ? ORDER BY vid'), PORTAL)
    ).map((r) => r.vid);
    let writing = true;
    let refreshes = 0;
    const refreshing = (async () => {
      while (writing) {
        await a.lists.refresh(one, PORTAL, list.listId);
        refreshes++;
      }
    })();
    // Five writers in the second process: contacts move in and out, and new ones come.
    await Promise.all(
      Array.from({ length: 5 }, async (_, w) => {
        for (let i = 0; i < 60; i++) {
          const vid = vids[(w * 41 + i * 7) % vids.length];
          await b.contacts.update(two, PORTAL, vid, props({ firstname: (w + i) % 3 ? 'in' : 'out' }));
          if (i % 10 == 0)
            await b.contacts.create(two, PORTAL, props({ email: `new${w}-${i}@refresh.test`, firstname: 'in' }));
        }
      }),
    );
    writing = false;
    await refreshing;
    expect(refreshes).toBeGreaterThan(1);
    expect(await membersOf(one, list.listId)).toEqual(await matching());
  });
});
