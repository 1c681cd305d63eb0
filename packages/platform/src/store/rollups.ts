/** The dashboard's rollups: counters per portal, metric, UTC day or hour, and dimension, added to
 * as page views, sessions, custom events, form submissions and contacts are stored. Inside a
 * request's write (services' `write`, through `batch`) the additions are summed in memory and
 * stored once at its end, in one statement for all the request's keys, not one per event.
 *
 * On SQLite the additions are summed further, over the group commit's transaction (many
 * requests, mostly adding to the same counters: today's views, the popular pages), and added to
 * the counters (ON CONFLICT … n = n + excluded.n) once, right before it commits (engine.atCommit):
 * its one writer runs the requests one after another anyway. On PostgreSQL every request would update
 * the same few rows (today's page views, this hour's), and a row updated by an open transaction
 * makes the next one wait until it commits, disk flush included: the writes of all processes
 * queued there, about 250 a second whatever else they did. So there a request appends its
 * additions to `rollup_deltas`, which no two transactions contend for, and `fold` moves them into
 * the counters, summed: the scheduler each second (one process at a time), and the dashboard
 * before it reads. The deltas are written in the request's transaction, so a crash loses none. */
import { type Engine, type Queryable, sql } from '../db/engine';
import { pair, pick } from '../db/statements';
import { txContext } from '../db/tx-context';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

/** What each metric counts, and its dimensions. `.d` per UTC day, `.h` per UTC hour. */
export const METRICS = {
  views: ['views.d', 'views.h'],
  /** Distinct visitors: a visitor's first page view in the day or hour (services/sessions.ts). */
  visitors: ['visitors.d', 'visitors.h'],
  sessions: ['sessions.d', 'sessions.h'],
  /** Page views per page (dim: the URL without its query and fragment). */
  page: 'page.d',
  /** Sessions per source (dim: type, dim2: source data 1). */
  source: 'source.d',
  /** Sessions with an external referrer, per referring host (dim). */
  referrer: 'referrer.d',
  /** Sessions per campaign (dim: utm_campaign of the landing page, dim2: source type). */
  campaign: 'campaign.d',
  /** Custom events per name (dim); amount: their value summed (revenue). */
  event: 'event.d',
  /** Form submissions per form (dim: its guid). */
  form: 'form.d',
  /** Contacts made, on the day they were made, per original source (dim: type, dim2: data 1). */
  contacts: 'contacts.d',
  /** Page views from an address the prospects mapping knows, per country (dim). */
  country: 'country.d',
} as const;

export const dayOf = (t: number) => Math.floor(t / DAY) * DAY;
export const hourOf = (t: number) => Math.floor(t / HOUR) * HOUR;
/** A metric's bucket for time `t`. */
export const bucketOf = (metric: string, t: number) => (metric.endsWith('.h') ? hourOf(t) : dayOf(t));

/** Dimensions are clipped: a URL or a campaign name may be long. */
const MAX_DIM = 500;
const clip = (s: string | null | undefined) => (s ?? '').slice(0, MAX_DIM);

