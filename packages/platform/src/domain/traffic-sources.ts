/** The data that attribution (domain/attribution.ts) reads: which sites are search engines and
 * social networks, which URL parameters are ad click ids, and which `utm_medium` values name a
 * kind of campaign. Plain lists, so that adding a site is adding a line.
 *
 * Sites are keyed by their registrable domain (`t.co`) or, to match every country's site at
 * once, by that domain without its public suffix (`google` for google.com, google.co.uk, …). */

/** The source types a contact's `svc_analytics_source` takes (the modelled platform's). */
export const SOURCE_TYPES = [
  'ORGANIC_SEARCH',
  'PAID_SEARCH',
  'EMAIL_MARKETING',
  'SOCIAL_MEDIA',
  'PAID_SOCIAL',
  'REFERRALS',
  'OTHER_CAMPAIGNS',
  'DIRECT_TRAFFIC',
  'OFFLINE',
] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

/** Search engines: the site's name, and the referrer's query parameter holding the search terms
 * (engines rarely send it nowadays; when one does, it becomes the keyword). */
export const SEARCH_ENGINES: Record<string, { name: string; keyword?: string }> = {
  google: { name: 'Google', keyword: 'q' },
  bing: { name: 'Bing', keyword: 'q' },
  yahoo: { name: 'Yahoo', keyword: 'p' },
  duckduckgo: { name: 'DuckDuckGo', keyword: 'q' },
  baidu: { name: 'Baidu', keyword: 'wd' },
  yandex: { name: 'Yandex', keyword: 'text' },
  ecosia: { name: 'Ecosia', keyword: 'q' },
  qwant: { name: 'Qwant', keyword: 'q' },
  startpage: { name: 'Startpage', keyword: 'query' },
  'search.brave.com': { name: 'Brave Search', keyword: 'q' },
  naver: { name: 'Naver', keyword: 'query' },
  seznam: { name: 'Seznam', keyword: 'q' },
  sogou: { name: 'Sogou', keyword: 'query' },
  ask: { name: 'Ask', keyword: 'q' },
  aol: { name: 'AOL', keyword: 'q' },
  'kagi.com': { name: 'Kagi', keyword: 'q' },
};

/** Social networks by site. */
export const SOCIAL_NETWORKS: Record<string, string> = {
  facebook: 'Facebook',
  'fb.com': 'Facebook',
  'fb.me': 'Facebook',
  instagram: 'Instagram',
  linkedin: 'LinkedIn',
  'lnkd.in': 'LinkedIn',
  twitter: 'X (Twitter)',
  'x.com': 'X (Twitter)',
  't.co': 'X (Twitter)',
  youtube: 'YouTube',
  'youtu.be': 'YouTube',
  pinterest: 'Pinterest',
  reddit: 'Reddit',
  tiktok: 'TikTok',
  snapchat: 'Snapchat',
  tumblr: 'Tumblr',
  'threads.net': 'Threads',
  'bsky.app': 'Bluesky',
  'mastodon.social': 'Mastodon',
  whatsapp: 'WhatsApp',
  't.me': 'Telegram',
  xing: 'XING',
  vk: 'VK',
  quora: 'Quora',
  'news.ycombinator.com': 'Hacker News',
};

/** Ad click ids an ad network appends to the page URL: the network, and the kind of ad. */
export const CLICK_IDS: Record<string, { network: string; type: 'PAID_SEARCH' | 'PAID_SOCIAL' }> = {
  gclid: { network: 'Google', type: 'PAID_SEARCH' },
  gbraid: { network: 'Google', type: 'PAID_SEARCH' },
  wbraid: { network: 'Google', type: 'PAID_SEARCH' },
  msclkid: { network: 'Bing', type: 'PAID_SEARCH' },
  yclid: { network: 'Yandex', type: 'PAID_SEARCH' },
  ttclid: { network: 'TikTok', type: 'PAID_SOCIAL' },
  li_fat_id: { network: 'LinkedIn', type: 'PAID_SOCIAL' },
  twclid: { network: 'X (Twitter)', type: 'PAID_SOCIAL' },
  ScCid: { network: 'Snapchat', type: 'PAID_SOCIAL' },
  epik: { network: 'Pinterest', type: 'PAID_SOCIAL' },
  rdt_cid: { network: 'Reddit', type: 'PAID_SOCIAL' },
};

/** Ids a social network appends to every outbound link, paid or not: they say which network,
 * not that it was an ad (`utm_medium` says that). */
export const SOCIAL_LINK_IDS: Record<string, string> = {
  fbclid: 'Facebook',
  igshid: 'Instagram',
};

/** Parameters of links in the platform's marketing emails (the modelled platform's `_hsenc` and
 * `_hsmi`, neutrally named). */
export const EMAIL_LINK_PARAMS = ['_svcenc', '_svcmi'];

/** `utm_medium` values (lower case) by what they say about the campaign. */
export const MEDIUMS = {
  email: ['email', 'e-mail', 'e_mail', 'newsletter'],
  paid: ['cpc', 'ppc', 'paid', 'paidsearch', 'paid_search', 'paid-search', 'sem', 'cpm', 'cpv', 'cpa'],
  paidSocial: ['paid_social', 'paidsocial', 'paid-social', 'social_paid', 'social-paid', 'socialpaid'],
  social: ['social', 'social-media', 'social_media', 'socialmedia', 'sm', 'social-network', 'social_network'],
};
