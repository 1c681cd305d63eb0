// bench/platform.mjs --only dashboard: what `events` tracking events leave behind for the dashboard
// (its rollups and the sessions), written straight through the engine
// in big transactions rather than over HTTP, spread over the last 90 days; then every panel's
// endpoint measured over the 90-day range (the widest: the most rollup rows to sum).
//
// The shape of the traffic, per event: 90 % page views, 10 % custom events; a session is 5 page
// views and a visitor has 1.5 sessions a day; pages, sources, referrers, campaigns, countries,
// forms and event names are drawn from skewed (Zipf-like) lists of realistic sizes.
import { randomBytes, randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPlatform, sql } from '../../packages/platform/dist/index.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const DAYS = 90;
const CHUNK = 5_000;

export const DASHBOARD_PANELS = [
  'traffic',
  'pages',
  'sources',
  'campaigns',
  'countries',
  'conversions',
  'events',
  'live',
];

const SOURCES = [
  'ORGANIC_SEARCH',
  'PAID_SEARCH',
  'EMAIL_MARKETING',
  'SOCIAL_MEDIA',
  'PAID_SOCIAL',
  'REFERRALS',
  'OTHER_CAMPAIGNS',
  'DIRECT_TRAFFIC',
];
const list = (n, make) => Array.from({ length: n }, (_, i) => make(i));
const PAGES = list(
  2_000,
  (i) => `https://www.acme-widgets.example/${i % 10 ? `blog/post-${i}` : `products/widget-${i}`}`,
);
const DETAILS = list(200, (i) => [
  SOURCES[i % SOURCES.length],
  i % SOURCES.length == 7 ? 'https://www.acme-widgets.example/' : `detail-${i}`,
]);
const REFERRERS = list(300, (i) => `site-${i}.example`);
const CAMPAIGNS = list(100, (i) => [`campaign-${i}`, SOURCES[i % 7]]);
const COUNTRIES = list(50, (i) => `Country ${i}`);
const FORMS = list(20, (i) => `form-${i}`);
const EVENTS = list(30, (i) => `event-${i}`);

/** An index into a list of `n`, skewed towards its start (the popular pages, sources, ...). */
const skewed = (n) => Math.min(n - 1, Math.floor(n * Math.random() ** 3));

/** The rollup rows and sessions of day `d` before today (of `events` events
 * over the last 90 days), each handed to `emit(table, row)` as made. */
function generateDay(d, events, now, emit) {
  const today = Math.floor(now / DAY) * DAY;
  const perDay = events / DAYS;
  {
    const day = today - d * DAY;
    const counters = new Map();
    const add = (metric, bucket, dim = '', dim2 = '', n = 1, amount = 0) => {
      const key = `${metric}\u0000${bucket}\u0000${dim}\u0000${dim2}`;
      const c = counters.get(key);
      if (c) ((c.n += n), (c.amount += amount));
      else counters.set(key, { metric, bucket, dim, dim2, n, amount });
    };
    const views = Math.round(perDay * 0.9);
    const sessions = Math.max(1, Math.round(views / 5));
    const visitors = Math.max(1, Math.round(sessions / 1.5));
    const utks = list(visitors, () => randomBytes(16).toString('hex'));
    const hoursSeen = new Set();
    for (let s = 0; s < sessions; s++) {
      const utk = utks[s % visitors];
      // The last day's sessions run up to now (some of them live); earlier days' over the whole day.
      const started = day + randomInt(d == 0 ? Math.max(1, now - day) : DAY);
      const hour = Math.floor(started / HOUR) * HOUR;
      const [source, detail] = DETAILS[skewed(DETAILS.length)];
      const referrer =
        source == 'REFERRALS' || source == 'ORGANIC_SEARCH' || source == 'SOCIAL_MEDIA'
          ? REFERRERS[skewed(REFERRERS.length)]
          : '';
      const campaign =
        source == 'EMAIL_MARKETING' || source.startsWith('PAID') || source == 'OTHER_CAMPAIGNS'
          ? CAMPAIGNS[skewed(CAMPAIGNS.length)]
          : undefined;
      add('sessions.d', day);
      add('sessions.h', hour);
      add('source.d', day, source, detail);
      if (referrer) add('referrer.d', day, referrer);
      if (campaign) add('campaign.d', day, campaign[0], source);
      for (let v = 0; v < 5; v++) {
        add('views.d', day);
        add('views.h', hour);
        add('page.d', day, PAGES[skewed(PAGES.length)]);
        if (Math.random() < 0.2) add('country.d', day, COUNTRIES[skewed(COUNTRIES.length)]);
      }
      if (!hoursSeen.has(`${utk}${hour}`)) {
        hoursSeen.add(`${utk}${hour}`);
        add('visitors.h', hour);
      }
      emit('sessions', {
        utk,
        started_at: started,
        last_at: Math.min(now, started + randomInt(20 * 60_000)),
        page_views: 5,
        source,
        source_data_1: detail,
        referrer: referrer ? `https://${referrer}/` : null,
        landing_url: PAGES[skewed(PAGES.length)],
      });
      if (Math.random() < 0.03) add('contacts.d', day, source, detail);
      if (Math.random() < 0.02) add('form.d', day, FORMS[skewed(FORMS.length)]);
    }
    add('visitors.d', day, '', '', visitors);
    for (let e = 0; e < Math.round(perDay * 0.1); e++)
      add('event.d', day, EVENTS[skewed(EVENTS.length)], '', 1, Math.random() < 0.3 ? randomInt(1, 500) : 0);
    for (const c of counters.values()) emit('rollups', c);
  }
}

