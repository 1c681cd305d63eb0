// The inspector page: reads /_inspector/api with the key from the URL fragment (#key=…) and
// renders with textContent only — contact data comes from visitors and is never markup.
const key = new URLSearchParams(location.hash.slice(1)).get('key') || sessionStorage.getItem('svc-inspector-key') || '';
if (key) sessionStorage.setItem('svc-inspector-key', key);
history.replaceState(null, '', location.pathname); // the key leaves the address bar

import { duration, el, number, relative, when as timeEl } from './format.js';

const $ = (id) => document.getElementById(id);
const state = { portal: 0, search: '', offset: 0, vid: 0, form: '', feedAfter: 0 };

/** Property values people read as dates (epoch milliseconds) or durations, shown so; others as they are. */
function propertyValue(name, value) {
  if (/^\d{12,14}$/.test(value) && /date|timestamp|_at$/.test(name))
    return el('span', { title: value }, timeEl(value), el('span', { class: 'muted' }, ` · ${relative(value)}`));
  if (/^svc_analytics_(source|latest_source)$/.test(name)) return sourceLabel(value);
  return value;
}
const sourceLabel = (s) =>
  s
    ? s
        .toLowerCase()
        .replace(/_/g, ' ')
        .replace(/^./, (c) => c.toUpperCase())
    : '';
const status = (text) => ($('status').textContent = text);

async function api(path, method = 'GET') {
  const res = await fetch(`api/${path}`, { method, headers: { authorization: `Bearer ${key}` } });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(body.message || `HTTP ${res.status}`);
  return body;
}
const portalQuery = () => `portal=${state.portal}`;

async function loadPortals() {
  const portals = await api('portals');
  const select = $('portal');
  select.replaceChildren(...portals.map((p) => el('option', { value: p.id }, `${p.id} · ${p.name} (${p.tier})`)));
  state.portal = Number(select.value);
  select.addEventListener('change', () => {
    state.portal = Number(select.value);
    Object.assign(state, { offset: 0, vid: 0, form: '', feedAfter: 0 });
    $('feed').replaceChildren();
    refresh();
  });
}

async function loadContacts(append = false) {
  const { contacts, hasMore } = await api(
    `contacts?${portalQuery()}&q=${encodeURIComponent(state.search)}&offset=${state.offset}`,
  );
  const items = contacts.map((c) =>
    el(
      'li',
      { class: c.vid == state.vid ? 'active' : '', 'data-vid': c.vid },
      el(
        'button',
        { type: 'button', onclick: () => showContact(c.vid) },
        el('div', {}, c.name || c.email || `visitor ${c.vid}`),
        el(
          'div',
          { class: 'sub' },
          [c.email, c.company].filter(Boolean).join(' · ') || `${c.utks.length} visitor token(s)`,
        ),
      ),
    ),
  );
  if (append) $('contacts').append(...items);
  else $('contacts').replaceChildren(...(items.length ? items : [el('li', { class: 'empty' }, 'No contacts yet.')]));
  $('more').hidden = !hasMore;
}

async function loadSide() {
  const [lists, forms] = await Promise.all([api(`lists?${portalQuery()}`), api(`forms?${portalQuery()}`)]);
  $('lists').replaceChildren(
    ...lists.map((l) =>
      el('li', {}, l.name, el('span', { class: 'sub' }, ` · ${l.dynamic ? 'dynamic' : 'static'} · ${l.size}`)),
    ),
  );
  $('forms').replaceChildren(
    ...forms.map((f) =>
      el(
        'li',
        { class: f.guid == state.form ? 'active' : '', 'data-form': f.guid },
        el(
          'button',
          { type: 'button', onclick: () => showSpam(f) },
          f.name || f.guid,
          el('span', { class: 'sub' }, ` · ${f.submissions} submission(s)${f.spam ? `, ${f.spam} spam` : ''}`),
        ),
      ),
    ),
  );
}

/** A form's spam for review: why each was judged spam, when, its values; "Not spam" replays it
 * as it was sent (the contact, lists, workflows, consent, attribution, with its original time). */
