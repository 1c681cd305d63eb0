// The mail page: the emails workflows sent (the platform's mail catcher, /_inspector/api/mail),
// newest first, and one of them shown: its headers, its HTML in a sandboxed frame (srcdoc: no
// script of an email runs, and the frame keeps this page's CSP, so nothing loads from elsewhere;
// its links open in a new tab) and its text, whose links are made clickable. Everything else is
// rendered with textContent only.
import { apiWith, el, inspectorKey, relative, when } from './format.js';

const key = inspectorKey();
const api = apiWith(key);
const $ = (id) => document.getElementById(id);
const state = { portal: 0, id: Number(new URLSearchParams(location.search).get('id')) || 0, before: 0, newest: 0 };
const status = (text) => ($('status').textContent = text);
const portalQuery = () => `portal=${state.portal}`;

async function loadPortals() {
  const portals = await api('portals');
  const select = $('portal');
  select.replaceChildren(...portals.map((p) => el('option', { value: p.id }, `${p.id} · ${p.name} (${p.tier})`)));
  const wanted = new URLSearchParams(location.search).get('portal');
  if (wanted && portals.some((p) => String(p.id) == wanted)) select.value = wanted;
  state.portal = Number(select.value);
  select.addEventListener('change', () => {
    Object.assign(state, { portal: Number(select.value), id: 0, before: 0, newest: 0 });
    $('message').replaceChildren(el('p', { class: 'empty' }, 'Pick an email to read it.'));
    loadList();
  });
}

function item(m) {
  return el(
    'li',
    { class: m.id == state.id ? 'active' : '', 'data-id': m.id },
    el(
      'button',
      { type: 'button', onclick: () => show(m.id) },
      el('div', {}, m.subject),
      el('div', { class: 'sub' }, `to ${m.to}`),
      el(
        'div',
        { class: 'sub' },
        relative(m.sentAt),
        m.workflowName ? ` · ${m.workflowName}` : m.workflowId ? ` · workflow ${m.workflowId}` : '',
      ),
    ),
  );
}

async function loadList(append = false) {
  const page = await api(`mail?${portalQuery()}${append ? `&before=${state.before}` : ''}`);
  const notice = $('configure');
  notice.hidden = page.preferenceLinks;
  notice.textContent = page.howToConfigure ?? '';
  const items = page.messages.map(item);
  if (append) $('messages').append(...items);
  else {
    $('messages').replaceChildren(
      ...(items.length
        ? items
        : [
            el(
              'li',
              { class: 'empty' },
              'No email sent yet: a workflow with an email step sends one when a contact is enrolled.',
            ),
          ]),
    );
    state.newest = page.messages[0]?.id ?? 0;
  }
  if (page.messages.length) state.before = page.messages.at(-1).id;
  $('more').hidden = !page.hasMore;
}

/** Text with its http(s) links made clickable (opening in a new tab); the rest stays text. */
function linkified(text) {
  const parts = [];
  let last = 0;
  for (const m of text.matchAll(/https?:\/\/[^\s<>"]+/g)) {
    parts.push(text.slice(last, m.index), el('a', { href: m[0], target: '_blank', rel: 'noopener noreferrer' }, m[0]));
    last = m.index + m[0].length;
  }
  parts.push(text.slice(last));
  return parts;
}

async function show(id) {
  state.id = id;
  const m = await api(`mail/${id}?${portalQuery()}`);
  const rows = (pairs) =>
    el(
      'table',
      { class: 'headers' },
      ...pairs.map(([k, v]) => el('tr', {}, el('th', { scope: 'row' }, k), el('td', {}, v))),
    );
  // A frame of its own, sandboxed: no scripts, no same origin (so no key, no API), popups only
  // for the links, which the platform's template opens in a new tab.
  const frame = el('iframe', {
    class: 'message-body',
    title: `The email "${m.subject}" as HTML`,
    sandbox: 'allow-popups allow-popups-to-escape-sandbox',
    referrerpolicy: 'no-referrer',
  });
  frame.srcdoc = m.html;
  $('message').replaceChildren(
    el('h3', {}, m.subject),
    rows([
      ['From', m.from],
      ['To', m.to],
      ['Sent', el('span', {}, when(m.sentAt), el('span', { class: 'muted' }, ` · ${relative(m.sentAt)}`))],
      ['Workflow', m.workflowName ? `${m.workflowName} (${m.workflowId})` : (m.workflowId ?? '–')],
      ['Campaign', String(m.campaignId)],
      [
        'Preference link',
        m.preferenceLink ? 'yes' : 'none: the platform was not given the preference page and link secret',
      ],
    ]),
    el('h2', {}, 'HTML'),
    frame,
    el('h2', {}, 'Text'),
    el('pre', { class: 'message-text' }, ...linkified(m.text)),
  );
  for (const li of $('messages').children) li.classList.toggle('active', li.dataset.id == String(id));
}

/** New emails show up on their own: the list is read again every 3 s while one came. */
async function poll() {
  try {
    const { messages } = await api(`mail?${portalQuery()}`);
    if ((messages[0]?.id ?? 0) != state.newest) await loadList();
    status(`live · ${new Date().toLocaleTimeString()}`);
  } catch (err) {
    status(err.message);
  }
  setTimeout(poll, 3000);
}

$('more').addEventListener('click', () => loadList(true));

try {
  if (!key) throw new Error('No inspector key: open the inspector URL the platform printed.');
  await loadPortals();
  await loadList();
  if (state.id) await show(state.id);
  setTimeout(poll, 3000);
} catch (err) {
  status(err.message);
  $('message').replaceChildren(el('p', { class: 'empty' }, err.message));
}
