/** Where a visit came from, read off the page URL and the referrer of its first page view: the
 * rules of the table "Attribution" in packages/platform/README.md, in its order (the first rule
 * that matches decides). The sites and parameters the rules name are data, in
 * domain/traffic-sources.ts. */
import { parse } from 'tldts';
import {
  CLICK_IDS,
  EMAIL_LINK_PARAMS,
  MEDIUMS,
  SEARCH_ENGINES,
  SOCIAL_LINK_IDS,
  SOCIAL_NETWORKS,
  type SourceType,
} from './traffic-sources';

/** A visit's source: its type and two details (engine, network, site or campaign; then keyword,
 * campaign or referring URL), and the external referrer it came with, if any. */
export interface Touch {
  source: SourceType;
  data1: string | null;
  data2: string | null;
  referrer: string | null;
}

/** The visitor came from another page of the site itself: not a source. */
export const INTERNAL = 'internal';

const MAX_DETAIL = 500;

function url(text: string | undefined): URL | undefined {
  if (!text) return undefined;
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** A site's entry in `table`: by host name, then registrable domain, then that domain without
 * its public suffix (google.co.uk → google). */
function lookup<T>(table: Record<string, T>, hostname: string): T | undefined {
  const host = hostname.toLowerCase().replace(/^www\./, '');
  if (Object.hasOwn(table, host)) return table[host];
  const { domain, domainWithoutSuffix } = parse(host);
  if (domain && Object.hasOwn(table, domain)) return table[domain];
  if (domainWithoutSuffix && Object.hasOwn(table, domainWithoutSuffix)) return table[domainWithoutSuffix];
  return undefined;
}

/** A `utm_source` value as a site: a name (`google`, `facebook`) or a host (`news.ycombinator.com`). */
const sourceSite = <T>(table: Record<string, T>, utmSource: string | null) =>
  utmSource ? lookup(table, utmSource) : undefined;

/** Whether `host` is the site's own: the page's host, the same registrable domain (blog.acme.com
 * and acme.com), or one of the portal's own domains (or a subdomain of one). */
function own(host: string, pageHost: string | undefined, ownDomains: readonly string[]) {
  const h = host.toLowerCase();
  if (pageHost !== undefined) {
    const p = pageHost.toLowerCase();
    if (h == p) return true;
    const domain = parse(h).domain;
    if (domain && domain == parse(p).domain) return true;
  }
  return ownDomains.some((d) => h == d || h.endsWith(`.${d}`));
}

const clip = (s: string | null | undefined) => (s ? s.slice(0, MAX_DETAIL) : null);
const touch = (
  source: SourceType,
  data1: string | null | undefined,
  data2: string | null | undefined,
  referrer: string | null,
): Touch => ({
  source,
  data1: clip(data1),
  data2: data2 == data1 ? null : clip(data2),
  referrer: clip(referrer),
});

/**
 * The source of a visit that lands on `pageUrl` from `referrer`; INTERNAL when the referrer is
 * the site itself and the URL names no campaign. `ownDomains`: the portal's own domains besides
 * the page's (lower case).
 */
export function classify(
  pageUrl: string | undefined,
  referrer: string | undefined,
  ownDomains: readonly string[] = [],
): Touch | typeof INTERNAL {
  const page = url(pageUrl);
  const q = page?.search ? page.searchParams : undefined;
  const param = (name: string) => q?.get(name)?.trim() || null;
  const utm = {
    source: param('utm_source'),
    medium: param('utm_medium')?.toLowerCase() ?? null,
    campaign: param('utm_campaign'),
    term: param('utm_term'),
    content: param('utm_content'),
  };
  const ref = url(referrer);
  const external = ref !== undefined && ref.hostname != '' && !own(ref.hostname, page?.hostname, ownDomains);
  const from = external ? referrer! : null;
  const refSearch = external ? lookup(SEARCH_ENGINES, ref.hostname) : undefined;
  const refSocial = external ? lookup(SOCIAL_NETWORKS, ref.hostname) : undefined;
  const is = (list: string[]) => utm.medium !== null && list.includes(utm.medium);

  // Campaigns: what the link itself says, first.
  if (q) {
    if (is(MEDIUMS.email) || EMAIL_LINK_PARAMS.some((p) => q.has(p)))
      return touch('EMAIL_MARKETING', utm.campaign ?? utm.source, utm.content ?? utm.term, from);
    const click = Object.keys(CLICK_IDS).find((id) => q.has(id));
    if (click) {
      const { network, type } = CLICK_IDS[click];
      return touch(type, network, type == 'PAID_SEARCH' ? (utm.term ?? utm.campaign) : utm.campaign, from);
    }
    const socialSource = sourceSite(SOCIAL_NETWORKS, utm.source) ?? refSocial;
    const searchSource = sourceSite(SEARCH_ENGINES, utm.source)?.name ?? refSearch?.name;
    if (is(MEDIUMS.paidSocial) || (is(MEDIUMS.paid) && socialSource))
      return touch('PAID_SOCIAL', socialSource ?? utm.source, utm.campaign, from);
    if (is(MEDIUMS.paid) && searchSource) return touch('PAID_SEARCH', searchSource, utm.term ?? utm.campaign, from);
    if (utm.medium == 'organic' && searchSource) return touch('ORGANIC_SEARCH', searchSource, utm.term, from);
    const linkId = Object.keys(SOCIAL_LINK_IDS).find((id) => q.has(id));
    if (is(MEDIUMS.social) || linkId)
      return touch(
        'SOCIAL_MEDIA',
        socialSource ?? (linkId && SOCIAL_LINK_IDS[linkId]) ?? utm.source,
        utm.campaign,
        from,
      );
    if (utm.source || utm.medium || utm.campaign)
      return touch(
        'OTHER_CAMPAIGNS',
        utm.campaign ?? utm.source ?? utm.medium,
        utm.medium ?? utm.content ?? utm.term,
        from,
      );
  }
  // Then where the visitor came from.
  if (!ref || ref.hostname == '') return touch('DIRECT_TRAFFIC', page ? page.origin + page.pathname : null, null, null);
  if (!external) return INTERNAL;
  if (refSearch)
    return touch(
      'ORGANIC_SEARCH',
      refSearch.name,
      refSearch.keyword ? ref.searchParams.get(refSearch.keyword) : null,
      from,
    );
  if (refSocial) return touch('SOCIAL_MEDIA', refSocial, from, from);
  return touch('REFERRALS', ref.hostname.toLowerCase().replace(/^www\./, ''), from, from);
}

/** Whether two sources are one campaign: a visit that lands from another starts a new session. */
export const sameSource = (a: { source: string; data1: string | null }, b: { source: string; data1: string | null }) =>
  a.source == b.source && a.data1 == b.data1;
