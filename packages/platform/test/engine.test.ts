/** The database engine interface, the same tests on SQLite and on PostgreSQL: what a query written
 * once returns on each, and transactions that follow the async call. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Engine, sql } from '../src/db/engine';
import { postgresEngine, toPostgres } from '../src/db/engine-postgres';
import { sqliteEngine } from '../src/db/engine-sqlite';
import { openDatabase } from '../src/db/open';
import { havePostgres, PG_URL, pgProxy, pgSchema } from './postgres';
import { PlatformError } from '../src/domain/errors';

const schema = await pgSchema('engine');
const elsewhere = await pgSchema('engine_elsewhere');
const engines: [string, boolean, () => Engine][] = [
  ['sqlite', true, () => sqliteEngine(openDatabase(':memory:'))],
  ['postgres', havePostgres, () => postgresEngine(PG_URL, { schema })],
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('placeholders for PostgreSQL', () => {
  it('numbers ? outside literals, identifiers and comments, and quotes mixed-case aliases', () => {
    expect(
      toPostgres(
        "SELECT a AS typeId, b AS plain, '?' AS \"q?\" FROM t -- why?\nWHERE a = ? AND b = 'it''s ?' AND c IN (?, ?)",
      ),
    ).toBe(
      "SELECT a AS \"typeId\", b AS plain, '?' AS \"q?\" FROM t -- why?\nWHERE a = $1 AND b = 'it''s ?' AND c IN ($2, $3)",
    );
    expect(toPostgres('SELECT CAST(? AS DOUBLE PRECISION) AS n')).toBe('SELECT CAST($1 AS DOUBLE PRECISION) AS n');
  });
});

for (const [name, available, open] of engines) {
  describe.skipIf(!available)(`the engine on ${name}`, () => {
    let db: Engine;
    const insert = sql<[string, number, string], { id: number }>(
      'INSERT INTO items (name, n, data) VALUES (?, ?, ?) RETURNING id',
    );
    const count = sql<[], { n: number }>('SELECT count(*) AS n FROM items');
    const names = sql<[], { name: string }>('SELECT name FROM items ORDER BY id');

    beforeAll(async () => {
      db = open();
      await db.exec(
        `CREATE TABLE items (id ${db.dialect.autoId}, name TEXT NOT NULL UNIQUE, n INTEGER NOT NULL, data TEXT NOT NULL DEFAULT '{}')`,
      );
    });
    afterAll(() => db.close());

    it("sends a write whose answer nobody needs; its failure fails the transaction's next statement or its commit, and rolls it all back", async () => {
      await db.tx(async (t) => {
        await t.send(insert, 'sent-1', 1, '{}');
        await t.send(insert, 'sent-2', 2, '{}');
      });
      expect((await db.all(names)).map((r) => r.name)).toEqual(expect.arrayContaining(['sent-1', 'sent-2']));
      const before = (await db.value(count))!;
      // A duplicate name (UNIQUE) sent: the next statement fails with its error.
      await expect(
        db.tx(async (t) => {
          await t.run(insert, 'sent-3', 3, '{}');
          await t.send(insert, 'sent-1', 4, '{}');
          await t.value(count);
        }),
      ).rejects.toThrow();
      // Or the commit, when nothing follows it.
      await expect(db.tx(async (t) => t.send(insert, 'sent-2', 5, '{}'))).rejects.toThrow();
      expect(await db.value(count)).toBe(before);
      // Outside a transaction it simply runs.
      await db.send(insert, 'sent-4', 6, '{}');
      expect(Number(await db.value(count))).toBe(Number(before) + 1);
      // The tests below start from an empty table.
      await db.run(sql<[]>("DELETE FROM items WHERE name LIKE 'sent-%'"));
    });

    it('names a transaction by one txKey, its savepoints too, and the next transaction by another (PostgreSQL; none on SQLite)', async () => {
      const keys: (object | undefined)[] = [];
      await db.tx(async (t) => {
        keys.push(t.txKey);
        await t.tx(async (s) => void keys.push(s.txKey, (await s.tx(async (u) => u)).txKey));
      });
      await db.tx(async (t) => void keys.push(t.txKey));
      expect(db.txKey).toBeUndefined();
      if (name == 'sqlite') return expect(keys.every((k) => k === undefined)).toBe(true);
      expect(keys[0]).toBeDefined();
      expect(keys.slice(0, 3).every((k) => k === keys[0])).toBe(true);
      expect(keys[3]).toBeDefined();
      expect(keys[3]).not.toBe(keys[0]);
    });

    it('reads rows, one row, one value; writes say how many rows they changed', async () => {
      const first = await db.get(
        insert,
        'Ada',
        1,
        JSON.stringify({ kind: 'person', score: 7.5, tags: { main: 'math' } }),
      );
      const second = await db.get(insert, 'grace', 2, JSON.stringify({ kind: 'person', score: 12 }));
      expect(second!.id).toBe(first!.id + 1);
      expect(await db.value(count)).toBe(2); // a count is a number on both, not a bigint or a string
      expect(
        await db.get(
          sql<[number], { id: number; name: string; n: number }>('SELECT id, name, n FROM items WHERE id = ?'),
          first!.id,
        ),
      ).toEqual({
        id: first!.id,
        name: 'Ada',
        n: 1,
      });
      expect(await db.get(sql<[number], { id: number }>('SELECT id FROM items WHERE id = ?'), 999)).toBeUndefined();
      expect(await db.run(sql<[number]>('UPDATE items SET n = n + ? WHERE n > 0'), 10)).toBe(2);
      expect(await db.run(sql<[string]>('UPDATE items SET n = 0 WHERE name = ?'), 'nobody')).toBe(0);
      expect(
        await db.get(
          sql<[string], { typeId: number; literal: string }>(
            "SELECT n AS typeId, '?' AS literal FROM items WHERE name = ?",
          ),
          'grace',
        ),
      ).toEqual({
        typeId: 12,
        literal: '?',
      });
    });

    it('inserts a row and answers its auto-numbered key (returningKey), or nothing when it inserted none', async () => {
      const add = sql<[string, number]>(
        `INSERT INTO items (name, n) VALUES (?, ?) ON CONFLICT (name) DO NOTHING${db.dialect.returningKey('id')}`,
      );
      const id = await db.insert(add, 'keyed-1', 1);
      expect(typeof id).toBe('number');
      expect(await db.value(sql<[string], { id: number }>('SELECT id FROM items WHERE name = ?'), 'keyed-1')).toBe(id);
      // In a transaction too, after another statement; a conflict inserts nothing.
      await db.tx(async (t) => {
        expect(await t.insert(add, 'keyed-2', 2)).toBe(id! + 1);
        expect(await t.insert(add, 'keyed-1', 3)).toBeUndefined();
      });
      await db.run(sql<[]>("DELETE FROM items WHERE name LIKE 'keyed-%'"));
    });

    it('speaks both dialects through the Dialect fragments', async () => {
      const d = db.dialect;
      const json = sql<[], { kind: string; score: number; main: string | null }>(
        `SELECT ${d.jsonText('data', '$.kind')} AS kind, ${d.jsonNumber('data', '$.score')} AS score, ${d.jsonText('data', '$.tags.main')} AS main FROM items ORDER BY id`,
      );
      expect(await db.all(json)).toEqual([
        { kind: 'person', score: 7.5, main: 'math' },
        { kind: 'person', score: 12, main: null },
      ]);
      expect(
        await db.all(sql<[string], { name: string }>(`SELECT name FROM items WHERE ${d.ilike('name', '?')}`), 'GRA%'),
      ).toEqual([{ name: 'grace' }]);
      expect(
        await db.value(
          sql<[], { joined: string }>(
            `SELECT ${d.groupConcat('name', "','")} AS joined FROM (SELECT name FROM items ORDER BY id) t`,
          ),
        ),
      ).toBe('Ada,grace');
      // The content engine's and the stores' JSON fragments.
      const flags = sql<[string, string], { name: string; flag: number | null }>(
        `SELECT ? AS name, ${d.jsonBoolean('?', '$.on')} AS flag`,
      );
      expect(await db.get(flags, 'yes', '{"on": true}')).toEqual({ name: 'yes', flag: 1 });
      expect(await db.get(flags, 'no', '{"on": false}')).toEqual({ name: 'no', flag: 0 });
      expect(await db.get(flags, 'absent', '{}')).toEqual({ name: 'absent', flag: null });
      const has = sql<[string, number], { yes: number }>(
        `SELECT CASE WHEN ${d.jsonHas('?', '$.ids', '?')} THEN 1 ELSE 0 END AS yes`,
      );
      expect(await db.value(has, '{"ids": [3, 5]}', 5)).toBe(1);
      expect(await db.value(has, '{"ids": 5}', 5)).toBe(1);
      expect(await db.value(has, '{"ids": [3]}', 5)).toBe(0);
      expect(await db.value(has, '{"ids": null}', 5)).toBe(0);
      expect(await db.value(has, '{}', 5)).toBe(0);
      const picked = sql<[string], { n: number }>(
        `SELECT n FROM items WHERE ${d.inJsonArray('n', '?', 'real')} ORDER BY n`,
      );
      expect((await db.all(picked, JSON.stringify([12, 99]))).map((r) => r.n)).toEqual([12]);
      expect(await db.all(picked, '[]')).toEqual([]);
      const named = sql<[string], { name: string }>(
        `SELECT name FROM items WHERE ${d.inJsonArray('name', '?', 'text')} ORDER BY name`,
      );
      expect(await db.all(named, JSON.stringify(['grace', 'nobody']))).toEqual([{ name: 'grace' }]);
      const byIds = sql<[string], { id: number; name: string }>(
        `SELECT id, name FROM items WHERE ${d.inJsonArray('id', '?', 'integer')} ORDER BY id`,
      );
      const [ada, grace] = await db.all(sql<[], { id: number }>('SELECT id FROM items ORDER BY id'));
      expect(await db.all(byIds, JSON.stringify([grace.id, 424242, ada.id]))).toEqual([
        { id: ada.id, name: 'Ada' },
        { id: grace.id, name: 'grace' },
      ]);
      expect(
        await db.all(sql<[string], { id: number }>(`SELECT id FROM (${d.jsonIds('?')}) ids ORDER BY id`), '[3, 1, 2]'),
      ).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
      const sorted = sql<[], { k: string }>(
        `SELECT k FROM (SELECT 'a' AS k, '{"v": 10}' AS data UNION ALL SELECT 'b', '{"v": 9}' UNION ALL SELECT 'c', '{"v": "x"}' UNION ALL SELECT 'd', '{}') t ORDER BY ${d.jsonSortKey('data', '$.v')}`,
      );
      expect((await db.all(sorted)).map((r) => r.k)).toEqual(['d', 'b', 'a', 'c']);
      // A contact's properties without one of them (a deleted property), and whether it has it.
      const without = sql<[string, string], { rest: string }>(`SELECT ${d.jsonRemoveKey('?', '?')} AS rest`);
      expect(JSON.parse((await db.value(without, '{"a": "1", "b": "2"}', 'a'))!)).toEqual({ b: '2' });
      const hasKey = sql<[string, string], { yes: number }>(
        `SELECT CASE WHEN ${d.jsonHasKey('?', '?')} THEN 1 ELSE 0 END AS yes`,
      );
      expect(await db.value(hasKey, '{"a": ""}', 'a')).toBe(1);
      expect(await db.value(hasKey, '{"a": "1"}', 'b')).toBe(0);
      // Many rows as one JSON parameter, typed; a missing field is null.
      const rows = sql<[string], { n: number; s: string | null }>(
        `SELECT n, s FROM (${d.jsonRows('?', { n: 'integer', s: 'text' })}) AS x ORDER BY n`,
      );
      expect(
        await db.all(rows, JSON.stringify([{ n: 2, s: 'two' }, { n: 1 }, { n: 17_000_000_000_000, s: '{"a":1}' }])),
      ).toEqual([
        { n: 1, s: null },
        { n: 2, s: 'two' },
        { n: 17_000_000_000_000, s: '{"a":1}' },
      ]);
      // Ids taken ahead of their rows: after every id given so far, and not given again.
      const next = sql<[number], { id: number }>(d.nextIds('items', 'id', '?'));
      const taken = await db.tx(async (t) => {
        const ids = (await t.all(next, 3)).map((r) => r.id);
        for (const [i, id] of ids.entries())
          await t.run(
            sql<[number, string, number]>('INSERT INTO items (id, name, n) VALUES (?, ?, ?)'),
            id,
            `taken ${i}`,
            i,
          );
        return ids;
      });
      const before = await db.all(sql<[], { id: number }>("SELECT id FROM items WHERE name NOT LIKE 'taken %'"));
      expect(taken).toEqual([taken[0], taken[0] + 1, taken[0] + 2]);
      expect(taken[0]).toBeGreaterThan(Math.max(...before.map((r) => r.id)));
      const [after] = (await db.all(next, 1)).map((r) => r.id);
      expect(after).toBeGreaterThan(taken[2]);
      await db.run(sql("DELETE FROM items WHERE name LIKE 'taken %'"));
      // Due work read in a transaction (another's rows left out: see two-processes.test.ts).
      const due = sql<[], { name: string }>(`SELECT name FROM items ORDER BY id${d.forUpdateSkipLocked}`);
      expect(await db.tx((t) => t.all(due))).toEqual([{ name: 'Ada' }, { name: 'grace' }]);
    });

    it('commits a transaction, and rolls it back whole when it throws', async () => {
      await db.tx(async (t) => {
        await t.get(insert, 'linus', 3, '{}');
        await t.get(insert, 'barbara', 4, '{}');
      });
      expect((await db.all(names)).map((r) => r.name)).toEqual(['Ada', 'grace', 'linus', 'barbara']);
      await expect(
        db.tx(async (t) => {
          await t.get(insert, 'alan', 5, '{}');
          await t.get(insert, 'Ada', 6, '{}'); // unique name: fails
        }),
      ).rejects.toThrow();
      expect(await db.value(count)).toBe(4);
    });

    it('makes a tx inside a tx a savepoint: its failure undoes only its own writes', async () => {
      await db.tx(async (t) => {
        await t.get(insert, 'margaret', 7, '{}');
        await expect(
          t.tx(async (s) => {
            await s.get(insert, 'edsger', 8, '{}');
            throw new Error('changed my mind');
          }),
        ).rejects.toThrow('changed my mind');
        // Two savepoints started side by side run one after the other.
        await Promise.all([t.tx((s) => s.get(insert, 'ken', 9, '{}')), t.tx((s) => s.get(insert, 'dennis', 10, '{}'))]);
      });
      expect((await db.all(names)).map((r) => r.name)).toEqual([
        'Ada',
        'grace',
        'linus',
        'barbara',
        'margaret',
        'ken',
        'dennis',
      ]);
    });

    it('keeps a transaction to itself: a read that waits for settled() never sees its writes before it commits, nor after it rolls back', async () => {
      let inside!: () => void;
      const started = new Promise<void>((resolve) => (inside = resolve));
      const doomed = db
        .tx(async (t) => {
          await t.get(insert, 'ghost', 11, '{}');
          inside();
          await sleep(30);
          throw new Error('rolled back');
        })
        .catch((err: Error) => err.message);
      await started;
      // From another async call, while the transaction is open.
      await db.settled();
      const outside = await db.all(names);
      expect(outside.map((r) => r.name)).not.toContain('ghost');
      expect(await doomed).toBe('rolled back');
      expect((await db.all(names)).map((r) => r.name)).not.toContain('ghost');
    });

    it('runs an exclusive job once at a time: a second try while it runs does not run', async () => {
      // A second engine on the same database stands for a second process (on SQLite, one process
      // owns the database: the same engine).
      const other = name == 'postgres' ? open() : db;
      try {
        let runs = 0;
        const job = async () => {
          runs++;
          return 'done';
        };
        // The first run holds on until the second try has answered (not for a time, which a
        // loaded machine's slow connect could outlast).
        let tried!: () => void;
        const secondTried = new Promise<void>((resolve) => (tried = resolve));
        const first = db.exclusive('publish', async () => {
          runs++;
          await Promise.race([secondTried, sleep(5000)]);
          return 'done';
        });
        while (runs == 0) await sleep(2);
        const second = await other.exclusive('publish', job);
        tried();
        expect([await first, second]).toEqual(['done', undefined]);
        expect(runs).toBe(1);
        expect(await other.exclusive('publish', job)).toBe('done'); // free again once it ended
        expect(await other.exclusive('another', async () => 'its own')).toBe('its own');
        await expect(db.exclusive('failing', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
        expect(await other.exclusive('failing', async () => 'released after a failure')).toBe(
          'released after a failure',
        );
      } finally {
        if (other !== db) await other.close();
      }
    });

    it("holds a transaction's lock until the transaction ends: another taking it waits till then", async () => {
      const other = name == 'postgres' ? open() : db;
      try {
        const seen: string[] = [];
        let locked!: () => void;
        const hasLocked = new Promise<void>((resolve) => (locked = resolve));
        // The statements after a lock run once it is held (on PostgreSQL the lock is pipelined:
        // `lock` resolves at once, the next query's answer comes after it).
        const one = sql<[], { one: number }>('SELECT 1 AS one');
        const first = db.tx(async (t) => {
          await t.lock('ids');
          await t.value(one);
          seen.push('first locked');
          locked();
          await sleep(30);
          seen.push('first ends');
        });
        await hasLocked;
        const second = other.tx(async (t) => {
          await t.lock('ids');
          await t.value(one);
          seen.push('second locked');
        });
        await Promise.all([first, second]);
        expect(seen).toEqual(['first locked', 'first ends', 'second locked']);
      } finally {
        if (other !== db) await other.close();
      }
    });

    it('takes several locks in one order whoever names them: overlapping sets wait, never deadlock', async () => {
      const other = name == 'postgres' ? open() : db;
      try {
        const seen: string[] = [];
        const one = sql<[], { one: number }>('SELECT 1 AS one');
        // Ten transactions, half on each engine, each taking a name of its own and two that all
        // take, half of them in the other order (taken one by one as named, that deadlocks).
        await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            (i % 2 ? other : db).tx(async (t) => {
              const mine = [`own ${i}`, 'p', 'q'];
              await t.lock(i % 2 ? mine.reverse() : mine);
              await t.value(one);
              seen.push(`in ${i}`);
              await sleep(5);
              seen.push(`out ${i}`);
            }),
          ),
        );
        expect(seen).toHaveLength(20);
        // They share names: one at a time (SQLite: always).
        for (let k = 0; k < 20; k += 2)
          expect([seen[k].split(' ')[0], seen[k + 1]]).toEqual(['in', seen[k].replace('in', 'out')]);
        // Nothing to take is nothing to wait for.
        await db.tx((t) => t.lock([]));
      } finally {
        if (other !== db) await other.close();
      }
    });

    it('shares a lock among shared holders; an exclusive one waits for them all', async () => {
      // On SQLite, one process owns the database and its write transactions run one at a time:
      // the lock is nothing to take.
      const other = name == 'postgres' ? open() : db;
      const events: string[] = [];
      // Steps wait for events, not for time: a loaded machine (a new pool connecting) would
      // otherwise change the order they ask in.
      const happened = async (event: string) => {
        while (!events.includes(event)) await sleep(2);
      };
      const holding = (on: Engine, mode: 'shared' | 'exclusive', label: string, inside: () => Promise<unknown>) =>
        on.tx(async (t) => {
          await t.lock('lists:7', mode);
          await t.value(sql<[], { one: number }>('SELECT 1 AS one')); // runs once the lock is held
          events.push(`${label} in`);
          await inside();
          events.push(`${label} out`);
        });
      try {
        await Promise.all([
          holding(db, 'shared', 'a', () => (name == 'postgres' ? happened('b in') : sleep(5)).then(() => sleep(30))),
          sleep(5).then(() => holding(other, 'shared', 'b', () => sleep(5))),
          (name == 'postgres' ? happened('b in') : sleep(15)).then(() =>
            holding(other, 'exclusive', 'c', () => sleep(1)),
          ),
        ]);
        // Two sharers at once; the exclusive one after both (on SQLite the transactions run in turn).
        if (name == 'postgres') expect(events).toEqual(['a in', 'b in', 'b out', 'a out', 'c in', 'c out']);
        expect(events.indexOf('c in')).toBeGreaterThan(Math.max(events.indexOf('a out'), events.indexOf('b out')));
      } finally {
        if (other !== db) await other.close();
      }
    });

    it('reads on one connection (reading): reads issued at once each get their answer, a failed one fails alone, a write goes to a transaction of its own', async () => {
      const byName = sql<[string], { n: number }>('SELECT n FROM items WHERE name = ?');
      const broken = sql<[], { n: number }>('SELECT n FROM no_such_table');
      await db.tx((t) =>
        t.run(sql<[string, number, string]>('INSERT INTO items (name, n, data) VALUES (?, ?, ?)'), 'Known', 3, '{}'),
      );
      const out = await db.reading(async (r) => {
        const [failed, ada, none] = await Promise.allSettled([
          r.value(broken),
          r.value(byName, 'Known'),
          r.get(byName, 'nobody'),
        ]);
        await r.tx((t) =>
          t.run(sql<[string, number, string]>('INSERT INTO items (name, n, data) VALUES (?, ?, ?)'), 'Reader', 7, '{}'),
        );
        return { ada, none, failed, after: await r.value(byName, 'Reader'), again: await r.value(byName, 'Known') };
      });
      expect(out.ada).toEqual({ status: 'fulfilled', value: 3 });
      expect(out.none).toEqual({ status: 'fulfilled', value: undefined });
      expect(out.failed.status).toBe('rejected');
      expect(out.after).toBe(7);
      expect(out.again).toBe(3);
    });

    it('runs concurrent transactions without losing an update', async () => {
      const bump = () =>
        db.tx(async (t) => {
          await t.run(sql<[string]>('UPDATE items SET n = n + 1 WHERE name = ?'), 'Ada');
          await sleep(2);
          await t.run(sql<[string]>('UPDATE items SET n = n + 1 WHERE name = ?'), 'Ada');
        });
      const before = await db.value(sql<[string], { n: number }>('SELECT n FROM items WHERE name = ?'), 'Ada');
      await Promise.all(Array.from({ length: 10 }, bump));
      expect(await db.value(sql<[string], { n: number }>('SELECT n FROM items WHERE name = ?'), 'Ada')).toBe(
        before! + 20,
      );
    });
  });
}

describe.skipIf(!havePostgres)('reading on PostgreSQL', () => {
  it('holds one connection for its reads and gives it back, also after a failure', async () => {
    const db = postgresEngine(PG_URL, { schema, max: 4 });
    try {
      const pid = sql<[], { pid: number }>('SELECT pg_backend_pid() AS pid');
      const pids = await db.reading(async (r) => [
        ...(await Promise.all([r.value(pid), r.value(pid), r.value(pid)])),
        await r.value(pid),
      ]);
      expect(new Set(pids).size).toBe(1);
      await expect(
        db.reading(async (r) => r.value(sql<[], { n: number }>('SELECT n FROM no_such_table'))),
      ).rejects.toThrow();
      expect(db.pool.totalCount - db.pool.idleCount).toBe(0);
      // One of two sent at once fails first: the connection goes back once the other has its answer.
      let slowDone = false;
      const slow = sql<[], { slept: string }>('SELECT pg_sleep(0.1)::text AS slept');
      const failing = db.reading(async (r) => {
        const broken = r.value(sql<[], { n: number }>('SELECT n FROM no_such_table'));
        await Promise.all([broken, r.value(slow).then(() => (slowDone = true))]);
      });
      await expect(failing).rejects.toThrow();
      expect(slowDone).toBe(true);
      expect(db.pool.totalCount - db.pool.idleCount).toBe(0);
      expect(await db.reading((r) => r.value(sql<[], { one: number }>('SELECT 1 AS one')))).toBe(1);
    } finally {
      await db.close();
    }
  });
});

describe.skipIf(!havePostgres)('advisory locks on PostgreSQL', () => {
  it("are named within the schema: another schema's exclusive job or transaction lock of the same name neither skips nor waits", async () => {
    // Two platforms in schemas of their own on one database (as the tests run them, side by side)
    // share no data, and so no turn: one's scheduler run must not make the other's skip.
    const [here, again, there] = [
      postgresEngine(PG_URL, { schema }),
      postgresEngine(PG_URL, { schema }),
      postgresEngine(PG_URL, { schema: elsewhere }),
    ];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    try {
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      const first = here.exclusive('scheduler', async () => {
        started();
        await held;
        return 'here';
      });
      await running;
      expect(await again.exclusive('scheduler', async () => 'again')).toBeUndefined(); // the same schema takes turns
      expect(await there.exclusive('scheduler', async () => 'there')).toBe('there');
      const waited = await here.tx(async (t) => {
        await t.lock('ids');
        return Promise.race([there.tx((u) => u.lock('ids')).then(() => false), sleep(5_000).then(() => true)]);
      });
      expect(waited).toBe(false);
      release();
      expect(await first).toBe('here');
    } finally {
      release();
      await Promise.all([here.close(), again.close(), there.close()]);
    }
  });
});

describe('group commit on SQLite', () => {
  let db: Engine;
  const commits: number[] = [];
  const insert = sql<[string], { id: number }>('INSERT INTO items (name) VALUES (?) RETURNING id');
  const names = sql<[], { name: string }>('SELECT name FROM items ORDER BY id');

  beforeAll(async () => {
    db = sqliteEngine(openDatabase(':memory:'), {
      groupCommit: true,
      afterCommit: () => commits.push(commits.length + 1),
    });
    await db.exec(`CREATE TABLE items (id ${db.dialect.autoId}, name TEXT NOT NULL UNIQUE)`);
  });
  afterAll(() => db.close());

  it('commits the transactions begun in one turn once, each answered after the commit', async () => {
    commits.length = 0;
    const answered: number[] = [];
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        db
          .tx(async (t) => {
            await t.get(insert, `n${i}`);
            await t.get(insert, `m${i}`);
          })
          .then(() => answered.push(commits.length)),
      ),
    );
    expect(commits).toEqual([1]);
    expect(answered).toEqual(Array(20).fill(1)); // none before the commit
    expect(await db.all(names)).toHaveLength(40);
  });

  it('rolls back a failing member alone', async () => {
    commits.length = 0;
    const results = await Promise.allSettled([
      db.tx((t) => t.get(insert, 'kept-1')),
      db.tx(async (t) => {
        await t.get(insert, 'undone');
        await t.get(insert, 'kept-1'); // taken: this member fails
      }),
      db.tx((t) => t.get(insert, 'kept-2')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(commits).toEqual([1]);
    const all = (await db.all(names)).map((r) => r.name);
    expect(all).toEqual(expect.arrayContaining(['kept-1', 'kept-2']));
    expect(all).not.toContain('undone');
  });

  it('lets a read wait for the open group with settled(), so it never answers what could still be lost', async () => {
    const writing = db.tx(async (t) => {
      await t.get(insert, 'slow');
      await sleep(20); // the group stays open past its turn while a member is busy
    });
    await sleep(1);
    const before = commits.length;
    await db.settled();
    expect(commits.length).toBe(before + 1); // settled() resolved only once the group committed
    expect((await db.all(names)).map((r) => r.name)).toContain('slow');
    await writing;
    // A transaction begun while a group closes goes into the next group.
    commits.length = 0;
    await Promise.all([db.tx((t) => t.get(insert, 'a1')), sleep(0).then(() => db.tx((t) => t.get(insert, 'a2')))]);
    expect(commits.length).toBeGreaterThanOrEqual(1);
    expect((await db.all(names)).map((r) => r.name)).toEqual(expect.arrayContaining(['a1', 'a2']));
  });
});

describe.skipIf(!havePostgres)('PostgreSQL going away', () => {
  it('answers 503 (unavailable) while the database cannot be reached, and recovers without a restart', async () => {
    const proxy = await pgProxy(schema);
    const db = postgresEngine(proxy.url, { connectTimeoutMs: 1_000 });
    try {
      const one = sql<[], { one: number }>('SELECT 1 AS one');
      expect(await db.value(one)).toBe(1);
      await proxy.stop(); // the server "restarts": connections cut, new ones refused
      for (const attempt of [
        () => db.value(one),
        () => db.tx((t) => t.value(one)),
        () => db.reading((r) => r.value(one)),
      ]) {
        const err = await attempt().catch((e: unknown) => e);
        expect(err).toBeInstanceOf(PlatformError);
        expect(err).toMatchObject({ kind: 'unavailable', headers: { 'Retry-After': '1' } });
      }
      await proxy.start();
      // The pool makes new connections: the same engine serves again.
      expect(await db.value(one)).toBe(1);
      expect(await db.tx((t) => t.value(one))).toBe(1);
    } finally {
      await db.close();
      await proxy.stop();
    }
  });
});
