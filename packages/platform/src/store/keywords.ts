/** Keywords (§4.10, reference §11): a portal's SEO keywords. Metrics the platform cannot know
 * (rank, difficulty, searches) are null; contacts/leads/visits start at 0. */
import { randomUUID } from 'node:crypto';
import { type Db, transaction } from '../db/open';
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

export function keywordStore(db: Db, now: () => number) {
  const q = {
    all: db.prepare<[number, string], Row>("SELECT * FROM keywords WHERE portal_id = ? AND instr(lower(keyword), lower(?)) > 0 ORDER BY created_at, keyword"),
    byGuid: db.prepare<[number, string], Row>('SELECT * FROM keywords WHERE portal_id = ? AND guid = ?'),
    byKeyword: db.prepare<[number, string], Row>('SELECT * FROM keywords WHERE portal_id = ? AND keyword = ? COLLATE NOCASE'),
    insert: db.prepare<[string, number, string, number]>('INSERT INTO keywords (guid, portal_id, keyword, created_at) VALUES (?, ?, ?, ?)'),
    remove: db.prepare<[number, string]>('DELETE FROM keywords WHERE portal_id = ? AND guid = ?'),
  };

  return {
    list: (portalId: number, search = '') => ({ keywords: q.all.all(portalId, search).map(record) }),
    get(portalId: number, guid: string) {
      const row = q.byGuid.get(portalId, guid);
      if (!row) throw notFound(`no keyword with guid ${guid}`);
      return record(row);
    },
    /** All or nothing: one keyword that exists already refuses the whole request. */
    create(portalId: number, input: { keyword: string } | { keyword: string }[]) {
      const items = (Array.isArray(input) ? input : [input]).map((k) => k.keyword.trim());
      return transaction(db, () => {
        const made: Row[] = [];
        for (const keyword of items) {
          if (q.byKeyword.get(portalId, keyword) || made.some((m) => m.keyword.toLowerCase() == keyword.toLowerCase()))
            throw conflict(`the keyword "${keyword}" exists already`);
          const row = { guid: randomUUID(), portal_id: portalId, keyword, created_at: now() };
          q.insert.run(row.guid, portalId, keyword, row.created_at);
          made.push(row);
        }
        return { keywords: made.map(record) };
      })();
    },
    remove(portalId: number, guid: string) {
      if (!q.remove.run(portalId, guid).changes) throw notFound(`no keyword with guid ${guid}`);
    },
  };
}

