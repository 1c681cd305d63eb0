/** Keywords (§4.10, reference §11): a portal's SEO keywords. Metrics the platform cannot know
 * (rank, difficulty, searches) are null; contacts/leads/visits start at 0. */
import { randomUUID } from 'node:crypto';
import { type Engine, type Queryable, sql } from '../db/engine';
import { conflict, notFound } from '../domain/errors';

interface Row {
  guid: string;
  portal_id: number;
  keyword: string;
  created_at: number;
}

const record = (r: Row) => ({
  keyword_guid: r.guid,
  keyword: r.keyword,
  portal_id: r.portal_id,
  user_id: null,
  created_at: r.created_at,
  country: 'us',
  contacts: 0,
  leads: 0,
  visits: 0,
  rank: null,
  difficulty: null,
  monthly_searches: null,
});

/** Every method takes where it runs (`db`: the engine, or a request's transaction) first. */
export function keywordStore(engine: Engine, now: () => number) {
  const { instr } = engine.dialect;
  const q = {
    all: sql<[number, string], Row>(
      `SELECT * FROM keywords WHERE portal_id = ? AND ${instr('lower(keyword)', 'lower(?)')} > 0 ORDER BY created_at, keyword`,
    ),
    byGuid: sql<[number, string], Row>('SELECT * FROM keywords WHERE portal_id = ? AND guid = ?'),
    // Unique regardless of case: the schema's index is on the keyword without case on both engines.
    byKeyword: sql<[number, string], Row>('SELECT * FROM keywords WHERE portal_id = ? AND lower(keyword) = lower(?)'),
    insert: sql<[string, number, string, number]>(
      'INSERT INTO keywords (guid, portal_id, keyword, created_at) VALUES (?, ?, ?, ?)',
    ),
    remove: sql<[number, string]>('DELETE FROM keywords WHERE portal_id = ? AND guid = ?'),
  };

  return {
    list: async (db: Queryable, portalId: number, search = '') => ({
      keywords: (await db.all(q.all, portalId, search)).map(record),
    }),
    async get(db: Queryable, portalId: number, guid: string) {
      const row = await db.get(q.byGuid, portalId, guid);
      if (!row) throw notFound(`no keyword with guid ${guid}`);
      return record(row);
    },
    /** All or nothing: one keyword that exists already refuses the whole request. */
    create(db: Queryable, portalId: number, input: { keyword: string } | { keyword: string }[]) {
      const items = (Array.isArray(input) ? input : [input]).map((k) => k.keyword.trim());
      return db.tx(async (t) => {
        const made: Row[] = [];
        for (const keyword of items) {
          if (
            (await t.get(q.byKeyword, portalId, keyword)) ||
            made.some((m) => m.keyword.toLowerCase() == keyword.toLowerCase())
          )
            throw conflict(`the keyword "${keyword}" exists already`);
          const row = { guid: randomUUID(), portal_id: portalId, keyword, created_at: now() };
          await t.run(q.insert, row.guid, portalId, keyword, row.created_at);
          made.push(row);
        }
        return { keywords: made.map(record) };
      });
    },
    async remove(db: Queryable, portalId: number, guid: string) {
      if (!(await db.run(q.remove, portalId, guid))) throw notFound(`no keyword with guid ${guid}`);
    },
  };
}
