/** Visitors' sessions as stored (the sessions table): the newest of a visitor, new ones, their
 * growth, and the ones a visitor had before it was linked to a contact. When a session starts or
 * grows is decided by services/sessions.ts. */
import { type Engine, perRow, type Queryable, sql, updateRows } from '../db/engine';
import { eachOrAll, pick } from '../db/statements';

export interface Session {
  id: number;
  portal_id: number;
  utk: string;
  vid: number | null;
  started_at: number;
  last_at: number;
  page_views: number;
  source: string;
  source_data_1: string | null;
  source_data_2: string | null;
  referrer: string | null;
  landing_url: string | null;
}

/** What a contact's analytics properties take from a session. */
export type SessionSummary = Pick<Session, 'started_at' | 'source' | 'source_data_1' | 'source_data_2' | 'referrer'>;

const COLUMNS =
  'id, portal_id, utk, vid, started_at, last_at, page_views, source, source_data_1, source_data_2, referrer, landing_url';
/** A new session's columns, as a JSON row holds them. */
const SESSION_ROW = {
  portal_id: 'integer',
  utk: 'text',
  vid: 'integer',
  started_at: 'integer',
  last_at: 'integer',
  page_views: 'integer',
  source: 'text',
  source_data_1: 'text',
  source_data_2: 'text',
  referrer: 'text',
  landing_url: 'text',
} as const;
const INSERTED = Object.keys(SESSION_ROW);

const q = {
  latest: sql<[number, string], Session>(
    `SELECT ${COLUMNS} FROM sessions WHERE portal_id = ? AND utk = ? ORDER BY started_at DESC, id DESC LIMIT 1`,
  ),
  // started_at only when it moved (an event older than the session's first): an indexed column.
  grow: sql<[number, number, number]>('UPDATE sessions SET last_at = ?, page_views = ? WHERE id = ?'),
  moveStart: sql<[number, number]>('UPDATE sessions SET started_at = ? WHERE id = ?'),
  unlinked: sql<[number, string], SessionSummary>(
    // `+vid`: the visitor's index, never the vid one (whose null entries are every anonymous session).
    'SELECT started_at, source, source_data_1, source_data_2, referrer FROM sessions WHERE portal_id = ? AND utk = ? AND +vid IS NULL ORDER BY started_at, id',
  ),
  claim: sql<[number, number, string]>('UPDATE sessions SET vid = ? WHERE portal_id = ? AND utk = ? AND +vid IS NULL'),
  // By the visitor's index: its sessions that start within the longest a session lasts before
  // the start and before the end (a visitor's whole history otherwise), the end of each read from its row.
  spans: sql<[number, string, number, number, number], Span>(
    'SELECT started_at, last_at FROM sessions WHERE portal_id = ? AND utk = ? AND started_at > ? AND started_at < ? AND last_at >= ?',
  ),
};

/** The longest a session lasts, from its first page view to its last (services/sessions.ts ends
 * one there, as Adobe Analytics does at 12 hours): what bounds the sessions a span read looks at. */
export const MAX_SESSION_MS = 12 * 3_600_000;

/** When a session had its first and its last page view. */
export type Span = Pick<Session, 'started_at' | 'last_at'>;

/** A visitor: its portal and token. */
export interface VisitorKey {
  portal_id: number;
  utk: string;
}

/** Visitors as the rows of a JSON array (dialect jsonRows), and `visitors` as that array. */
export const VISITOR_ROW = { portal_id: 'integer', utk: 'text' } as const;
export const visitorRows = (visitors: readonly VisitorKey[]) =>
  JSON.stringify(visitors.map(({ portal_id, utk }) => ({ portal_id, utk })));

