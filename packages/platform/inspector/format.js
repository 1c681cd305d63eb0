// Shared by the inspector's pages: elements built with textContent only (visitor data is never
// markup), and numbers, dates and durations as people read them, in the browser's locale.

/** An element with attributes and children: el('li', {class: 'x'}, 'text', child, ...). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k == 'onclick') node.addEventListener('click', v);
    else if (v != null) node.setAttribute(k, v);
  }
  for (const c of children) if (c != null) node.append(c instanceof Node ? c : String(c));
  return node;
}

const numbers = new Intl.NumberFormat();
const amounts = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });
const percents = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 });
const dateTimes = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const relatives = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

export const number = (n) => numbers.format(Number(n) || 0);
export const amount = (n) => amounts.format(Number(n) || 0);
export const percent = (r) => (r == null ? '–' : percents.format(r));
/** A local date and time, e.g. "Nov 26, 2026, 9:41 AM"; empty for none. */
export const dateTime = (ms) => (ms ? dateTimes.format(new Date(Number(ms))) : '');

const UNITS = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['week', 7 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
];
/** How long ago (or ahead) `ms` is: "3 minutes ago", "yesterday". */
export function relative(ms, now = Date.now()) {
  if (!ms) return '';
  const diff = Number(ms) - now;
  for (const [unit, size] of UNITS)
    if (Math.abs(diff) >= size || unit == 'second') return relatives.format(Math.round(diff / size), unit);
  return '';
}

/** A duration in the two largest units: "45 s", "12 min 5 s", "2 h 3 min", "3 d 4 h". */
export function duration(ms) {
  let s = Math.max(0, Math.round(Number(ms) / 1000));
  const parts = [];
  for (const [label, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['min', 60],
    ['s', 1],
  ]) {
    if (s >= size || (label == 's' && !parts.length)) parts.push(`${Math.floor(s / size)} ${label}`);
    s %= size;
  }
  return parts.slice(0, 2).join(' ');
}

/** A <time> showing a local date and time, with how long ago as its title (or the reverse). */
export const when = (ms, now = Date.now()) =>
  ms
    ? el(
        'time',
        { datetime: new Date(Number(ms)).toISOString(), title: relative(ms, now), class: 'when' },
        dateTime(ms),
      )
    : '';

/** The inspector key: from the URL fragment (#key=…, then taken out of the address bar) or this
 * tab's earlier pages. */
export function inspectorKey() {
  const key =
    new URLSearchParams(location.hash.slice(1)).get('key') || sessionStorage.getItem('svc-inspector-key') || '';
  if (key) sessionStorage.setItem('svc-inspector-key', key);
  history.replaceState(null, '', location.pathname + location.search);
  return key;
}

export function apiWith(key) {
  return async (path) => {
    const res = await fetch(`api/${path}`, { headers: { authorization: `Bearer ${key}` } });
    const body = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(body.message || `HTTP ${res.status}`);
    return body;
  };
}
