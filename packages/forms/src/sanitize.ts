/** The allow-list sanitiser for rich text (group texts, thank-you messages). The HTML is parsed
 * into an inert document (nothing runs, nothing loads), then only allowed tags are re-created
 * in the page, with no attribute but a checked `href`. Unknown tags are unwrapped (their text
 * is kept); scripts, styles and embedded content are dropped with their content. A library such
 * as DOMPurify would be more general but would not fit the 7 KB budget. */

const KEEP = /^(A|B|STRONG|I|EM|U|S|P|BR|HR|UL|OL|LI|H[1-6]|SPAN|DIV|BLOCKQUOTE|CODE|PRE|SMALL|SUB|SUP)$/;
const DROP =
  /^(SCRIPT|STYLE|TEMPLATE|IFRAME|FRAME|OBJECT|EMBED|NOSCRIPT|TEXTAREA|TITLE|SVG|MATH|SELECT|BUTTON|INPUT|FORM)$/;

/** `url` when it is http(s) or mailto (relative URLs resolve against the page), else undefined. */
export function safeUrl(url: string | undefined, schemes = /^(https?|mailto):$/): string | undefined {
  try {
    const u = new URL(url!, location.href);
    return url && schemes.test(u.protocol) ? u.href : undefined;
  } catch {
    return undefined;
  }
}

export function sanitize(html: string): DocumentFragment {
  const out = document.createDocumentFragment();
  copy(new DOMParser().parseFromString(html, 'text/html').body, out);
  return out;
}

function copy(from: Node, to: Node) {
  from.childNodes.forEach((n) => {
    if (n.nodeType == 3) to.appendChild(document.createTextNode(n.textContent!));
    if (n.nodeType != 1) return;
    const tag = (n as Element).tagName;
    if (DROP.test(tag)) return;
    if (!KEEP.test(tag)) return copy(n, to);
    const el = document.createElement(tag);
    const href = tag == 'A' && safeUrl((n as Element).getAttribute('href')!);
    if (href) {
      el.setAttribute('href', href);
      el.setAttribute('rel', 'noopener noreferrer nofollow');
    }
    copy(n, el);
    to.appendChild(el);
  });
}