async function showSpam(form) {
  Object.assign(state, { vid: 0, form: form.guid });
  const spam = await api(`forms/${encodeURIComponent(form.guid)}/spam?${portalQuery()}&limit=100`);
  const release = async (s, button) => {
    button.disabled = true;
    try {
      const done = await api(
        `forms/${encodeURIComponent(form.guid)}/spam/${encodeURIComponent(s.conversionId)}/release?${portalQuery()}`,
        'POST',
      );
      status(
        done.released.vid
          ? `released: contact ${done.released.vid}`
          : 'released (no contact: the form has no email and the visitor is unknown)',
      );
      await loadSide();
      await showSpam(form);
    } catch (err) {
      button.disabled = false;
      status(err.message);
    }
  };
  const values = (v) =>
    el('dl', { class: 'props' }, ...Object.entries(v).flatMap(([k, x]) => [el('dt', {}, k), el('dd', {}, x)]));
  const REASONS = {
    HONEYPOT: 'honeypot filled',
    NO_INTERACTION: 'sent at once, no person seen',
    TOO_FAST: 'too fast (old rule)',
  };
  $('contact').replaceChildren(
    el('h3', {}, `Spam · ${form.name || form.guid}`),
    el('p', { class: 'muted' }, 'Submissions kept apart as spam. "Not spam" replays one exactly once, as it was sent.'),
    spam.length
      ? el(
          'table',
          { class: 'spam' },
          el('tr', {}, el('th', {}, 'Sent'), el('th', {}, 'Reason'), el('th', {}, 'Values'), el('th', {}, '')),
          ...spam.map((s) => {
            const button = el('button', { type: 'button' }, 'Not spam');
            button.addEventListener('click', () => release(s, button));
            return el(
              'tr',
              {},
              el(
                'td',
                {},
                timeEl(s.timestamp),
                el('div', { class: 'sub muted' }, relative(s.timestamp)),
                s.pageUrl ? el('div', { class: 'sub muted' }, s.pageUrl) : null,
              ),
              el('td', {}, el('span', { class: `tag spam-${s.reason.toLowerCase()}` }, REASONS[s.reason] || s.reason)),
              el('td', {}, values(s.values)),
              el(
                'td',
                {},
                s.released
                  ? el(
                      'span',
                      { class: 'muted' },
                      'released ',
                      timeEl(s.released.at),
                      s.released.vid ? ` · contact ${s.released.vid}` : '',
                    )
                  : button,
              ),
            );
          }),
        )
      : el('p', { class: 'empty' }, 'No spam for this form.'),
  );
  for (const li of $('forms').children) li.classList.toggle('active', li.dataset.form == form.guid);
  for (const li of $('contacts').children) li.classList.remove('active');
}

/** A custom event's properties, name = value, one per line; nothing when it has none. */
function eventProperties(properties = {}) {
  const pairs = Object.entries(properties).sort(([a], [b]) => a.localeCompare(b));
  return pairs.length
    ? el('dl', { class: 'props' }, ...pairs.flatMap(([k, v]) => [el('dt', {}, k), el('dd', {}, v)]))
    : null;
}

