// The dashboard page: the panels of /_inspector/api/dashboard for a portal and a range, a uPlot
// chart (vendor/uplot.js, served by the platform), and the live view refreshed every 10 s.
import { amount, apiWith, duration, el, inspectorKey, number, percent, relative } from './format.js';
/* global uPlot -- vendor/uplot.js, loaded by its own script tag */

const key = inspectorKey();
const api = apiWith(key);
const $ = (id) => document.getElementById(id);
const RANGES = ['today', '7d', '30d', '90d'];
const state = {
  portal: 0,
  range: RANGES.includes(new URLSearchParams(location.search).get('range'))
    ? new URLSearchParams(location.search).get('range')
    : '7d',
};
const status = (text) => ($('status').textContent = text);

/** A table: a header row, then one row per item; `cols`: [heading, value of item, numeric?]. A
 * numeric cell keeps its raw value in data-value (the browser test reads it). */
function table(id, items, cols, empty = 'Nothing in this range.') {
  const head = el('tr', {}, ...cols.map(([h, , n]) => el('th', { class: n ? 'n' : null, scope: 'col' }, h)));
  const rows = items.map((item) =>
    el(
      'tr',
      {},
      ...cols.map(([, value, n]) => {
        const v = value(item);
        return n ? el('td', { class: 'n', 'data-value': v.raw ?? '' }, v.text) : el('td', {}, v);
      }),
    ),
  );
  $(id).replaceChildren(
    el('thead', {}, head),
    el(
      'tbody',
      {},
      ...(rows.length ? rows : [el('tr', {}, el('td', { class: 'empty', colspan: cols.length }, empty))]),
    ),
  );
}
const count = (n) => ({ raw: n, text: number(n) });
const rate = (r) => ({ raw: r ?? '', text: percent(r) });
const money = (n) => ({ raw: n, text: amount(n) });
const label = (s) =>
  s
    .toLowerCase()
    .replace(/_/g, ' ')
    .replace(/^./, (c) => c.toUpperCase());
const setKpi = (id, n) => {
  $(id).textContent = number(n);
  $(id).dataset.value = n;
};