/** Fills the dashboard's tables of `portalId` on `database` as `events` tracking events would. */
export async function seedDashboard(database, filesDir, portalId, events) {
  const started = performance.now();
  const platform = createPlatform({ database, filesDir, logger: false });
  await platform.ready;
  const { engine } = platform.services;
  const { jsonRows } = engine.dialect;
  const inserts = {
    rollups: sql(`INSERT INTO rollups (portal_id, metric, bucket, dim, dim2, n, amount)
      SELECT ${portalId}, metric, bucket, dim, dim2, n, amount FROM (${jsonRows('?', { metric: 'text', bucket: 'integer', dim: 'text', dim2: 'text', n: 'integer', amount: 'real' })}) AS x`),
    sessions:
      sql(`INSERT INTO sessions (portal_id, utk, started_at, last_at, page_views, source, source_data_1, referrer, landing_url)
      SELECT ${portalId}, utk, started_at, last_at, page_views, source, source_data_1, referrer, landing_url
      FROM (${jsonRows('?', { utk: 'text', started_at: 'integer', last_at: 'integer', page_views: 'integer', source: 'text', source_data_1: 'text', referrer: 'text', landing_url: 'text' })}) AS x`),
  };
  const rows = { rollups: 0, sessions: 0 };
  try {
    const pending = { rollups: [], sessions: [] };
    const writes = [];
    const flush = (table) => {
      const chunk = pending[table];
      pending[table] = [];
      rows[table] += chunk.length;
      writes.push(JSON.stringify(chunk), table);
    };
    // Generated in memory a day at a time, written in transactions of ~200,000 rows.
    let queued = 0;
    const write = async () => {
      const batch = writes.splice(0);
      queued = 0;
      await engine.tx(async (t) => {
        for (let i = 0; i < batch.length; i += 2) await t.run(inserts[batch[i + 1]], batch[i]);
      });
    };
    const now = Date.now();
    for (let d = DAYS - 1; d >= 0; d--) {
      generateDay(d, events, now, (table, row) => {
        pending[table].push(row);
        if (pending[table].length >= CHUNK) (flush(table), (queued += CHUNK));
      });
      if (queued >= 200_000) await write();
    }
    for (const table of Object.keys(pending)) if (pending[table].length) flush(table);
    await write();
    if (engine.kind == 'postgres') await engine.exec('ANALYZE rollups; ANALYZE sessions');
    else await engine.exec('ANALYZE');
  } finally {
    await platform.close();
  }
  return { rows, seconds: (performance.now() - started) / 1000 };
}

/** A panel's request over the widest range, with the inspector key from the CLI's credentials file in `dir`. */
export function dashboardRequest(dir, portalId, panel) {
  const { inspectorKey } = JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8'));
  const headers = { authorization: `Bearer ${inspectorKey}` };
  return () => ({ method: 'GET', path: `/_inspector/api/dashboard/${panel}?portal=${portalId}&range=90d`, headers });
}
