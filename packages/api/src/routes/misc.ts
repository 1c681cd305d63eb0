/** §4.10 Keywords, prospects, settings and social broadcasts (reference §11–§14). The token refresh
 * of §4.10 lives with the platform routes. */
import { z } from 'zod';
import { count, offset, pageSize, repeated, timestamp } from '../common';
import { route } from '../route';

const M2 = { milestone: 2 } as const;
const opt = <T extends z.ZodType>(t: T) => t.optional();
const nul = <T extends z.ZodType>(t: T) => t.nullable().optional();
const str = z.string();
const num = z.number();
const guid = z.string().min(1);

// ---- keywords -------------------------------------------------------------------------------

const KEYWORDS = ['content'];

const keyword = z.looseObject({
  keyword_guid: str,
  keyword: str,
  portal_id: opt(num),
  user_id: nul(num),
  created_at: opt(timestamp),
  country: nul(str),
  contacts: nul(num),
  leads: nul(num),
  visits: nul(num),
  rank: nul(num),
  difficulty: nul(num),
  monthly_searches: nul(num),
});
const keywordList = z.object({ keywords: z.array(keyword) });
const keywordWrite = z.looseObject({ keyword: z.string().trim().min(1) });

// ---- prospects ------------------------------------------------------------------------------

const PROSPECTS = ['crm.objects.contacts.read'];

/** A visiting organization (hyphenated keys, as the legacy API). */
const prospect = z.looseObject({
  slug: opt(str),
  organization: str,
  'page-views': opt(num),
  visitors: opt(num),
  leads: opt(num),
  timestamp: opt(num),
  city: nul(str),
  region: nul(str),
  country: nul(str),
  url: nul(str),
  longitude: nul(num),
  latitude: nul(num),
  'ip-address': nul(str),
  touches: opt(z.array(z.looseObject({ domain: str, 'child-id': opt(str) }))),
});
const prospectPage = z.looseObject({
  prospects: z.array(prospect),
  'has-more': opt(z.boolean()),
  timeOffset: nul(num),
  orgOffset: nul(str),
});
const prospectPaging = {
  timeOffset: offset.optional(),
  /** Organization name to continue after. */
  orgOffset: z.string().min(1).optional(),
};
const organization = z.object({ organization: z.string().trim().min(1) });

// ---- settings -------------------------------------------------------------------------------

const setting = z.looseObject({ name: str, value: str });
const settingWrite = z.object({ name: z.string().min(1), value: z.string() });

// ---- social ---------------------------------------------------------------------------------

const SOCIAL = ['social'];

const channel = z.looseObject({
  channelGuid: str,
  portalId: opt(num),
  channelId: nul(str),
  accountGuid: nul(str),
  createdAt: opt(timestamp),
  updatedAt: opt(timestamp),
  active: opt(z.boolean()),
  shared: opt(z.boolean()),
  hidden: opt(z.boolean()),
  channelKey: opt(str),
  type: opt(str),
  channelSlug: nul(str),
  accountType: nul(str),
  accountSlug: nul(str),
  name: nul(str),
  displayName: nul(str),
  username: nul(str),
  profileUrl: nul(str),
  avatarUrl: nul(str),
  dataMap: nul(z.record(z.string(), z.unknown())),
  settings: nul(z.record(z.string(), z.unknown())),
  channelScopes: opt(z.array(z.unknown())),
  remoteUserIdForFeed: nul(str),
});

const broadcastContent = z.looseObject({
  body: opt(str),
  originalBody: nul(str),
  title: nul(str),
  originalLink: nul(str),
  uncompressedLinks: nul(z.unknown()),
  thumbUrl: nul(str),
  fileId: nul(str),
  /** Image to post. */
  uploadedImageUrl: nul(str),
  photoUrl: nul(str),
});

