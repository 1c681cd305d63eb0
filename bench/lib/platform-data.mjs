// bench/platform.mjs's data beyond the seeded contacts: keys to look up and blog posts, written
// through the platform's stores on either engine (SQLite or PostgreSQL), and the demo portal's access.
import { randomBytes, randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPlatform, sql } from '../../packages/platform/dist/index.js';

const range = sql('SELECT min(vid) AS lo, max(vid) AS hi, count(*) AS n FROM contacts WHERE portal_id = ?');
/** The first contact at or after a vid: vids may have gaps (PostgreSQL's identity skips numbers). */
// `+portal_id`: the vid order (the primary key) rather than the portal's index, which SQLite
// would otherwise walk whole and sort (minutes for 10,000 lookups at a million contacts).
const atOrAfter = sql('SELECT vid, email FROM contacts WHERE vid >= ? AND +portal_id = ? ORDER BY vid LIMIT 1');

/** Runs `fn(platform)` on a platform opened on `database` in this process, closed after. */
async function withPlatform(database, filesDir, fn) {
  const platform = createPlatform({ database, filesDir, logger: false });
  await platform.ready;
  try {
    return await fn(platform);
  } finally {
    await platform.close();
  }
}

/** The vid range (`gapless` when every vid in it is a contact), `count` sample contacts' vids and
 * emails, and `count` visitor tokens linked (by the store, not HTTP) to sample contacts. */
export function prepareKeys(database, filesDir, portalId, count) {
  return withPlatform(database, filesDir, async ({ services: { engine, visitors } }) => {
    const { lo, hi, n } = await engine.get(range, portalId);
    const vids = [];
    const emails = [];
    const utks = [];
    await engine.tx(async (t) => {
      for (let i = 0; i < count; i++) {
        const { vid, email } = await t.get(atOrAfter, randomInt(lo, hi + 1), portalId);
        const utk = randomBytes(16).toString('hex');
        await visitors.link(t, portalId, utk, (await t.get(atOrAfter, randomInt(lo, hi + 1), portalId)).vid);
        vids.push(vid);
        emails.push(email);
        utks.push(utk);
      }
    });
    return { lo, hi, gapless: n == hi - lo + 1, vids, emails, utks };
  });
}

/** `posts` blog posts in the portal's first blog (written by the store, not HTTP), half of them
 * published, one a minute: the content list measurement pages through them. */
export function seedBlogPosts(database, filesDir, portalId, posts) {
  const started = performance.now();
  return withPlatform(database, filesDir, async ({ services: { content, engine } }) => {
    const blog = (await content.list(engine, portalId, 'blogs', { limit: 1 }, new Set())).objects[0];
    const body = {
      content_group_id: blog.id,
      post_body: `<p>${'Lorem ipsum dolor sit amet. '.repeat(20)}</p>`,
      post_summary: 'Summary',
      topic_ids: [],
      keywords: [],
      widgets: {},
    };
    const start = Date.now() - posts * 60_000;
    await engine.tx(async (t) => {
      let analyzeAt = 1_000;
      for (let i = 0; i < posts; i++) {
        // As the CLI's seed does its contacts (seed-contacts.ts): a server without autovacuum
        // keeps the plans it made for a nearly empty table, and a new post's comment count
        // (engine.ts, commentCounts) scanned every post before it, quadratic in the posts.
        if (engine.kind == 'postgres' && i == analyzeAt) {
          await t.exec('ANALYZE content_objects');
          analyzeAt *= 2;
        }
        const at = start + i * 60_000;
        const published = i % 2 == 1;
        await content.insertRaw(t, portalId, 'blog-posts', {
          ...body,
          created: at,
          updated: at,
          name: `Bench post ${i}`,
          slug: `blog/bench-post-${i}`,
          state: published ? 'PUBLISHED' : 'DRAFT',
          is_draft: !published,
          publish_date: at,
        });
      }
    });
    // As autovacuum would within a minute of such a load (its insert threshold): without it the
    // table's visibility map is empty, and PostgreSQL counts a blog's posts by reading every row
    // (about 20 ms at 20,000 posts) instead of the index alone (about 2 ms). The measurement is of
    // a blog in its steady state, not of the minute after a bulk load.
    if (engine.kind == 'postgres') await engine.exec('VACUUM ANALYZE content_objects');
    return { blogId: blog.id, seconds: (performance.now() - started) / 1000 };
  });
}

/** The demo portal's private-app token (from the CLI's credentials file in `dir`) and the guid of its 'Contact us' form. */
export async function portalAccess(dir, baseUrl) {
  const { privateAppToken } = JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8'));
  const auth = { authorization: `Bearer ${privateAppToken}` };
  const forms = await (await fetch(`${baseUrl}/contacts/v1/forms`, { headers: auth })).json();
  const form = forms.find((f) => f.name == 'Contact us');
  if (!form) throw new Error(`no 'Contact us' form in ${JSON.stringify(forms).slice(0, 200)}`);
  return { auth, formGuid: form.guid };
}