export function sessionStore(engine: Engine) {
  const d = engine.dialect;
  const insertOne = sql<
    [
      number,
      string,
      number | null,
      number,
      number,
      number,
      string,
      string | null,
      string | null,
      string | null,
      string | null,
    ]
  >(
    `INSERT INTO sessions (${INSERTED.join(', ')}) VALUES (${INSERTED.map(() => '?').join(', ')})${d.returningKey('id')}`,
  );
  const latest = (db: Queryable, portalId: number, utk: string) => db.get(q.latest, portalId, utk);
  // Many visitors' newest sessions, their spans, new sessions and grown ones, each in one
  // statement (PostgreSQL: the statements' own cost, a statement per visitor, was most of the
  // database's work in a collector bulk).
  const several = {
    latest: sql<[string], Session>(
      `SELECT x.* ${perRow(d.jsonRows('?', VISITOR_ROW), `SELECT ${COLUMNS} FROM sessions WHERE portal_id = r.portal_id AND utk = r.utk ORDER BY started_at DESC, id DESC LIMIT 1`)}`,
    ),
    spans: sql<[string], Span & { i: number }>(
      `SELECT r.i, x.started_at, x.last_at ${perRow(
        d.jsonRows('?', {
          i: 'integer',
          ...VISITOR_ROW,
          starts_after: 'integer',
          starts_before: 'integer',
          lasts_until: 'integer',
        }),
        'SELECT started_at, last_at FROM sessions WHERE portal_id = r.portal_id AND utk = r.utk AND started_at > r.starts_after AND started_at < r.starts_before AND last_at >= r.lasts_until OFFSET 0',
      )}`,
    ),
    grow: sql<[string]>(
      updateRows(
        'sessions',
        'id',
        d.jsonRows('?', { id: 'integer', started_at: 'integer', last_at: 'integer', page_views: 'integer' }),
        ['started_at', 'last_at', 'page_views'],
      ),
    ),
    insert: sql<[string]>(
      `INSERT INTO sessions (${INSERTED.join(', ')}) SELECT ${INSERTED.join(', ')} FROM (${d.jsonRows('?', SESSION_ROW)}) AS x`,
    ),
  };
  const values = (s: Omit<Session, 'id'>) =>
    [
      s.portal_id,
      s.utk,
      s.vid,
      s.started_at,
      s.last_at,
      s.page_views,
      s.source,
      s.source_data_1,
      s.source_data_2,
      s.referrer,
      s.landing_url,
    ] as const;
  const insert = async (db: Queryable, s: Omit<Session, 'id'>) => (await db.insert(insertOne, ...values(s)))!;
  async function update(db: Queryable, s: Session, startMoved: boolean) {
    await db.send(q.grow, s.last_at, s.page_views, s.id);
    if (startMoved) await db.send(q.moveStart, s.started_at, s.id);
  }
  type Wanted = VisitorKey & { from: number; to: number };
  type Grown = { session: Session; startMoved: boolean };
  // Each step over many visitors or sessions: a statement each on SQLite, one for them all on
  // PostgreSQL (eachOrAll).
  const ways = pick(engine, {
    latestOfAll: eachOrAll<(db: Queryable, visitors: readonly VisitorKey[]) => Promise<Session[]>>(
      async (db, visitors) => {
        const found = await Promise.all(visitors.map((v) => latest(db, v.portal_id, v.utk)));
        return found.filter((s): s is Session => s !== undefined);
      },
      (db, visitors) => db.all(several.latest, visitorRows(visitors)),
    ),
    spansOfAll: eachOrAll<(db: Queryable, wanted: readonly Wanted[]) => Promise<Span[][]>>(
      (db, wanted) =>
        Promise.all(wanted.map((w) => db.all(q.spans, w.portal_id, w.utk, w.from - MAX_SESSION_MS, w.to, w.from))),
      async (db, wanted) => {
        const rows = wanted.map((w, i) => ({
          i,
          portal_id: w.portal_id,
          utk: w.utk,
          starts_after: w.from - MAX_SESSION_MS,
          starts_before: w.to,
          lasts_until: w.from,
        }));
        const spans = wanted.map((): Span[] => []);
        for (const { i, started_at, last_at } of await db.all(several.spans, JSON.stringify(rows)))
          spans[i].push({ started_at, last_at });
        return spans;
      },
    ),
    sendAll: eachOrAll<(db: Queryable, sessions: readonly Omit<Session, 'id'>[]) => Promise<void>>(
      async (db, sessions) => {
        for (const s of sessions) await db.send(insertOne, ...values(s));
      },
      (db, sessions) => db.send(several.insert, JSON.stringify(sessions)),
    ),
    updateAll: eachOrAll<(db: Queryable, grown: readonly Grown[]) => Promise<void>>(
      async (db, grown) => {
        for (const { session, startMoved } of grown) await update(db, session, startMoved);
      },
      (db, grown) => {
        const rows = grown.map(({ session: s }) => ({
          id: s.id,
          started_at: s.started_at,
          last_at: s.last_at,
          page_views: s.page_views,
        }));
        return db.send(several.grow, JSON.stringify(rows));
      },
    ),
  });
  return {
    /** The visitor's newest session, if any. */
    latest,
    /** The newest session of each of `visitors` that has one (in no particular order), each by
     * the visitors' index. */
    latestOfAll: ways.latestOfAll,
    /** The spans of the visitor's sessions that overlap [from, to), for each of `wanted` (as
     * latestOfAll reads). */
    spansOfAll: ways.spansOfAll,
    /** Stores a new session; its id. */
    insert,
    /** Stores new sessions whose ids no one needs (the last writes of a batch), without waiting
     * (`send`: in a transaction on PostgreSQL they go with its next statements, a round trip
     * fewer). */
    sendAll: ways.sendAll,
    /** Stores what changes as a session grows (its contact changes by claim only); `startMoved`:
     * a page view older than its first was added. Not waited for (`send`), as sendAll. */
    update,
    /** `update` for each of `grown` (on PostgreSQL its start written as it is whether it moved or
     * not), not waited for. */
    updateAll: ways.updateAll,
    /** The visitor's sessions not yet counted for a contact, oldest first; then they count for `vid`. */
    async claim(db: Queryable, portalId: number, utk: string, vid: number): Promise<SessionSummary[]> {
      const rows = await db.all(q.unlinked, portalId, utk);
      if (rows.length) await db.run(q.claim, vid, portalId, utk);
      return rows;
    },
  };
}

export type SessionStore = ReturnType<typeof sessionStore>;
