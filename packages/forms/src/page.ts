/** Values a field takes from the page (`queryParam`, `cookieName`). Campaign parameters
 * (`utm_*`, click ids) are remembered in `sessionStorage` for the session wherever `forms.js`
 * runs, so they survive navigation from the landing page to the form's page; the current URL wins
 * over what was remembered. Storage may be refused (private modes, sandboxes): then only the
 * current URL counts. */
import type { FormField } from './types';

const KEY = 'svc_params';
const CAMPAIGN = /^(utm_\w+|gclid|gbraid|wbraid|dclid|fbclid|msclkid|ttclid|twclid|li_fat_id)$/;
let saved: Record<string, string> = {};

/** Reads what was remembered and adds the current URL's campaign parameters (and `names`). */
export function remember(names: string[] = []) {
  try {
    saved = JSON.parse((sessionStorage[KEY] as string | undefined) || '{}') as typeof saved;
  } catch {
    // unreadable: start again
  }
  new URLSearchParams(location.search).forEach((v, k) => (CAMPAIGN.test(k) || names.includes(k)) && (saved[k] = v));
  try {
    sessionStorage[KEY] = JSON.stringify(saved);
  } catch {
    // refused: the current URL still counts
  }
}

/** The field's value from the page, if it takes one. */
export function pageValue({ queryParam: q, cookieName: c }: FormField): string | undefined {
  if (q) remember([q]);
  const cookie = c && document.cookie.split('; ').find((x) => x.startsWith(c + '='));
  try {
    return (q && saved[q]) || (cookie ? decodeURIComponent(cookie.slice(c.length + 1)) : undefined);
  } catch {
    return cookie!.slice(c!.length + 1);
  }
}
