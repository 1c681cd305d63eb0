/** Blog posts (§2.1, §3, §4.8) over HTTP: the publishing state machine step by step — scheduled
 * publishing on a moved clock included — the site server, buffers, versions, soft delete and
 * restore, clone, and hapikey auth. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type TestPlatform } from './harness';

const HOUR = 3_600_000;
const POSTS = '/content/api/v2/blog-posts';

let t: TestPlatform;
let blogId: number;
beforeAll(async () => {
  t = await startPlatform({ rateLimit: { max: 1_000_000, windowMs: 10_000 } });
  blogId = (await t.call('GET', '/content/api/v2/blogs')).json.objects[0].id;
});
afterAll(() => t.close());

async function post(body: Record<string, unknown> = {}) {
  const res = await t.call('POST', POSTS, { body: { name: 'Hello world', content_group_id: blogId, ...body } });
  expect(res.status).toBe(201);
  return res.json;
}
const get = async (id: number) => (await t.call('GET', `${POSTS}/${id}`)).json;
const publish = (id: number, action = 'schedule-publish') =>
  t.call('POST', `${POSTS}/${id}/publish-action`, { body: { action } });
const page = (url: string) => fetch(url).then(async (r) => ({ status: r.status, text: await r.text() }));
const runDue = () => t.platform.services.scheduler.runDue();

describe('blog post states (§3)', () => {
  it('creates a draft whose URL is a 404 until it is published', async () => {
    const p = await post({ name: 'Draft one', post_body: '<p>Body one</p>' });
    expect(p).toMatchObject({
      state: 'DRAFT',
      is_draft: true,
      content_group_id: blogId,
      slug: 'blog/draft-one',
      deleted_at: 0,
      portal_id: 62515,
    });
    expect(p.url).toBe(`${t.baseUrl}/sites/62515/blog/draft-one`);
    expect((await page(p.url)).status).toBe(404);
  });

  it('never publishes on update, even with a past publish_date or a state in the body', async () => {
    const p = await post({ name: 'Update only' });
    const res = await t.call('PUT', `${POSTS}/${p.id}`, {
      body: {
        publish_date: t.clock.now - HOUR,
        state: 'PUBLISHED',
        is_draft: false,
        deleted_at: 5,
        id: 1,
        post_body: '<p>new</p>',
      },
    });
    expect(res.status).toBe(200);
    // deleted_at is set only by DELETE (§2.1), the id never changes.
    expect(res.json).toMatchObject({
      id: p.id,
      state: 'DRAFT',
      is_draft: true,
      deleted_at: 0,
      post_body: '<p>new</p>',
      publish_date: t.clock.now - HOUR,
    });
    await runDue();
    expect((await get(p.id)).state).toBe('DRAFT');
    expect((await page(p.url)).status).toBe(404);
  });

  it('publishes at once with schedule-publish when publish_immediately is null or true, recording no job when nothing is sent', async () => {
    for (const publish_immediately of [undefined, true]) {
      const p = await post({
        name: `Now ${publish_immediately}`,
        post_body: '<p>Live text</p>',
        publish_immediately,
        publish_date: t.clock.now + HOUR,
      });
      const res = await publish(p.id);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      const live = await get(p.id);
      expect(live).toMatchObject({
        state: 'PUBLISHED',
        is_draft: false,
        publish_date: t.clock.now,
        published_url: p.url,
      });
      const served = await page(p.url);
      expect(served.status).toBe(200);
      expect(served.text).toContain('<p>Live text</p>');
      // Social publishing off, and no emails are sent on publishing: no job ran.
      expect(await t.platform.services.content.history(t.platform.services.engine, p.id)).toEqual([]);
    }
  });

  it('schedules with publish_immediately false: invisible until publish_date, then the scheduler publishes it and runs its job', async () => {
    const at = t.clock.now + 2 * HOUR;
    const p = await post({
      name: 'Later',
      publish_immediately: false,
      publish_date: at,
      is_social_publishing_enabled: true,
    });
    expect((await publish(p.id)).status).toBe(204);
    expect((await get(p.id)).state).toBe('SCHEDULED');
    expect((await t.call('GET', `${POSTS}?state=SCHEDULED&id=${p.id}`)).json.total).toBe(1);
    const start = t.clock.now;
    // The scheduler's own timer would publish the post at any moment once the clock reaches it,
    // before this test's run (which then finds nothing due): this file runs the scheduler itself
    // from here on.
    await t.platform.services.scheduler.stop();
    try {
      t.clock.now = at - 1;
      await runDue();
      expect((await get(p.id)).state).toBe('SCHEDULED');
      expect((await page(p.url)).status).toBe(404);
      expect(await t.platform.services.content.history(t.platform.services.engine, p.id)).toEqual([]);
      t.clock.now = at;
      expect((await runDue()).publish).toBeGreaterThanOrEqual(1);
      expect(await get(p.id)).toMatchObject({ state: 'PUBLISHED', is_draft: false, publish_date: at });
      expect((await page(p.url)).status).toBe(200);
      expect(await t.platform.services.content.history(t.platform.services.engine, p.id)).toEqual([
        { event: 'send tweets (broadcasts on Twitter:4654321, LinkedIn:7654321)', timestamp: at },
      ]);
    } finally {
      t.clock.now = start;
    }
  });

  it('cancel-publish returns a scheduled post to draft (the scheduler then leaves it) and unpublishes a live one', async () => {
    const at = t.clock.now + HOUR;
    const p = await post({ name: 'Cancelled', publish_immediately: false, publish_date: at });
    await publish(p.id);
    expect((await publish(p.id, 'cancel-publish')).status).toBe(204);
    expect((await get(p.id)).state).toBe('DRAFT');
    const start = t.clock.now;
    t.clock.now = at + 1;
    await runDue();
    t.clock.now = start;
    expect((await get(p.id)).state).toBe('DRAFT');
    expect((await publish(p.id, 'cancel-publish')).status).toBe(400);

    const live = await post({ name: 'Unpublished later' });
    await publish(live.id);
    expect((await page(live.url)).status).toBe(200);
    await publish(live.id, 'cancel-publish');
    expect((await get(live.id)).state).toBe('DRAFT');
    expect((await page(live.url)).status).toBe(404);
  });

  it('refuses what cannot be published: no publish_date to wait for, already published, unknown action', async () => {
    const p = await post({ name: 'No date', publish_immediately: false });
    const res = await publish(p.id);
    expect(res.status).toBe(400);
    expect(res.json.message).toContain('no publish_date');
    await t.call('PUT', `${POSTS}/${p.id}`, { body: { publish_immediately: true } });
    expect((await publish(p.id)).status).toBe(204);
    expect((await publish(p.id)).status).toBe(400);
    const bad = await publish(p.id, 'publish-now');
    expect(bad.status).toBe(400);
    expect(bad.json.message).toMatch(/^body\.action: /);
  });

  it('deletes softly (URL 404, out of lists) and restores', async () => {
    const p = await post({ name: 'Deleted one' });
    await publish(p.id);
    expect((await t.call('DELETE', `${POSTS}/${p.id}`)).status).toBe(204);
    const deleted = await get(p.id);
    expect(deleted.deleted_at).toBe(t.clock.now);
    expect((await page(p.url)).status).toBe(404);
    expect((await t.call('GET', `${POSTS}?id=${p.id}`)).json.total).toBe(0);
    expect((await t.call('GET', `${POSTS}?id=${p.id}&deleted_at__gt=0`)).json.total).toBe(1);
    expect((await t.call('PUT', `${POSTS}/${p.id}`, { body: { name: 'x' } })).status).toBe(400);
    expect((await t.call('DELETE', `${POSTS}/${p.id}`)).status).toBe(400);
    const restored = await t.call('POST', `${POSTS}/${p.id}/restore-deleted`);
    expect(restored.status).toBe(200);
    expect(restored.json).toMatchObject({ deleted_at: 0, state: 'PUBLISHED' });
    expect((await page(p.url)).status).toBe(200);
    expect((await t.call('POST', `${POSTS}/${p.id}/restore-deleted`)).status).toBe(400);
  });

  it('a scheduled post that is deleted is not published, and comes back as a draft', async () => {
    const at = t.clock.now + HOUR;
    const p = await post({ name: 'Deleted scheduled', publish_immediately: false, publish_date: at });
    await publish(p.id);
    await t.call('DELETE', `${POSTS}/${p.id}`);
    const start = t.clock.now;
    t.clock.now = at + 1;
    await runDue();
    t.clock.now = start;
    const restored = (await t.call('POST', `${POSTS}/${p.id}/restore-deleted`)).json;
    expect(restored.state).toBe('DRAFT');
  });
});

describe('concurrent writes of one post', () => {
  it('keeps every field of updates sent at once (each reads the post as the one before it left it)', async () => {
    const p = await post({ name: 'Many hands' });
    const fields = [
      'meta_description',
      'html_title',
      'post_summary',
      'post_body',
      'head_html',
      'footer_html',
      'featured_image',
      'featured_image_alt_text',
    ];
    const answers = await Promise.all(
      fields.map((field) => t.call('PUT', `${POSTS}/${p.id}`, { body: { [field]: `set ${field}` } })),
    );
    expect(answers.map((a) => a.status)).toEqual(fields.map(() => 200));
    const now = await get(p.id);
    expect(Object.fromEntries(fields.map((f) => [f, now[f]]))).toEqual(
      Object.fromEntries(fields.map((f) => [f, `set ${f}`])),
    );
    // Each update a version of its own.
    expect((await t.call('GET', `${POSTS}/${p.id}/versions`)).json.length).toBeGreaterThanOrEqual(fields.length);
  });
});

describe('blog post buffer and versions', () => {
  it('keeps the live post apart from the buffer until it is pushed live', async () => {
    const p = await post({ name: 'Buffered', post_body: '<p>v1</p>' });
    expect((await t.call('GET', `${POSTS}/${p.id}/has-buffered-changes`)).json).toEqual({
      has_buffered_changes: false,
    });
    expect((await t.call('GET', `${POSTS}/${p.id}/buffer`)).json.post_body).toBe('<p>v1</p>');
    const buf = await t.call('PUT', `${POSTS}/${p.id}/buffer`, { body: { post_body: '<p>v2</p>' } });
    expect(buf.json.post_body).toBe('<p>v2</p>');
    expect((await get(p.id)).post_body).toBe('<p>v1</p>');
    expect((await t.call('GET', `${POSTS}/${p.id}/buffer`)).json.post_body).toBe('<p>v2</p>');
    expect((await t.call('GET', `${POSTS}/${p.id}/has-buffered-changes`)).json).toEqual({ has_buffered_changes: true });
    expect((await t.call('POST', `${POSTS}/${p.id}/validate-buffer`)).json).toEqual({ succeeded: true });

    // discard-buffer answers with the previously published data.
    const discarded = await t.call('POST', `${POSTS}/${p.id}/discard-buffer`);
    expect(discarded.json.post_body).toBe('<p>v1</p>');
    expect((await t.call('GET', `${POSTS}/${p.id}/has-buffered-changes`)).json.has_buffered_changes).toBe(false);

    await t.call('PUT', `${POSTS}/${p.id}/buffer`, { body: { post_body: '<p>v3</p>' } });
    const pushed = await t.call('POST', `${POSTS}/${p.id}/push-buffer-live`);
    expect(pushed.json).toMatchObject({ post_body: '<p>v3</p>', state: 'DRAFT' });
    expect((await get(p.id)).post_body).toBe('<p>v3</p>');

    await t.call('PUT', `${POSTS}/${p.id}/buffer`, { body: { post_body: '<p>v4</p>' } });
    const putPushed = await t.call('PUT', `${POSTS}/${p.id}/push-buffer-live`, {
      body: { meta_description: 'and this' },
    });
    expect(putPushed.json).toMatchObject({ post_body: '<p>v4</p>', meta_description: 'and this' });
    expect((await t.call('GET', `${POSTS}/${p.id}/has-buffered-changes`)).json.has_buffered_changes).toBe(false);
  });

  it('validate-buffer refuses a buffer that would not save', async () => {
    const p = await post({ name: 'To invalidate' });
    await t.call('PUT', `${POSTS}/${p.id}/buffer`, { body: { content_group_id: 424242 } });
    const res = await t.call('POST', `${POSTS}/${p.id}/validate-buffer`);
    expect(res.status).toBe(400);
    expect(res.json.message).toContain('content_group_id');
  });

  it('lists versions newest first, reads one, and restores one', async () => {
    const p = await post({ name: 'Versioned', post_body: 'one' });
    await t.call('PUT', `${POSTS}/${p.id}`, { body: { post_body: 'two' } });
    await t.call('PUT', `${POSTS}/${p.id}`, { body: { post_body: 'three' } });
    const versions = (await t.call('GET', `${POSTS}/${p.id}/versions`)).json;
    expect(versions.map((v: { object: { post_body: string } }) => v.object.post_body)).toEqual(['three', 'two', 'one']);
    const first = versions[2];
    expect((await t.call('GET', `${POSTS}/${p.id}/versions/${first.id}`)).json).toEqual(first);
    expect((await t.call('GET', `${POSTS}/${p.id}/versions/999999`)).status).toBe(404);
    const restored = await t.call('POST', `${POSTS}/${p.id}/versions/restore`, { body: { version_id: first.id } });
    expect(restored.json).toMatchObject({ post_body: 'one', state: 'DRAFT' });
    expect((await t.call('GET', `${POSTS}/${p.id}/versions`)).json).toHaveLength(4);
    const other = await post({ name: 'Other' });
    expect(
      (await t.call('POST', `${POSTS}/${other.id}/versions/restore`, { body: { version_id: first.id } })).status,
    ).toBe(404);
    expect((await t.call('POST', `${POSTS}/${p.id}/versions/restore`, { body: {} })).json.message).toBe(
      'body.version_id: is required',
    );
  });

  it('clones into a new draft', async () => {
    const p = await post({ name: 'Original', post_body: '<p>same</p>' });
    await publish(p.id);
    const res = await t.call('POST', `${POSTS}/${p.id}/clone`, { body: { name: 'Copy' } });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      name: 'Copy',
      post_body: '<p>same</p>',
      state: 'DRAFT',
      cloned_from: p.id,
      slug: 'blog/copy',
    });
    expect(res.json.id).not.toBe(p.id);
  });
});

describe('what a post shows of other objects', () => {
  it('embeds its author as blog_author (null without one), following changes to the author', async () => {
    const author = (
      await t.call('POST', '/content/api/v2/blog-authors', {
        body: { full_name: 'Mary Shelley', email: 'mary@posts.test' },
      })
    ).json;
    const p = await post({ name: 'Authored', blog_author_id: author.id });
    expect(p.blog_author).toMatchObject({ id: author.id, full_name: 'Mary Shelley', email: 'mary@posts.test' });
    await t.call('PUT', `/content/api/v2/blog-authors/${author.id}`, { body: { bio: 'Wrote Frankenstein' } });
    expect((await get(p.id)).blog_author).toMatchObject({ id: author.id, bio: 'Wrote Frankenstein' });
    const listed = (await t.call('GET', `${POSTS}?id=${p.id}`)).json.objects[0];
    expect(listed.blog_author.full_name).toBe('Mary Shelley');
    // Written by no one, or back to no one.
    expect((await post({ name: 'Anonymous' })).blog_author).toBeNull();
    expect(
      (await t.call('PUT', `${POSTS}/${p.id}`, { body: { blog_author_id: null, blog_author: { id: 1 } } })).json
        .blog_author,
    ).toBeNull();
    // A computed key is not a filter.
    expect((await t.call('GET', `${POSTS}?comment_count__gt=0`)).json.message).toBe(
      'query.comment_count__gt: unknown field comment_count',
    );
  });

  it('counts its live comments in comment_count, in reads and lists', async () => {
    const p = await post({ name: 'Discussed', comment_count: 99 });
    const other = await post({ name: 'Quiet' });
    expect(p.comment_count).toBe(0);
    const comment = (text: string) =>
      t.call('POST', '/content/api/v2/comments', { body: { content_id: p.id, comment: text } });
    const ids = [];
    for (const text of ['one', 'two', 'three']) ids.push((await comment(text)).json.id);
    expect((await get(p.id)).comment_count).toBe(3);
    await t.call('DELETE', `/content/api/v2/comments/${ids[0]}`);
    expect((await get(p.id)).comment_count).toBe(2);
    const listed = (await t.call('GET', `${POSTS}?id__in=${p.id},${other.id}&order_by=id`)).json.objects;
    expect(listed.map((x: { comment_count: number }) => x.comment_count)).toEqual([2, 0]);
    await t.call('POST', `/content/api/v2/comments/${ids[0]}/restore-deleted`);
    expect((await get(p.id)).comment_count).toBe(3);
  });
});

describe('blog post input and auth', () => {
  it('answers 400 naming the field, 404 for unknown or foreign ids', async () => {
    expect((await t.call('POST', POSTS, { body: { name: 'x' } })).json.message).toBe(
      'body.content_group_id: is required',
    );
    expect((await t.call('POST', POSTS, { body: { name: 'x', content_group_id: 1 } })).json.message).toContain(
      'body.content_group_id: no blog',
    );
    expect(
      (await t.call('POST', POSTS, { body: { name: 'x', content_group_id: blogId, topic_ids: [5] } })).status,
    ).toBe(400);
    expect((await t.call('GET', `${POSTS}/abc`)).json.message).toBe('path.blog_post_id: must be a positive integer');
    const p = await post();
    expect((await t.call('GET', `${POSTS}/${p.id}`, { portal: t.portals[1] })).status).toBe(404);
    expect((await t.call('GET', `${POSTS}/99999999`)).status).toBe(404);
  });

  it('accepts hapikey on content routes', async () => {
    const res = await t.call('GET', `${POSTS}?hapikey=${t.portals[0].apiKey}`, { portal: null });
    expect(res.status).toBe(200);
    expect((await t.call('GET', `${POSTS}?hapikey=wrong`, { portal: null })).status).toBe(401);
  });
});

describe('content that never goes live by mistake (issue 16)', () => {
  it('a scheduled post goes live at its current publish_date: moved later, then earlier', async () => {
    const start = t.clock.now;
    const at = start + 2 * HOUR;
    const p = await post({ name: 'Moving schedule', publish_immediately: false, publish_date: at });
    await publish(p.id);
    try {
      const later = at + 2 * HOUR;
      expect((await t.call('PUT', `${POSTS}/${p.id}`, { body: { publish_date: later } })).json).toMatchObject({
        state: 'SCHEDULED',
        publish_date: later,
      });
      t.clock.now = at;
      await runDue();
      expect((await get(p.id)).state).toBe('SCHEDULED');
      expect((await page(p.url)).status).toBe(404);

      const earlier = at + HOUR;
      await t.call('PUT', `${POSTS}/${p.id}`, { body: { publish_date: earlier } });
      t.clock.now = earlier - 1;
      await runDue();
      expect((await get(p.id)).state).toBe('SCHEDULED');
      t.clock.now = earlier;
      await runDue();
      expect(await get(p.id)).toMatchObject({ state: 'PUBLISHED', publish_date: earlier });
      expect((await page(p.url)).status).toBe(200);
    } finally {
      t.clock.now = start;
    }
  });

  it('a buffer pushed live moves the schedule too, and a scheduled post cannot lose its publish_date', async () => {
    const start = t.clock.now;
    const p = await post({ name: 'Buffered schedule', publish_immediately: false, publish_date: start + HOUR });
    await publish(p.id);
    await t.call('PUT', `${POSTS}/${p.id}/buffer`, { body: { publish_date: start + 3 * HOUR } });
    await t.call('POST', `${POSTS}/${p.id}/push-buffer-live`);
    const cleared = await t.call('PUT', `${POSTS}/${p.id}`, { body: { publish_date: null } });
    expect(cleared.status).toBe(400);
    expect(cleared.json.message).toMatch(/^body\.publish_date: blog post \d+ is scheduled and needs a publish_date/);
    try {
      t.clock.now = start + 2 * HOUR;
      await runDue();
      expect((await get(p.id)).state).toBe('SCHEDULED');
      t.clock.now = start + 3 * HOUR;
      await runDue();
      expect((await get(p.id)).state).toBe('PUBLISHED');
    } finally {
      t.clock.now = start;
    }
  });

  it('two live posts never share a URL: publishing at a taken slug is a 409 naming it and the other post; drafts may share', async () => {
    const first = await post({ name: 'Same slug', post_body: '<p>first</p>' });
    const second = await post({ name: 'Same slug', post_body: '<p>second</p>' });
    expect(second.slug).toBe(first.slug);
    expect((await publish(first.id)).status).toBe(204);
    const refused = await publish(second.id);
    expect(refused.status).toBe(409);
    expect(refused.json.message).toBe(
      `slug ${first.slug} is the URL of published blog post ${first.id}: change the slug, or unpublish that one first`,
    );
    expect(refused.json).toMatchObject({ slug: first.slug, conflictingId: first.id });
    expect((await get(second.id)).state).toBe('DRAFT');
    expect((await page(first.url)).text).toContain('<p>first</p>');

    // A live post's slug cannot move onto another live post's URL either.
    await t.call('PUT', `${POSTS}/${second.id}`, { body: { slug: 'blog/same-slug-2' } });
    expect((await publish(second.id)).status).toBe(204);
    const moved = await t.call('PUT', `${POSTS}/${second.id}`, {
      body: { slug: first.slug, post_body: '<p>changed</p>' },
    });
    expect(moved.status).toBe(409);
    expect(moved.json.message).toContain(`slug ${first.slug} is the URL of published blog post ${first.id}`);
    expect(await get(second.id)).toMatchObject({ slug: 'blog/same-slug-2', post_body: '<p>second</p>' });
    expect((await page(first.url)).text).toContain('<p>first</p>');

    // A scheduled post holds its URL too; once the first is unpublished the URL is free.
    const third = await post({ name: 'Same slug', publish_immediately: false, publish_date: t.clock.now + HOUR });
    expect((await publish(third.id)).status).toBe(409);
    await publish(first.id, 'cancel-publish');
    expect((await publish(third.id)).status).toBe(204);
    expect((await publish(first.id)).json.message).toContain(`scheduled blog post ${third.id}`);
  });

  it('restoring a deleted live post whose URL was taken meanwhile is a 409, and it stays deleted', async () => {
    const a = await post({ name: 'Restored clash' });
    await publish(a.id);
    await t.call('DELETE', `${POSTS}/${a.id}`);
    const b = await post({ name: 'Restored clash' });
    await publish(b.id);
    const res = await t.call('POST', `${POSTS}/${a.id}/restore-deleted`);
    expect(res.status).toBe(409);
    expect(res.json.message).toContain(`slug ${a.slug} is the URL of published blog post ${b.id}`);
    expect((await get(a.id)).deleted_at).toBeGreaterThan(0);
  });

  it('deleting a topic or an author drops it from the posts that used it; they stay editable and publishable', async () => {
    const author = (await t.call('POST', '/content/api/v2/blog-authors', { body: { full_name: 'Gone Author' } })).json;
    const keep = (await t.call('POST', '/content/api/v2/topics', { body: { name: 'Kept topic' } })).json;
    const gone = (await t.call('POST', '/content/api/v2/topics', { body: { name: 'Gone topic' } })).json;
    const p = await post({ name: 'Referring post', blog_author_id: author.id, topic_ids: [gone.id, keep.id] });
    // A buffer naming them lets go of them too.
    await t.call('PUT', `${POSTS}/${p.id}/buffer`, { body: { topic_ids: [gone.id], post_summary: 'buffered' } });
    // So does a deleted post (it can be restored later).
    const deleted = await post({ name: 'Deleted referring post', blog_author_id: author.id, topic_ids: [gone.id] });
    await t.call('DELETE', `${POSTS}/${deleted.id}`);

    expect((await t.call('DELETE', `/content/api/v2/topics/${gone.id}`)).status).toBe(204);
    expect((await t.call('DELETE', `/content/api/v2/blog-authors/${author.id}`)).status).toBe(204);
    expect(await get(p.id)).toMatchObject({ topic_ids: [keep.id], blog_author_id: null });
    expect((await t.call('GET', `${POSTS}/${p.id}/buffer`)).json).toMatchObject({
      topic_ids: [],
      post_summary: 'buffered',
    });

    expect((await t.call('PUT', `${POSTS}/${p.id}`, { body: { name: 'Referring post, edited' } })).status).toBe(200);
    expect((await t.call('POST', `${POSTS}/${p.id}/push-buffer-live`)).json).toMatchObject({
      topic_ids: [],
      post_summary: 'buffered',
    });
    expect((await publish(p.id)).status).toBe(204);
    expect((await get(p.id)).state).toBe('PUBLISHED');

    expect((await t.call('POST', `${POSTS}/${deleted.id}/restore-deleted`)).json).toMatchObject({
      topic_ids: [],
      blog_author_id: null,
    });
    expect((await t.call('PUT', `${POSTS}/${deleted.id}`, { body: { post_body: 'x' } })).status).toBe(200);
    // Restoring the topic does not bring the references back; naming a deleted one is still refused.
    await t.call('POST', `/content/api/v2/topics/${gone.id}/restore-deleted`);
    expect((await get(p.id)).topic_ids).toEqual([]);
    await t.call('DELETE', `/content/api/v2/topics/${gone.id}`);
    expect((await t.call('PUT', `${POSTS}/${p.id}`, { body: { topic_ids: [gone.id] } })).json.message).toBe(
      `body.topic_ids.0: no topic with id ${gone.id}`,
    );
  });

  it('a comment can still be edited after its post is deleted', async () => {
    const p = await post({ name: 'Post of a comment' });
    const c = (await t.call('POST', '/content/api/v2/comments', { body: { content_id: p.id, comment: 'Hello' } })).json;
    const reply = (
      await t.call('POST', '/content/api/v2/comments', {
        body: { content_id: p.id, comment: 'Reply', parent_id: c.id },
      })
    ).json;
    await t.call('DELETE', `/content/api/v2/comments/${c.id}`);
    await t.call('DELETE', `${POSTS}/${p.id}`);
    const edited = await t.call('PUT', `/content/api/v2/comments/${reply.id}`, {
      body: { comment: 'Edited', state: 'REJECTED' },
    });
    expect(edited.status).toBe(200);
    expect(edited.json).toMatchObject({
      comment: 'Edited',
      state: 'REJECTED',
      content_id: p.id,
      content_title: 'Post of a comment',
    });
    // Moving it to a post that is not there is refused, naming the field.
    const moved = await t.call('PUT', `/content/api/v2/comments/${reply.id}`, { body: { content_id: 424242 } });
    expect(moved.status).toBe(400);
    expect(moved.json.message).toBe('body.content_id: no blog post with id 424242');
    expect(
      (await t.call('POST', '/content/api/v2/comments', { body: { content_id: p.id, comment: 'Late' } })).status,
    ).toBe(400);
  });
});

describe('push-buffer-live keeps live edits (issue 16)', () => {
  it('merges only the fields the buffer changed: a live edit of another field made meanwhile stays', async () => {
    const p = await post({ name: 'Merged', post_body: '<p>v1</p>', meta_description: 'old' });
    await t.call('PUT', `${POSTS}/${p.id}/buffer`, { body: { post_body: '<p>v2</p>' } });
    await t.call('PUT', `${POSTS}/${p.id}`, { body: { meta_description: 'edited live' } });
    // The buffer shows the live object with its edits over it.
    expect((await t.call('GET', `${POSTS}/${p.id}/buffer`)).json).toMatchObject({
      post_body: '<p>v2</p>',
      meta_description: 'edited live',
    });
    const pushed = await t.call('POST', `${POSTS}/${p.id}/push-buffer-live`);
    expect(pushed.json).toMatchObject({ post_body: '<p>v2</p>', meta_description: 'edited live' });
    expect(await get(p.id)).toMatchObject({ post_body: '<p>v2</p>', meta_description: 'edited live' });
  });

  it('refuses (409 naming the field) to overwrite a field edited live after the buffer edited it', async () => {
    const p = await post({ name: 'Clash', post_body: '<p>v1</p>' });
    await t.call('PUT', `${POSTS}/${p.id}/buffer`, { body: { post_body: '<p>buffer</p>', post_summary: 'sum' } });
    await t.call('PUT', `${POSTS}/${p.id}`, { body: { post_body: '<p>live</p>' } });
    const refused = await t.call('POST', `${POSTS}/${p.id}/push-buffer-live`);
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ fields: ['post_body'] });
    expect(refused.json.message).toMatch(/^post_body changed on the live blog post after the buffer's edit/);
    expect((await get(p.id)).post_body).toBe('<p>live</p>');
    // The PUT variant that sets the field decides it; so does editing it in the buffer again.
    expect(
      (await t.call('PUT', `${POSTS}/${p.id}/push-buffer-live`, { body: { post_body: '<p>both</p>' } })).json,
    ).toMatchObject({ post_body: '<p>both</p>', post_summary: 'sum' });
    await t.call('PUT', `${POSTS}/${p.id}/buffer`, { body: { post_body: '<p>buffer 2</p>' } });
    await t.call('PUT', `${POSTS}/${p.id}`, { body: { post_body: '<p>live 2</p>' } });
    expect((await t.call('POST', `${POSTS}/${p.id}/push-buffer-live`)).status).toBe(409);
    await t.call('PUT', `${POSTS}/${p.id}/buffer`, { body: { post_body: '<p>buffer 3</p>' } });
    expect((await t.call('POST', `${POSTS}/${p.id}/push-buffer-live`)).json.post_body).toBe('<p>buffer 3</p>');
  });

  it('blog posts take push-buffer-live as a publish action, like pages', async () => {
    const p = await post({ name: 'Action push' });
    await publish(p.id);
    await t.call('PUT', `${POSTS}/${p.id}/buffer`, { body: { post_body: '<p>pushed by action</p>' } });
    expect((await publish(p.id, 'push-buffer-live')).status).toBe(204);
    expect(await get(p.id)).toMatchObject({ post_body: '<p>pushed by action</p>', state: 'PUBLISHED' });
    expect((await page(p.url)).text).toContain('<p>pushed by action</p>');
  });
});

describe('publish-action by PUT (issue 16: an older client sends PUT)', () => {
  it('works exactly like POST for posts and pages: publish, cancel, push-buffer-live, the same refusals', async () => {
    for (const [coll, body] of [
      [POSTS, { name: 'Put published', content_group_id: blogId }],
      ['/content/api/v2/pages', { name: 'Put published page' }],
    ] as const) {
      const p = (await t.call('POST', coll, { body })).json;
      const put = (action?: string) =>
        t.call('PUT', `${coll}/${p.id}/publish-action`, { body: action === undefined ? undefined : { action } });
      const res = await put('schedule-publish');
      expect(res.status).toBe(204);
      expect((await t.call('GET', `${coll}/${p.id}`)).json.state).toBe('PUBLISHED');
      expect((await page(p.url)).status).toBe(200);
      expect((await put('schedule-publish')).json.message).toMatch(/is already published$/);
      await t.call('PUT', `${coll}/${p.id}/buffer`, { body: { meta_description: 'by PUT' } });
      expect((await put('push-buffer-live')).status).toBe(204);
      expect((await t.call('GET', `${coll}/${p.id}`)).json.meta_description).toBe('by PUT');
      expect((await put('cancel-publish')).status).toBe(204);
      expect((await t.call('GET', `${coll}/${p.id}`)).json.state).toBe('DRAFT');
      expect((await put('publish-now')).json.message).toMatch(/^body\.action: /);
    }
  });
});
