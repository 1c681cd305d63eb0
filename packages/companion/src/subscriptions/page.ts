/** The ready-made preference centre: a page, its script and its style, served by the router at
 * `/preferences`, `/preferences.js`, `/preferences.css`. No inline script or style, so helmet's
 * default Content-Security-Policy applies unchanged. The markup uses the `svc-form` classes and
 * `--svc-*` custom properties the form embed uses, so a site's form styling carries over. It is
 * never a dead end: it links back to the site, and a visitor the site does not know yet is told
 * how to get to their preferences (an email's link, or the site's sign-up page when it has one). */
import { cacheable, etagOf, type CoreRequest, type Reply } from '../http/exchange';

export interface PageLinks {
  /** "Back to the site"; default `/`. */
  siteUrl?: string;
  /** Where a visitor the site does not know yet says who they are (a sign-up or contact form). */
  signUpUrl?: string;
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A link the page may carry: a path on this site or an http(s) URL (never javascript: or data:);
 * anything else is refused when the companion is created. */
export function pageLink(name: string, value: string | undefined) {
  if (value === undefined) return undefined;
  if (typeof value == 'string' && (/^\/(?![/\\])/.test(value) || /^https?:\/\/[^/]/i.test(value))) return value; // '//x' and '/\x' leave the site
  throw new TypeError(
    `subscriptions.${name} must be a path on the site (/…) or an http(s) URL, not "${String(value).slice(0, 80)}"`,
  );
}

const html = (site: string, signUp: string | undefined) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<link rel="icon" href="data:,">
<title>Email preferences</title>
<link rel="stylesheet" href="preferences.css">
<script src="preferences.js" defer></script>
</head>
<body>
<main class="svc-preferences">
  <h1>Email preferences</h1>
  <p class="svc-status" role="status" aria-live="polite">Loading your preferences…</p>
  <form class="svc-form" hidden>
    <p class="svc-who"></p>
    <fieldset class="svc-fieldset"><legend>Send me</legend><div class="svc-types"></div></fieldset>
    <div class="svc-actions">
      <button type="submit" class="svc-submit">Save preferences</button>
      <button type="button" class="svc-secondary svc-unsubscribe-all">Unsubscribe from all emails</button>
    </div>
  </form>
  <div class="svc-unknown" hidden>
    <p>This site does not know who you are yet, so it cannot show your email preferences.</p>
    <p>Open this page from the <em>manage your preferences</em> link at the bottom of one of our emails${
      signUp ? `, or <a class="svc-sign-up" href="${escape(signUp)}">tell us who you are</a> first and come back` : ''
    }.</p>
  </div>
  <p class="svc-back"><a href="${escape(site)}">← Back to the site</a></p>
</main>
</body>
</html>
`;

const JS = `(() => {
  'use strict';
  const token = new URLSearchParams(location.search).get('token');
  const api = 'subscriptions' + (token ? '?token=' + encodeURIComponent(token) : '');
  const $ = (s) => document.querySelector(s);
  const status = $('.svc-status'), form = $('.svc-form'), list = $('.svc-types');
  let csrf = '';
  const say = (text, kind) => { status.textContent = text; status.className = 'svc-status' + (kind ? ' svc-' + kind : ''); };
  function render(p) {
    csrf = p.csrfToken;
    $('.svc-who').textContent = 'Preferences for ' + p.email;
    list.replaceChildren(...p.types.map((t) => {
      const label = document.createElement('label'); label.className = 'svc-field svc-checkbox';
      const box = document.createElement('input'); box.type = 'checkbox'; box.name = 'type'; box.value = String(t.id);
      box.checked = t.subscribed; box.disabled = p.unsubscribedFromAll;
      const text = document.createElement('span'); text.className = 'svc-label'; text.textContent = t.name;
      const help = document.createElement('small'); help.className = 'svc-description'; help.textContent = t.description;
      label.append(box, text, help); return label;
    }));
    $('.svc-unsubscribe-all').disabled = p.unsubscribedFromAll;
    $('.svc-submit').disabled = p.unsubscribedFromAll;
    form.hidden = false;
  }
  async function call(method, body) {
    const res = await fetch(api, { method, credentials: 'same-origin', headers: body ? { 'content-type': 'application/json', 'x-csrf-token': csrf } : {}, body: body && JSON.stringify(body) });
    const json = await res.json().catch(() => ({}));
    if (!res.ok) throw Object.assign(new Error(json.message || 'Something went wrong; please try again.'), { status: res.status });
    return json;
  }
  // Without a link's token a 401 means the site does not know this visitor: say what to do.
  const failed = (e) => {
    if (e.status == 401 && !token) { say(''); $('.svc-unknown').hidden = false; } else say(e.message, 'error');
  };
  async function save(body, done) {
    try { render(await call('PUT', body)); say(done, 'success'); } catch (e) { say(e.message, 'error'); }
  }
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const subscriptions = [...list.querySelectorAll('input')].map((b) => ({ id: Number(b.value), subscribed: b.checked }));
    if (subscriptions.length) save({ subscriptions }, 'Your preferences are saved.');
  });
  $('.svc-unsubscribe-all').addEventListener('click', () => {
    if (confirm('Unsubscribe from all emails? This cannot be undone here.')) save({ unsubscribeFromAll: true }, 'You are unsubscribed from all emails.');
  });
  call('GET').then((p) => { render(p); say(p.unsubscribedFromAll ? 'You are unsubscribed from all emails.' : ''); }, failed);
})();
`;

const CSS = `:root { --svc-font: system-ui, sans-serif; --svc-color: #1f2933; --svc-accent: #0b69a3; --svc-error: #b42318; --svc-success: #067647; --svc-radius: 6px; }
body { font-family: var(--svc-font); color: var(--svc-color); margin: 0; background: #f7f8fa; }
.svc-preferences { max-width: 36rem; margin: 3rem auto; padding: 2rem; background: #fff; border-radius: var(--svc-radius); box-shadow: 0 1px 3px rgb(0 0 0 / 0.1); }
.svc-fieldset { border: 0; padding: 0; margin: 1rem 0; }
.svc-field { display: grid; grid-template-columns: auto 1fr; gap: 0.25rem 0.75rem; margin: 0.75rem 0; align-items: start; }
.svc-description { grid-column: 2; color: #52606d; }
.svc-actions { display: flex; gap: 0.75rem; flex-wrap: wrap; }
.svc-submit, .svc-secondary { font: inherit; padding: 0.6rem 1.1rem; border-radius: var(--svc-radius); border: 1px solid var(--svc-accent); cursor: pointer; }
.svc-submit { background: var(--svc-accent); color: #fff; }
.svc-secondary { background: #fff; color: var(--svc-accent); }
button:disabled { opacity: 0.5; cursor: default; }
.svc-error { color: var(--svc-error); }
.svc-success { color: var(--svc-success); }
.svc-back { margin: 1.5rem 0 0; }
.svc-preferences a { color: var(--svc-accent); }
`;

/** A script or style: cached for a while, revalidated by its ETag. */
const asset = (type: string, body: string) => {
  const reply = {
    status: 200,
    headers: { 'content-type': `${type}; charset=utf-8`, 'cache-control': 'public, max-age=300' },
    body,
  };
  const etag = etagOf(body);
  return (req: CoreRequest) => cacheable(req, reply, etag);
};

/** The page and its assets. `links` are checked already (settings.ts, through pageLink). */
export function preferencePage(links: Required<Pick<PageLinks, 'siteUrl'>> & PageLinks) {
  const page: Reply = {
    status: 200,
    headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' },
    body: html(links.siteUrl, links.signUpUrl),
  };
  return {
    html: () => page,
    js: asset('text/javascript', JS),
    css: asset('text/css', CSS),
  };
}
