/** §3: when a blog post goes live, "a job sends any enabled emails and tweets". With
 * `is_social_publishing_enabled` on, the post is announced — its title and URL — on each of the
 * portal's social channels as a broadcast (visible through the broadcast API), once per channel:
 * a post taken back to draft and published again is not announced twice. The post's history
 * records the job only when it sent something, naming the channels (`send tweets (broadcasts on
 * Twitter:4654321, LinkedIn:7654321)`). No emails are sent on publishing (there is no mail
 * server, and the spec names no recipients), so none is recorded. */
import type { Queryable } from '../db/engine';
import type { CollectionName, ContentRecord } from '../store/content/collections';
import type { ContentEngine } from '../store/content/engine';
import type { SocialStore } from '../store/social';

const enabled = (v: unknown) => v === true || v === 'true';

/** What a broadcast says about a post: its title and where to read it. */
function message(post: ContentRecord) {
  const title = String(post.html_title || post.name || '');
  const url = String(post.published_url || post.url || '');
  return { body: [title, url].filter(Boolean).join(' '), title, originalLink: url };
}

export function socialPublishing(content: ContentEngine, social: SocialStore) {
  // In the transaction that publishes the post (`db`).
  content.onLive(async (db: Queryable, collection: CollectionName, record: ContentRecord) => {
    if (collection != 'blog-posts' || !enabled(record.is_social_publishing_enabled)) return undefined;
    const sent = await social.announce(
      db,
      Number(record.portal_id),
      { type: 'BLOG_POST', id: String(record.id) },
      message(record),
    );
    return sent.length ? `send tweets (broadcasts on ${sent.map((b) => String(b.channelKey)).join(', ')})` : undefined;
  });
}
