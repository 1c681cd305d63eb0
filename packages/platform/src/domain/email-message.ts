/** The email a workflow's EMAIL step sends, rendered from its campaign: a plain-text and an HTML
 * body from one simple template (a greeting, the campaign's text, the sender's name, and the
 * footer with the preference and unsubscribe links). Whatever comes from contacts or campaigns is
 * text: escaped in the HTML, never markup; kept to one line in headers; cut to a bounded length. */

export interface EmailContent {
  /** The portal's name: who the email is from. */
  portalName: string;
  /** The sender's address. */
  fromEmail: string;
  to: string;
  /** The contact's first name, when known. */
  firstname?: string;
  campaign: { name: string; subject: string; body?: string };
  /** The preference centre's link for `to` (signed), when the platform knows the preference page. */
  preferencesUrl?: string;
}

export interface RenderedEmail {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** Longest subject and name kept (an email header line is 998 characters at most). */
export const MAX_SUBJECT = 250;
const MAX_NAME = 100;
const MAX_BODY = 10_000;

/** One line (no control characters, white space folded), at most `max` characters. */
export function oneLine(value: string, max: number) {
  const line = value
    .replace(/[\p{Cc}\u2028\u2029]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A display name in a header: quoted, its quotes and backslashes escaped. */
const mailbox = (name: string, address: string) =>
  name ? `"${name.replace(/["\\]/g, '\\$&')}" <${address}>` : address;

/** A link opening outside the viewer that shows the email (the inspector's sandboxed frame). */
const link = (href: string, text: string) =>
  `<a href="${escapeHtml(href)}" target="_blank" rel="noopener noreferrer">${escapeHtml(text)}</a>`;

export function renderEmail(c: EmailContent): RenderedEmail {
  const sender = oneLine(c.portalName, MAX_NAME) || 'svc';
  const firstname = c.firstname ? oneLine(c.firstname, MAX_NAME) : '';
  const subject = oneLine(c.campaign.subject || c.campaign.name, MAX_SUBJECT) || '(no subject)';
  const body = (c.campaign.body?.trim() || `This is "${oneLine(c.campaign.name, MAX_SUBJECT)}" from ${sender}.`).slice(
    0,
    MAX_BODY,
  );
  const paragraphs = body
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean);
  const greeting = `Hi ${firstname || 'there'},`;
  const why = `You get this email because you are in touch with ${sender}.`;

  const text = [
    greeting,
    ...paragraphs,
    `${sender}`,
    '--',
    why,
    ...(c.preferencesUrl
      ? [`Manage your email preferences: ${c.preferencesUrl}`, `Unsubscribe from all emails: ${c.preferencesUrl}`]
      : ['(No preference link: the platform was not given its preference centre.)']),
  ].join('\n\n');

  const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body>
<p>${escapeHtml(greeting)}</p>
${paragraphs.map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`).join('\n')}
<p>${escapeHtml(sender)}</p>
<hr>
<footer>
<p><small>${escapeHtml(why)}</small></p>
${
  c.preferencesUrl
    ? `<p><small>${link(c.preferencesUrl, 'Manage your email preferences')} · ${link(c.preferencesUrl, 'Unsubscribe')}</small></p>`
    : '<p><small>(No preference link: the platform was not given its preference centre.)</small></p>'
}
</footer>
</body>
</html>
`;
  return { from: mailbox(sender, c.fromEmail), to: c.to, subject, text, html };
}
