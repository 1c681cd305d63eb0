/** Content API v2 records (§2.1 and reference §9): snake_case throughout. Every record is a loose
 * object: the keys we know are typed (most optional, since real data omits many), and unknown keys
 * pass through. */
import { z } from 'zod';
import { timestamp } from '../common';

const id = z.number().int();
const opt = <T extends z.ZodType>(t: T) => t.optional();
/** Seen as `null` in real data. */
const nul = <T extends z.ZodType>(t: T) => t.nullable().optional();
const str = z.string();
const bool = z.boolean();
const num = z.number();
const jsonObject = z.record(z.string(), z.unknown());
/** §2.1 types `is_draft` and `publish_immediately` as strings; recorded data has booleans. */
const flag = z.union([z.boolean(), z.enum(['true', 'false'])]);

/** Keys every v2 object has. */
const base = {
  id,
  portal_id: opt(id),
  created: opt(timestamp),
  updated: opt(timestamp),
  /** 0 when not deleted; set only by DELETE (soft delete). */
  deleted_at: opt(timestamp),
};

/** The v2 list envelope. `total` is missing from older responses; `total_count` counts all matches
 * ignoring paging. */
export const listEnvelope = <T extends z.ZodType>(item: T) =>
  z.looseObject({
    limit: num,
    offset: num,
    total: opt(num),
    total_count: num,
    objects: z.array(item),
  });

/** Who saved a version. */
export const versionUser = z.looseObject({ id: opt(id), email: opt(str), fullName: opt(str) });

/** A previous version of an object: a snapshot of it in `object`. */
export const versionOf = <T extends z.ZodType>(object: T) =>
  z.looseObject({ id, object, updated: timestamp, user: nul(versionUser) });

/** A version whose snapshot is any object. */
export const version = versionOf(z.looseObject({}));

/** A keyword on a post or page (`keyword_guid` from the keywords API). */
export const keywordRef = z.looseObject({ keyword: str, keyword_guid: str });

export const blogAuthor = z.looseObject({
  ...base,
  full_name: opt(str),
  email: nul(str),
  slug: opt(str),
  bio: nul(str),
  avatar: nul(str),
  gravatar_url: nul(str),
  website: nul(str),
  twitter: nul(str),
  facebook: nul(str),
  linkedin: nul(str),
  google_plus: nul(str),
  user_id: nul(id),
  username: nul(str),
  body: opt(jsonObject),
});

export const blogPost = z.looseObject({
  ...base,
  /** The blog (from the blogs endpoint). */
  content_group_id: opt(id),
  name: opt(str),
  html_title: nul(str),
  slug: opt(str),
  post_body: nul(str),
  post_summary: nul(str),
  rss_body: nul(str),
  rss_summary: nul(str),
  meta_description: nul(str),
  meta_keywords: nul(str),
  keywords: opt(z.array(keywordRef)),
  blog_author_id: nul(id),
  author_user_id: nul(id),
  blog_author: nul(blogAuthor),
  topic_ids: opt(z.array(id)),
  state: opt(z.enum(['DRAFT', 'PUBLISHED', 'SCHEDULED'])),
  /** Changed only by publish-action. */
  is_draft: nul(flag),
  processing_status: nul(str),
  publish_date: nul(timestamp),
  /** When null or true, schedule-publish publishes at once and publish_date is ignored. */
  publish_immediately: nul(flag),
  freeze_date: nul(timestamp),
  archived: opt(bool),
  unpublished_at: nul(timestamp),
  scheduled_update_date: nul(timestamp),
  /** Full URL; 404 while the post is unpublished. */
  url: nul(str),
  published_url: nul(str),
  domain: nul(str),
  preview_key: nul(str),
  featured_image: nul(str),
  use_featured_image: nul(bool),
  preview_image_src: nul(str),
  /** GUID of the marketing campaign. */
  campaign: nul(str),
  campaign_name: nul(str),
  head_html: nul(str),
  footer_html: nul(str),
  css: nul(jsonObject),
  css_text: nul(str),
  attached_stylesheets: opt(z.array(z.unknown())),
  enable_domain_stylesheets: nul(bool),
  enable_layout_stylesheets: nul(bool),
  include_default_custom_css: nul(bool),
  /** §2.1 calls it a string; recorded data has an object keyed by widget name. */
  widgets: nul(z.union([str, jsonObject])),
  widget_containers: nul(jsonObject),
  comment_count: nul(num),
  views: nul(num),
  category_id: nul(num),
  subcategory: nul(str),
  blueprint_type_id: nul(num),
  cloned_from: nul(id),
  folder_id: nul(id),
  legacy_blog_tabid: nul(num),
  is_instant_email_enabled: nul(bool),
  is_social_publishing_enabled: nul(bool),
  page_expiry_date: nul(timestamp),
  page_expiry_enabled: nul(bool),
  page_expiry_redirect_id: nul(id),
  page_expiry_redirect_url: nul(str),
  page_redirected: nul(bool),
  performable_url: nul(str),
  personas: opt(z.array(z.unknown())),
  rss_email_by_text: nul(str),
  rss_email_click_through_text: nul(str),
  rss_email_comment_text: nul(str),
  style_override_id: nul(id),
});