async function showContact(vid) {
  Object.assign(state, { vid, form: '' });
  const c = await api(`contacts/${vid}?${portalQuery()}`);
  const rows = (pairs) => el('table', {}, ...pairs.map(([k, v]) => el('tr', {}, el('th', {}, k), el('td', {}, v))));
  const p = c.properties;
  const source = (parts) => (parts.length ? [sourceLabel(parts[0]), ...parts.slice(1)].join(' · ') : 'unknown');
  const span =
    p.svc_analytics_first_visit_timestamp && p.svc_analytics_last_visit_timestamp
      ? Number(p.svc_analytics_last_visit_timestamp) - Number(p.svc_analytics_first_visit_timestamp)
      : null;
  $('contact').replaceChildren(
    el('h3', {}, c.name || c.email || `Contact ${c.vid}`),
    el(
      'p',
      { class: 'muted' },
      `vid ${c.vid} · created `,
      timeEl(c.createdAt),
      ` (${relative(c.createdAt)}) · updated `,
      timeEl(c.updatedAt),
      ` (${relative(c.updatedAt)})`,
    ),
    c.source
      ? el(
          'div',
          { class: 'source' },
          el('h2', {}, 'Source'),
          rows([
            ['Original source', source(c.source.original)],
            ['Latest source', source(c.source.latest)],
            [
              'Visits',
              `${number(c.source.visits)} visit(s), ${number(c.source.pageViews)} page view(s)${span !== null ? `, over ${duration(span)}` : ''}`,
            ],
            ...(c.source.firstReferrer ? [['First referrer', c.source.firstReferrer]] : []),
          ]),
        )
      : null,
    el(
      'div',
      { class: 'cols' },
      el('div', {}, el('h2', {}, 'Identities'), rows(c.identities.map((i) => [i.type, i.value]))),
      el(
        'div',
        {},
        el('h2', {}, 'Lists'),
        c.lists.length
          ? rows(
              c.lists.map((l) => [
                l.name,
                el('span', {}, `${l.dynamic ? 'dynamic' : 'static'}, since `, timeEl(l.addedAt)),
              ]),
            )
          : el('p', { class: 'empty' }, 'In no list.'),
      ),
    ),
    el('h2', {}, 'Timeline'),
    c.timeline.length
      ? el(
          'ol',
          { class: 'timeline' },
          ...c.timeline.map((t) =>
            el(
              'li',
              {},
              el('span', { class: 'muted' }, timeEl(t.at), el('div', { class: 'sub' }, relative(t.at))),
              el(
                'span',
                {},
                el('span', { class: `tag ${t.kind.replace(/ /g, '-')}` }, t.kind),
                t.title,
                t.detail ? el('div', { class: 'sub muted' }, t.detail) : null,
                eventProperties(t.properties),
              ),
            ),
          ),
        )
      : el('p', { class: 'empty' }, 'Nothing yet.'),
    el('h2', {}, 'Properties'),
    rows(
      Object.entries(c.properties)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, propertyValue(k, v)]),
    ),
  );
  for (const li of $('contacts').children) li.classList.toggle('active', li.dataset.vid == String(vid));
}

async function pollFeed() {
  try {
    const events = await api(`feed?${portalQuery()}&after=${state.feedAfter}`);
    if (events.length) {
      const first = state.feedAfter == 0;
      state.feedAfter = events[0].seq;
      $('feed').prepend(
        ...events.map((e) =>
          el(
            'li',
            { class: first ? '' : 'new' },
            el('span', { class: `tag ${e.kind.replace(/ /g, '-')}` }, e.kind),
            e.title ?? '',
            e.value ? ` (${e.value})` : '',
            el(
              'div',
              { class: 'sub muted' },
              `${relative(e.receivedAt)} · ${e.vid ? `contact ${e.vid}` : 'anonymous'} · ${e.utk.slice(0, 8)}…`,
            ),
          ),
        ),
      );
      while ($('feed').children.length > 200) $('feed').lastChild.remove();
      if (!first) refresh(false);
    }
    status(`live · ${new Date().toLocaleTimeString()}`);
  } catch (err) {
    status(err.message);
  }
  setTimeout(pollFeed, 2000);
}

async function refresh(all = true) {
  await loadContacts();
  if (all) await loadSide();
  if (state.vid) await showContact(state.vid);
}

let typing;
$('search').addEventListener('input', (e) => {
  clearTimeout(typing);
  typing = setTimeout(() => ((state.search = e.target.value), (state.offset = 0), loadContacts()), 250);
});
$('more').addEventListener('click', () => ((state.offset += 50), loadContacts(true)));

try {
  if (!key) throw new Error('No inspector key: open the inspector URL the platform printed.');
  await loadPortals();
  await refresh();
  pollFeed();
} catch (err) {
  status(err.message);
  $('contact').replaceChildren(el('p', { class: 'empty' }, err.message));
}