let chart;
function drawChart(t) {
  const hourly = t.range.grain == 'hour';
  const data = [t.buckets.map((b) => b / 1000), t.visitors, t.sessions, t.views];
  const width = $('chart').clientWidth || 800;
  chart?.destroy();
  chart = new uPlot(
    {
      width,
      height: 260,
      // Days are UTC days (the rollups'); hours are shown in local time.
      ...(hourly ? {} : { tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC') }),
      scales: { x: { time: true } },
      axes: [{}, { values: (_u, ticks) => ticks.map((v) => number(v)) }],
      series: [
        {},
        { label: 'Visitors', stroke: '#ff7a59', width: 2, fill: 'rgba(255,122,89,.08)' },
        { label: 'Sessions', stroke: '#2a7de1', width: 2 },
        { label: 'Page views', stroke: '#2bb673', width: 2 },
      ],
    },
    data,
    $('chart'),
  );
  $('chart-note').textContent = hourly
    ? 'Today by the hour (local time). Visitors: distinct per hour; the total is today\u2019s distinct visitors.'
    : 'By UTC day. Visitors: distinct per day; the total sums each day\u2019s distinct visitors.';
}

async function loadPanels() {
  const q = `portal=${state.portal}&range=${state.range}`;
  status('loading…');
  const [traffic, pages, sources, campaigns, countries, conversions, events] = await Promise.all(
    ['traffic', 'pages', 'sources', 'campaigns', 'countries', 'conversions', 'events'].map((p) =>
      api(`dashboard/${p}?${q}`),
    ),
  );
  setKpi('kpi-visitors', traffic.totals.visitors);
  setKpi('kpi-sessions', traffic.totals.sessions);
  setKpi('kpi-views', traffic.totals.views);
  setKpi('kpi-contacts', conversions.contacts);
  setKpi('kpi-submissions', conversions.submissions);
  drawChart(traffic);
  table('pages', pages.pages, [
    ['Page', (p) => p.url || '(no URL)'],
    ['Views', (p) => count(p.views), true],
  ]);
  table('sources', sources.types, [
    ['Source', (s) => label(s.source)],
    ['Sessions', (s) => count(s.sessions), true],
    ['Contacts', (s) => count(s.contacts), true],
    ['Conversion', (s) => rate(s.conversionRate), true],
  ]);
  table('details', sources.details, [
    ['Source', (s) => `${label(s.source)}${s.detail ? ` · ${s.detail}` : ''}`],
    ['Sessions', (s) => count(s.sessions), true],
    ['Contacts', (s) => count(s.contacts), true],
    ['Conversion', (s) => rate(s.conversionRate), true],
  ]);
  table('referrers', sources.referrers, [
    ['Site', (r) => r.host],
    ['Sessions', (r) => count(r.sessions), true],
  ]);
  table('campaigns', campaigns.campaigns, [
    ['Campaign', (c) => c.campaign],
    ['As', (c) => label(c.source)],
    ['Sessions', (c) => count(c.sessions), true],
  ]);
  table(
    'countries',
    countries.countries,
    [
      ['Country', (c) => c.country],
      ['Page views', (c) => count(c.views), true],
    ],
    'No visitor from an address the prospects mapping knows.',
  );
  table('forms', conversions.forms, [
    ['Form', (f) => f.name || f.guid],
    ['Submissions', (f) => count(f.submissions), true],
  ]);
  table('events', events.events, [
    ['Event', (e) => e.name],
    ['Count', (e) => count(e.count), true],
    ['Revenue', (e) => money(e.revenue), true],
  ]);
  status(`updated ${new Date().toLocaleTimeString()}`);
}

async function loadLive() {
  const live = await api(`dashboard/live?portal=${state.portal}`);
  setKpi('kpi-live', live.visitors);
  const now = Date.now();
  table(
    'live',
    live.sessions,
    [
      ['Visitor', (s) => (s.contact ? `contact ${s.contact}` : `${s.visitor}…`)],
      ['Came from', (s) => `${label(s.source)}${s.detail ? ` · ${s.detail}` : ''}`],
      ['Landed on', (s) => s.landingUrl ?? ''],
      ['Page views', (s) => count(s.pageViews), true],
      ['For', (s) => ({ raw: s.lastAt - s.startedAt, text: duration(s.lastAt - s.startedAt) }), true],
      ['Last seen', (s) => ({ raw: s.lastAt, text: relative(s.lastAt, now) }), true],
    ],
    'Nobody in the last 5 minutes.',
  );
}

function pressRange() {
  for (const b of $('ranges').querySelectorAll('button'))
    b.setAttribute('aria-pressed', String(b.dataset.range == state.range));
}

async function refresh() {
  try {
    await Promise.all([loadPanels(), loadLive()]);
  } catch (err) {
    status(err.message);
  }
}

try {
  if (!key) throw new Error('No inspector key: open the inspector URL the platform printed.');
  const portals = await api('portals');
  const select = $('portal');
  select.replaceChildren(...portals.map((p) => el('option', { value: p.id }, `${p.id} · ${p.name}`)));
  const wanted = new URLSearchParams(location.search).get('portal');
  if (wanted && portals.some((p) => String(p.id) == wanted)) select.value = wanted;
  state.portal = Number(select.value);
  select.addEventListener('change', () => ((state.portal = Number(select.value)), refresh()));
  $('ranges').addEventListener('click', (e) => {
    const range = e.target.closest('button')?.dataset.range;
    if (!range) return;
    state.range = range;
    pressRange();
    refresh();
  });
  pressRange();
  await refresh();
  setInterval(() => loadLive().catch((err) => status(err.message)), 10_000);
} catch (err) {
  status(err.message);
}