const broadcast = z.looseObject({
  broadcastGuid: str,
  portalId: opt(num),
  groupGuid: nul(str),
  campaignGuid: nul(str),
  campaignName: nul(str),
  channelGuid: opt(str),
  channelKey: nul(str),
  clientTag: nul(str),
  createdAt: opt(timestamp),
  userUpdatedAt: nul(timestamp),
  triggerAt: nul(timestamp),
  finishedAt: nul(timestamp),
  /** DRAFT, WAITING, SUCCESS, CANCELED, ERROR_FATAL… */
  status: opt(str),
  message: nul(str),
  content: opt(broadcastContent),
  foreignId: nul(str),
  remoteContentId: nul(str),
  remoteContentType: nul(str),
  clicks: nul(num),
  interactions: nul(z.record(z.string(), z.unknown())),
  interactionCounts: nul(z.record(z.string(), z.unknown())),
  linkGuid: nul(str),
  messageUrl: nul(str),
  createdBy: nul(num),
  updatedBy: nul(num),
  broadcastMediaType: nul(str),
  wasDraft: nul(z.boolean()),
  channel: nul(channel),
  serviceId: nul(str),
  extraData: nul(z.record(z.string(), z.unknown())),
});

export const miscRoutes = {
  'keywords.list': route({
    ...M2,
    id: 'keywords.list',
    method: 'GET',
    path: '/keywords/v1/keywords.json',
    summary: 'Keywords of the portal (search filters by substring)',
    scopes: KEYWORDS,
    query: z.object({ search: z.string().optional() }),
    response: keywordList,
  }),
  'keywords.get': route({
    ...M2,
    id: 'keywords.get',
    method: 'GET',
    path: '/keywords/v1/keywords/:keyword_guid.json',
    summary: 'A keyword by guid',
    scopes: KEYWORDS,
    params: z.object({ keyword_guid: guid }),
    response: keyword,
  }),
  'keywords.create': route({
    ...M2,
    id: 'keywords.create',
    method: 'PUT',
    path: '/keywords/v1/keywords.json',
    summary: 'Add one keyword ({keyword}) or several ([{keyword}, …]); answers with the created keywords',
    scopes: KEYWORDS,
    body: z.union([keywordWrite, z.array(keywordWrite).min(1)]),
    response: keywordList,
  }),
  'keywords.delete': route({
    ...M2,
    id: 'keywords.delete',
    method: 'DELETE',
    // The spec names this parameter `keywords_guid` (and has no `.json` suffix here).
    path: '/keywords/v1/keywords/:keywords_guid',
    summary: 'Delete a keyword',
    scopes: KEYWORDS,
    params: z.object({ keywords_guid: guid }),
  }),

  'prospects.timeline': route({
    ...M2,
    id: 'prospects.timeline',
    method: 'GET',
    path: '/prospects/v1/timeline',
    summary: 'The most recent prospects (visiting organizations), 20 at most, paged with timeOffset + orgOffset',
    scopes: PROSPECTS,
    // §8: the timeline returns the most recent 20.
    query: z.object({ count: count(20, 20), ...prospectPaging }),
    response: prospectPage,
  }),
  'prospects.getOrganization': route({
    ...M2,
    id: 'prospects.getOrganization',
    method: 'GET',
    path: '/prospects/v1/timeline/:organization',
    summary: 'One prospect organization (by its slug)',
    scopes: PROSPECTS,
    params: z.object({ organization: z.string().min(1) }),
    response: prospect,
  }),
  'prospects.search': route({
    ...M2,
    id: 'prospects.search',
    idParam: undefined, // `search_type` selects a kind of search
    method: 'GET',
    path: '/prospects/v1/search/:search_type',
    summary: 'Prospects by city, region or country (q)',
    scopes: PROSPECTS,
    params: z.object({ search_type: z.enum(['city', 'region', 'country']) }),
    query: z.object({ q: z.string().min(1, 'is required'), ...prospectPaging }),
    response: prospectPage,
  }),
  'prospects.hide': route({
    ...M2,
    id: 'prospects.hide',
    method: 'POST',
    path: '/prospects/v1/filters',
    summary: 'Hide a prospect organization (urlencoded organization=…)',
    scopes: PROSPECTS,
    bodyType: 'urlencoded',
    body: organization,
  }),
  'prospects.listHidden': route({
    ...M2,
    id: 'prospects.listHidden',
    method: 'GET',
    path: '/prospects/v1/filters',
    summary: 'Hidden prospect organizations',
    scopes: PROSPECTS,
    response: z.array(z.looseObject({ organization: str })),
  }),
  'prospects.unhide': route({
    ...M2,
    id: 'prospects.unhide',
    method: 'DELETE',
    path: '/prospects/v1/filters',
    summary: 'Show a hidden prospect organization again (urlencoded organization=…, or ?organization=)',
    scopes: PROSPECTS,
    bodyType: 'urlencoded',
    // Older clients name the organisation in the query string of the DELETE, with no body.
    query: organization.partial(),
    body: organization.partial(),
  }),

  'settings.get': route({
    ...M2,
    id: 'settings.get',
    method: 'GET',
    path: '/settings/v1/settings',
    summary: 'All settings (an array), or the one named by `name`',
    scopes: ['settings.read'],
    query: z.object({ name: z.string().min(1).optional() }),
    response: z.union([z.array(setting), setting]),
  }),
  // §4.10 says "POST or PUT": two routes with the same body and effect.
  'settings.create': route({
    ...M2,
    id: 'settings.create',
    method: 'POST',
    path: '/settings/v1/settings',
    summary: 'Create or update a setting ({name, value}, JSON or urlencoded)',
    scopes: ['settings.write'],
    body: settingWrite,
    urlencodedToo: true,
  }),
  'settings.update': route({
    ...M2,
    id: 'settings.update',
    method: 'PUT',
    path: '/settings/v1/settings',
    summary: 'Create or update a setting ({name, value}, JSON or urlencoded)',
    scopes: ['settings.write'],
    body: settingWrite,
    urlencodedToo: true,
  }),
  'settings.delete': route({
    ...M2,
    id: 'settings.delete',
    method: 'DELETE',
    path: '/settings/v1/settings',
    summary: 'Delete the setting named by `name`',
    scopes: ['settings.write'],
    query: z.object({ name: z.string().min(1, 'is required') }),
  }),

  'social.listChannels': route({
    ...M2,
    id: 'social.listChannels',
    method: 'GET',
    path: '/broadcast/v1/channels/setting/publish/current',
    summary: 'Social channels available for publishing now',
    scopes: SOCIAL,
    query: z.object({
      settings: z
        .enum(['true', 'false'])
        .transform((v) => v == 'true')
        .optional(),
    }),
    response: z.array(channel),
  }),
  'social.getChannel': route({
    ...M2,
    id: 'social.getChannel',
    method: 'GET',
    path: '/broadcast/v1/channels/:channel_guid',
    summary: 'A social channel by guid',
    scopes: SOCIAL,
    params: z.object({ channel_guid: guid }),
    response: channel,
  }),
  'social.listBroadcasts': route({
    ...M2,
    id: 'social.listBroadcasts',
    method: 'GET',
    path: '/broadcast/v1/broadcasts',
    summary: 'Broadcasts, optionally filtered by status, creation time (since) and channel keys',
    scopes: SOCIAL,
    query: z.object({
      status: z
        .string()
        .toLowerCase()
        .pipe(z.enum(['success', 'waiting', 'canceled', 'error_fatal']))
        .optional(),
      type: z.enum(['scheduled', 'published', 'failed']).optional(),
      /** createdAt at or after (ms). */
      since: offset.optional(),
      withChannelKeys: repeated(z.string().min(1)),
      /** Page size (at most 100) and page (not verified; no count: all broadcasts). */
      count: pageSize(100),
      page: offset.optional(),
    }),
    response: z.array(broadcast),
  }),
  'social.getBroadcast': route({
    ...M2,
    id: 'social.getBroadcast',
    method: 'GET',
    path: '/broadcast/v1/broadcasts/:broadcast_guid',
    summary: 'A broadcast by guid',
    scopes: SOCIAL,
    params: z.object({ broadcast_guid: guid }),
    response: broadcast,
  }),
  'social.createBroadcast': route({
    ...M2,
    id: 'social.createBroadcast',
    method: 'POST',
    path: '/broadcast/v1/broadcasts',
    summary: 'Schedule a message on a channel (no triggerAt: publish now; status DRAFT: keep as a draft)',
    scopes: SOCIAL,
    body: z.looseObject({
      channelGuid: z.string().min(1),
      triggerAt: timestamp.optional(),
      groupGuid: z.string().optional(),
      status: z.literal('DRAFT').optional(),
      content: broadcastContent.extend({ body: z.string().min(1) }),
    }),
    response: broadcast,
  }),
  'social.cancelBroadcast': route({
    ...M2,
    id: 'social.cancelBroadcast',
    method: 'DELETE',
    path: '/broadcast/v1/broadcasts/:broadcast_guid',
    summary: 'Cancel a scheduled broadcast',
    scopes: SOCIAL,
    params: z.object({ broadcast_guid: guid }),
  }),
};