/** A page's URL as the pages panel groups it: no query, no fragment. */
export function pageKey(url: string | undefined) {
  if (!url) return '';
  try {
    const u = new URL(url);
    return u.origin + u.pathname;
  } catch {
    return url.split(/[?#]/)[0];
  }
}

/** A landing URL's utm_campaign, if any. */
export function campaignOf(landingUrl: string | null | undefined) {
  if (!landingUrl) return '';
  try {
    return new URL(landingUrl).searchParams.get('utm_campaign')?.trim() ?? '';
  } catch {
    return '';
  }
}

/** A referrer's host name, without www. */
export function referrerHost(referrer: string | null | undefined) {
  if (!referrer) return '';
  try {
    return new URL(referrer).hostname.toLowerCase().replace(/^www\./, '');
  } catch {
    return '';
  }
}

/** A counter's addition. */
type Counter = {
  portal_id: number;
  metric: string;
  bucket: number;
  dim: string;
  dim2: string;
  n: number;
  amount: number;
};

/** Additions not yet stored: counters summed by key. */
class Pending {
  counters = new Map<string, Counter>();

  /** Adds `n` (and `amount`) to `metric` at time `at` for dimension `dim`, `dim2`. */
  add(portalId: number, metric: string, at: number, dim?: string | null, dim2?: string | null, n = 1, amount = 0) {
    this.addTo(portalId, metric, bucketOf(metric, at), clip(dim), clip(dim2), n, amount);
  }

  addTo(portalId: number, metric: string, bucket: number, dim: string, dim2: string, n: number, amount: number) {
    const key = `${portalId}\u0000${metric}\u0000${bucket}\u0000${dim}\u0000${dim2}`;
    const c = this.counters.get(key);
    if (c) {
      c.n += n;
      c.amount += amount;
    } else this.counters.set(key, { portal_id: portalId, metric, bucket, dim, dim2, n, amount });
  }
}

/** What a write adds to the rollups, added to without a round of promises (a collector batch
 * adds a few dozen times). */
export type RollupSums = Pick<Pending, 'add'>;

const COUNTER = {
  portal_id: 'integer',
  metric: 'text',
  bucket: 'integer',
  dim: 'text',
  dim2: 'text',
  n: 'integer',
  amount: 'real',
} as const;
const KEY = 'portal_id, metric, bucket, dim, dim2';
const ADD_TO_COUNTERS = `ON CONFLICT (${KEY}) DO UPDATE SET n = rollups.n + excluded.n, amount = rollups.amount + excluded.amount`;

export function rollupStore(engine: Engine) {
  const q = {
    // SQLite: one counter (see `ways`).
    addOne: sql<[number, string, number, string, string, number, number]>(
      `INSERT INTO rollups (${KEY}, n, amount) VALUES (?, ?, ?, ?, ?, ?, ?) ${ADD_TO_COUNTERS}`,
    ),
    addDeltas: sql<[string]>(
      `INSERT INTO rollup_deltas (${KEY}, n, amount) SELECT ${KEY}, n, amount FROM (${engine.dialect.jsonRows('?', COUNTER)}) AS x`,
    ),
    // The deltas committed by now (a delta still being written is left for the next fold); the
    // keys in one order, so that a fold never deadlocks with another.
    fold: sql(
      `WITH d AS (DELETE FROM rollup_deltas RETURNING ${KEY}, n, amount)
       INSERT INTO rollups (${KEY}, n, amount) SELECT ${KEY}, sum(n), sum(amount) FROM d
       GROUP BY ${KEY} HAVING sum(n) <> 0 OR sum(amount) <> 0 ORDER BY ${KEY} ${ADD_TO_COUNTERS}`,
    ),
  };
  const batches = txContext<Pending>();

  /** How additions reach the counters (see the top of this file): on SQLite added to them, a
   * statement per counter; on PostgreSQL appended to the deltas in one statement, sent without
   * waiting (appended rows have nothing to conflict with; the commit waits for it), which fold()
   * adds to the counters later. */
  const ways = pick(engine, {
    add: pair<(db: Queryable, rows: Counter[]) => Promise<void>>({
      async sqlite(db, rows) {
        for (const c of rows) await db.run(q.addOne, c.portal_id, c.metric, c.bucket, c.dim, c.dim2, c.n, c.amount);
      },
      postgres: (db, rows) => db.send(q.addDeltas, JSON.stringify(rows)),
    }),
    fold: pair<() => Promise<number>>({
      sqlite: () => Promise.resolve(0),
      postgres: () =>
        engine.tx(async (t) => {
          await t.lock('rollups-fold');
          return t.run(q.fold);
        }),
    }),
  });

  const newPending = () => new Pending();

  async function flush(db: Queryable, p: Pending) {
    const rows = [...p.counters.values()].filter((c) => c.n != 0 || c.amount != 0);
    if (!rows.length) return;
    await ways.add(db, rows);
  }

  /** Keeps what `p` holds: on SQLite summed into the open transaction's additions, written once
   * right before it commits (a group commit's requests mostly add to the same counters); else
   * written now, in `db`. */
  const SUMS = {};
  async function keep(db: Queryable, p: Pending) {
    const sums = engine.atCommit?.(SUMS, newPending, flush);
    if (!sums) return flush(db, p);
    for (const c of p.counters.values()) sums.addTo(c.portal_id, c.metric, c.bucket, c.dim, c.dim2, c.n, c.amount);
  }

  /** Runs `fn` with what `db` adds to rollups; kept when it has done. */
  async function withBatch<T>(db: Queryable, fn: (p: Pending) => Promise<T>): Promise<T> {
    const open = batches.of(db);
    if (open) return fn(open);
    const p = newPending();
    const result = await fn(p);
    await keep(db, p);
    return result;
  }

  return {
    /** Runs `fn` (which writes through the handle it is given) with its rollups kept once at its
     * end. On SQLite they go into the transaction's sums, which its rollback does not take back:
     * in a savepoint, this must be the last thing done (services' `write` calls it last). */
    async batch<Q extends Queryable, T>(db: Q, fn: (db: Q) => Promise<T>): Promise<T> {
      if (batches.of(db)) return fn(db);
      const p = newPending();
      const result = await fn(batches.bind(db, p));
      await keep(db, p);
      return result;
    },
    /** Adds `n` (and `amount`) to `metric` at time `at` for dimension `dim`, `dim2`. */
    add: (
      db: Queryable,
      portalId: number,
      metric: string,
      at: number,
      dim?: string | null,
      dim2?: string | null,
      n = 1,
      amount = 0,
    ) => withBatch(db, (p) => Promise.resolve(p.add(portalId, metric, at, dim, dim2, n, amount))),
    /** The additions of the batch `db` runs in (see `batch`), if it runs in one. */
    sums: (db: Queryable): RollupSums | undefined => batches.of(db),
    /** Moves the deltas written so far into the counters (PostgreSQL; nothing to do on SQLite).
     * Resolves to the number of counters it changed. */
    fold: ways.fold,
  };
}

export type RollupStore = ReturnType<typeof rollupStore>;