export const blog = z.looseObject({
  ...base,
  name: opt(str),
  public_title: nul(str),
  html_title: nul(str),
  description: nul(str),
  slug: nul(str),
  root_url: nul(str),
  domain: nul(str),
  domain_when_published: nul(str),
  language: nul(str),
  allow_comments: nul(bool),
  comment_moderation: nul(bool),
  comment_form_guid: nul(str),
  comment_max_thread_depth: nul(num),
  comment_notification_emails: opt(z.array(str)),
  comment_should_create_contact: nul(bool),
  captcha_always: nul(bool),
  captcha_after_days: nul(num),
  close_comments_older: nul(num),
  posts_per_listing_page: nul(num),
  posts_per_rss_feed: nul(num),
  item_layout_id: nul(id),
  listing_layout_id: nul(id),
  item_template_path: nul(str),
  listing_template_path: nul(str),
  subscription_form_guid: nul(str),
  subscription_contacts_property: nul(str),
  subscription_lists_by_type: nul(z.record(z.string(), num)),
  instant_notification_email_id: nul(id),
  daily_notification_email_id: nul(id),
  weekly_notification_email_id: nul(id),
  monthly_notification_email_id: nul(id),
  html_head: nul(str),
  html_footer: nul(str),
  html_keywords: opt(z.array(str)),
  publish_date_format: nul(str),
  month_filter_format: nul(str),
  attached_stylesheets: opt(z.array(z.unknown())),
  legacy_guid: nul(str),
  legacy_module_id: nul(num),
  legacy_tab_id: nul(num),
});

/** Comments in v2: the snake_case counterparts of the comments v3 keys. */
export const comment = z.looseObject({
  ...base,
  /** The post commented on. */
  content_id: opt(id),
  /** The blog. */
  collection_id: opt(id),
  parent_id: nul(id),
  user_name: nul(str),
  user_email: nul(str),
  user_url: nul(str),
  comment: opt(str),
  state: opt(z.enum(['APPROVED', 'SPAM', 'REJECTED', 'PENDING_MODERATION'])),
  created_at: opt(timestamp),
  content_permalink: nul(str),
  content_title: nul(str),
});

/** A topic (tag) of blog posts. */
export const topic = z.looseObject({
  ...base,
  name: opt(str),
  slug: opt(str),
  description: nul(str),
});

export const page = z.looseObject({
  ...base,
  name: opt(str),
  html_title: nul(str),
  slug: opt(str),
  url: nul(str),
  domain: nul(str),
  current_live_domain: nul(str),
  /** `site_page` or `landing_page`. */
  subcategory: nul(str),
  template_path: nul(str),
  widgets: nul(z.union([str, jsonObject])),
  widget_containers: nul(jsonObject),
  meta_description: nul(str),
  keywords: opt(z.array(keywordRef)),
  head_html: nul(str),
  footer_html: nul(str),
  publish_date: nul(timestamp),
  publish_immediately: nul(flag),
  is_draft: nul(flag),
  state: opt(z.enum(['DRAFT', 'PUBLISHED', 'SCHEDULED'])),
  current_state: nul(str),
  archived: opt(bool),
  campaign: nul(str),
  campaign_name: nul(str),
});

export const template = z.looseObject({
  ...base,
  path: opt(str),
  folder: nul(str),
  filename: nul(str),
  label: nul(str),
  source: nul(str),
  is_available_for_new_content: nul(bool),
  template_type: nul(num),
  category_id: nul(num),
  is_read_only: nul(bool),
  generated_from_layout_id: nul(id),
});

/** Layouts (read-only in the legacy API); keys beyond the common ones not documented. */
export const layout = z.looseObject({
  ...base,
  label: nul(str),
  path: nul(str),
  body: nul(z.unknown()),
});

export const urlMapping = z.looseObject({
  ...base,
  name: nul(str),
  route_prefix: opt(str),
  destination: opt(str),
  redirect_style: opt(num),
  is_match_full_url: nul(bool),
  is_match_query_string: nul(bool),
  is_only_after_not_found: nul(bool),
  precedence: nul(num),
  content_group_id: nul(id),
});

export const domain = z.looseObject({
  ...base,
  domain: opt(str),
  is_resolving: nul(bool),
  is_legacy_domain: nul(bool),
  is_ssl_enabled: nul(bool),
  primary_landing_page: nul(bool),
  primary_site_page: nul(bool),
  primary_blog_post: nul(bool),
  primary_email: nul(bool),
});

/** Site maps: keys not documented beyond a name and a page tree. */
export const siteMap = z.looseObject({
  ...base,
  name: nul(str),
  pages: opt(z.array(z.unknown())),
});

const thumb = z.looseObject({ friendly_url: nul(str), image_name: nul(str), s3_url: nul(str) });

export const file = z.looseObject({
  ...base,
  name: opt(str),
  title: nul(str),
  extension: nul(str),
  /** IMG, DOCUMENT, AUDIO, MOVIE, OTHER (not verified, so not an enum). */
  type: nul(str),
  size: nul(num),
  width: nul(num),
  height: nul(num),
  encoding: nul(str),
  folder_id: nul(id),
  hidden: opt(bool),
  archived: opt(bool),
  url: nul(str),
  friendly_url: nul(str),
  alt_key: nul(str),
  alt_url: nul(str),
  s3_url: nul(str),
  cloud_key: nul(str),
  file_hash: nul(str),
  meta: nul(
    z.looseObject({
      allows_anonymous_access: nul(bool),
      url_scheme: nul(str),
      thumbs: nul(z.looseObject({ icon: nul(thumb), thumb: nul(thumb), medium: nul(thumb) })),
    }),
  ),
});

export const folder = z.looseObject({
  ...base,
  name: opt(str),
  parent_folder_id: nul(id),
  full_path: nul(str),
  category: nul(num),
});
