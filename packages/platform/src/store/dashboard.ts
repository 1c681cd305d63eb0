/** The dashboard's reads: sums of the rollups (store/rollups.ts) over a range of buckets, found
 * through the rollups' primary key (portal, metric, bucket, …), and the live view's sessions
 * (by the sessions_last index). Never a scan of the events. */
import { type Engine, type Queryable, sql } from '../db/engine';

export interface Sum {
  dim: string;
  dim2: string;
  n: number;
  amount: number;
}

export function dashboardStore(engine: Engine) {
  const { jsonText, inJsonArray } = engine.dialect;
  const q = {
    series: sql<[number, string, number, number], { bucket: number; n: number }>(
      'SELECT bucket, sum(n) AS n FROM rollups WHERE portal_id = ? AND metric = ? AND bucket >= ? AND bucket < ? GROUP BY bucket',
    ),
    // The ORDER BY's dim, dim2: ties in a stable order.
    top: sql<[number, string, number, number, number], Sum>(
      `SELECT dim, dim2, sum(n) AS n, sum(amount) AS amount FROM rollups WHERE portal_id = ? AND metric = ? AND bucket >= ? AND bucket < ?
       GROUP BY dim, dim2 HAVING sum(n) <> 0 ORDER BY sum(n) DESC, dim, dim2 LIMIT ?`,
    ),
    topDim: sql<[number, string, number, number, number], Sum>(
      `SELECT dim, '' AS dim2, sum(n) AS n, sum(amount) AS amount FROM rollups WHERE portal_id = ? AND metric = ? AND bucket >= ? AND bucket < ?
       GROUP BY dim HAVING sum(n) <> 0 ORDER BY sum(n) DESC, dim LIMIT ?`,
    ),
    formNames: sql<[number, string], { guid: string; name: string | null }>(
      `SELECT guid, ${jsonText('definition', '$.name')} AS name FROM forms WHERE portal_id = ? AND ${inJsonArray('guid', '?', 'text')}`,
    ),
    active: sql<
      [number, number, number],
      {
        utk: string;
        vid: number | null;
        started_at: number;
        last_at: number;
        page_views: number;
        source: string;
        source_data_1: string | null;
        landing_url: string | null;
      }
    >(
      `SELECT utk, vid, started_at, last_at, page_views, source, source_data_1, landing_url FROM sessions
       WHERE portal_id = ? AND last_at >= ? ORDER BY last_at DESC, id DESC LIMIT ?`,
    ),
    activeCount: sql<[number, number], { n: number }>(
      'SELECT count(DISTINCT utk) AS n FROM sessions WHERE portal_id = ? AND last_at >= ?',
    ),
  };
  const num = (rows: Sum[]) =>
    rows.map((r) => ({ dim: r.dim, dim2: r.dim2, n: Number(r.n), amount: Number(r.amount) }));

  return {
    /** `metric`'s total per bucket in [from, to). */
    series: async (db: Queryable, portalId: number, metric: string, from: number, to: number) =>
      new Map((await db.all(q.series, portalId, metric, from, to)).map((r) => [Number(r.bucket), Number(r.n)])),
    /** `metric`'s largest totals in [from, to) per dimension pair (`byDim`: per first dimension). */
    top: async (
      db: Queryable,
      portalId: number,
      metric: string,
      from: number,
      to: number,
      limit: number,
      byDim = false,
    ) => num(await db.all(byDim ? q.topDim : q.top, portalId, metric, from, to, limit)),
    /** Form names by guid. */
    formNames: async (db: Queryable, portalId: number, guids: string[]) =>
      new Map((await db.all(q.formNames, portalId, JSON.stringify(guids))).map((r) => [r.guid, r.name])),
    /** Sessions with a page view since `since`, newest first, and how many visitors they are. */
    async active(db: Queryable, portalId: number, since: number, limit: number) {
      const [sessions, count] = await Promise.all([
        db.all(q.active, portalId, since, limit),
        db.value(q.activeCount, portalId, since),
      ]);
      return { visitors: Number(count ?? 0), sessions };
    },
  };
}

export type DashboardStore = ReturnType<typeof dashboardStore>;
