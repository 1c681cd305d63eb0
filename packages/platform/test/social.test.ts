/** Social channels and broadcasts (§4.10) over HTTP, with the scheduler run on a moved clock. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type TestPlatform } from './harness';

const HOUR = 3_600_000;
let t: TestPlatform;
let twitter: { channelGuid: string; channelKey: string };
let linkedin: { channelGuid: string; channelKey: string };
beforeAll(async () => {
  t = await startPlatform({ rateLimit: { max: 1_000_000, windowMs: 10_000 } });
  [twitter, linkedin] = (await t.call('GET', '/broadcast/v1/channels/setting/publish/current')).json;
});
afterAll(() => t.close());

const create = (body: Record<string, unknown>) => t.call('POST', '/broadcast/v1/broadcasts', { body });
const get = async (guid: string) => (await t.call('GET', `/broadcast/v1/broadcasts/${guid}`)).json;

describe('channels', () => {
  it('lists the seeded channels and gets one; each portal has its own', async () => {
    expect(twitter).toMatchObject({ type: 'Twitter', channelKey: 'Twitter:4654321', active: true, portalId: 62515 });
    expect(linkedin.channelKey).toBe('LinkedIn:7654321');
    expect((await t.call('GET', `/broadcast/v1/channels/${twitter.channelGuid}`)).json).toEqual(twitter);
    expect(
      (await t.call('GET', `/broadcast/v1/channels/${twitter.channelGuid}`, { portal: t.portals[1] })).status,
    ).toBe(404);
    const bare = (await t.call('GET', '/broadcast/v1/channels/setting/publish/current?settings=false')).json;
    expect(bare[0].settings).toBeNull();
  });
});

describe('broadcasts', () => {
  it('schedules a broadcast that the scheduler publishes when it is due, and records it', async () => {
    const at = t.clock.now + HOUR;
    const res = await create({ channelGuid: twitter.channelGuid, triggerAt: at, content: { body: 'Launch day!' } });
    expect(res.status).toBe(200);
    const b = res.json;
    expect(b).toMatchObject({
      status: 'WAITING',
      triggerAt: at,
      channelKey: twitter.channelKey,
      finishedAt: null,
      content: { body: 'Launch day!' },
    });
    const start = t.clock.now;
    // The scheduler's own timer would send the broadcast at any moment once the clock reaches it,
    // before this test's run (which then finds nothing due): this file runs the scheduler itself
    // from here on.
    await t.platform.services.scheduler.stop();
    try {
      t.clock.now = at - 1;
      await t.platform.services.scheduler.runDue();
      expect((await get(b.broadcastGuid)).status).toBe('WAITING');
      t.clock.now = at;
      expect((await t.platform.services.scheduler.runDue()).broadcasts).toBe(1);
      const done = await get(b.broadcastGuid);
      expect(done).toMatchObject({ status: 'SUCCESS', finishedAt: at });
      expect(done.messageUrl).toContain(b.broadcastGuid);
    } finally {
      t.clock.now = start;
    }
  });

  it('publishes at once without triggerAt, keeps a draft, cancels waiting ones only', async () => {
    const now = (await create({ channelGuid: linkedin.channelGuid, content: { body: 'Now' } })).json;
    expect(now).toMatchObject({ status: 'SUCCESS', finishedAt: t.clock.now });
    const draft = (
      await create({
        channelGuid: linkedin.channelGuid,
        triggerAt: t.clock.now + HOUR,
        status: 'DRAFT',
        content: { body: 'Draft' },
      })
    ).json;
    expect(draft).toMatchObject({ status: 'DRAFT', triggerAt: null, wasDraft: true });
    const waiting = (
      await create({ channelGuid: twitter.channelGuid, triggerAt: t.clock.now + HOUR, content: { body: 'Later' } })
    ).json;
    expect((await t.call('DELETE', `/broadcast/v1/broadcasts/${waiting.broadcastGuid}`)).status).toBe(204);
    expect((await get(waiting.broadcastGuid)).status).toBe('CANCELED');
    const start = t.clock.now;
    t.clock.now += 2 * HOUR;
    await t.platform.services.scheduler.runDue();
    t.clock.now = start;
    expect((await get(waiting.broadcastGuid)).status).toBe('CANCELED');
    expect((await t.call('DELETE', `/broadcast/v1/broadcasts/${waiting.broadcastGuid}`)).status).toBe(400);
    expect((await t.call('DELETE', `/broadcast/v1/broadcasts/${now.broadcastGuid}`)).status).toBe(400);
    expect((await t.call('DELETE', `/broadcast/v1/broadcasts/${draft.broadcastGuid}`)).status).toBe(204);
    expect((await t.call('DELETE', '/broadcast/v1/broadcasts/nope')).status).toBe(404);
  });

  it('lists with filters: status, type, since, channel keys, count and page', async () => {
    const p = t.portals[1];
    const [tw, li] = (await t.call('GET', '/broadcast/v1/channels/setting/publish/current', { portal: p })).json;
    const mk = (channelGuid: string, body: string, triggerAt?: number) =>
      t.call('POST', '/broadcast/v1/broadcasts', { body: { channelGuid, triggerAt, content: { body } }, portal: p });
    const list = async (query: string) =>
      (await t.call('GET', `/broadcast/v1/broadcasts?${query}`, { portal: p })).json.map(
        (b: { content: { body: string } }) => b.content.body,
      );
    const since = t.clock.now;
    await mk(tw.channelGuid, 'a');
    t.clock.now += 1000;
    await mk(li.channelGuid, 'b', t.clock.now + HOUR);
    t.clock.now += 1000;
    await mk(tw.channelGuid, 'c', t.clock.now + HOUR);
    expect(await list('')).toEqual(['c', 'b', 'a']);
    expect(await list('status=waiting')).toEqual(['c', 'b']);
    expect(await list('status=SUCCESS')).toEqual(['a']);
    expect(await list('type=published')).toEqual(['a']);
    expect(await list('type=scheduled')).toEqual(['c', 'b']);
    expect(await list(`since=${since + 1000}`)).toEqual(['c', 'b']);
    expect(await list(`withChannelKeys=${tw.channelKey}`)).toEqual(['c', 'a']);
    expect(await list(`withChannelKeys=${tw.channelKey}&withChannelKeys=${li.channelKey}`)).toEqual(['c', 'b', 'a']);
    expect(await list('count=2')).toEqual(['c', 'b']);
    expect(await list('count=2&page=1')).toEqual(['a']);
    expect(await list('count=999999999999999&page=999999999999999')).toEqual([]);
    expect((await t.call('GET', '/broadcast/v1/broadcasts?status=sent', { portal: p })).json.message).toMatch(
      /^query\.status: /,
    );
    expect((await t.call('GET', '/broadcast/v1/broadcasts?count=0', { portal: p })).json.message).toBe(
      'query.count: must be at least 1',
    );
  });

  it('refuses bad input with the field named', async () => {
    expect((await create({ channelGuid: 'nope', content: { body: 'x' } })).json.message).toBe(
      'body.channelGuid: no channel with guid nope',
    );
    expect((await create({ channelGuid: twitter.channelGuid, content: {} })).json.message).toBe(
      'body.content.body: is required',
    );
    expect(
      (await create({ channelGuid: twitter.channelGuid, content: { body: 'x' }, triggerAt: 'soon' })).json.message,
    ).toMatch(/^body\.triggerAt: /);
    expect((await t.call('GET', '/broadcast/v1/broadcasts/nope')).status).toBe(404);
  });
});

describe('blog posts published with social publishing enabled (§3: "sends any enabled tweets")', () => {
  const POSTS = '/content/api/v2/blog-posts';
  let blogId: number;
  beforeAll(async () => {
    blogId = (await t.call('GET', '/content/api/v2/blogs')).json.objects[0].id;
  });
  const post = async (body: Record<string, unknown>) =>
    (await t.call('POST', POSTS, { body: { content_group_id: blogId, ...body } })).json;
  const publish = (id: number, action = 'schedule-publish') =>
    t.call('POST', `${POSTS}/${id}/publish-action`, { body: { action } });
  type Broadcast = {
    broadcastGuid: string;
    remoteContentId: string;
    channelKey: string;
    groupGuid: string;
    status: string;
    triggerAt: number;
  };
  /** The broadcasts made for a post. */
  const about = async (id: number) =>
    ((await t.call('GET', '/broadcast/v1/broadcasts')).json as Broadcast[]).filter(
      (b) => b.remoteContentId == String(id),
    );

  it('announces the post on each channel when it goes live, once however often it is published', async () => {
    const p = await post({ name: 'Big news', is_social_publishing_enabled: true });
    expect(await about(p.id)).toEqual([]);
    expect((await publish(p.id)).status).toBe(204);
    const made = await about(p.id);
    expect(made.map((b) => b.channelKey).sort()).toEqual([linkedin.channelKey, twitter.channelKey].sort());
    for (const b of made)
      expect(b).toMatchObject({
        status: 'SUCCESS',
        remoteContentType: 'BLOG_POST',
        portalId: 62515,
        triggerAt: t.clock.now,
        content: { body: `Big news ${p.url}`, title: 'Big news', originalLink: p.url },
      });
    // One group of messages for one post.
    expect(new Set(made.map((b) => b.groupGuid)).size).toBe(1);
    expect((await get(made[0].broadcastGuid)).remoteContentId).toBe(String(p.id));
    // Taken back to draft and published again: nothing new.
    await publish(p.id, 'cancel-publish');
    await publish(p.id);
    expect(await about(p.id)).toHaveLength(2);
    // Other portals see none of it.
    const theirs = (await t.call('GET', '/broadcast/v1/broadcasts', { portal: t.portals[1] })).json as {
      remoteContentId: string;
    }[];
    expect(theirs.filter((b) => b.remoteContentId == String(p.id))).toEqual([]);
  });

  it('a scheduled post is announced when it goes live, not before; without the flag, never', async () => {
    const at = t.clock.now + HOUR;
    const p = await post({
      name: 'Scheduled news',
      is_social_publishing_enabled: true,
      publish_immediately: false,
      publish_date: at,
    });
    const quiet = await post({ name: 'Quiet news' });
    await publish(p.id);
    await publish(quiet.id);
    expect(await about(p.id)).toEqual([]);
    const start = t.clock.now;
    try {
      t.clock.now = at;
      await t.platform.services.scheduler.runDue();
      expect((await about(p.id)).map((b) => [b.status, b.triggerAt])).toEqual([
        ['SUCCESS', at],
        ['SUCCESS', at],
      ]);
    } finally {
      t.clock.now = start;
    }
    expect(await about(quiet.id)).toEqual([]);
  });

  it('records the tweets job in the post’s history only when it sent tweets: none with social publishing off', async () => {
    const history = (id: number) => t.platform.services.content.history(t.platform.services.engine, id);
    const tweets = {
      event: `send tweets (broadcasts on ${twitter.channelKey}, ${linkedin.channelKey})`,
      timestamp: t.clock.now,
    };
    const on = await post({ name: 'Told news', is_social_publishing_enabled: true });
    const off = await post({ name: 'Untold news' });
    expect(off.is_social_publishing_enabled).toBe(false);
    await publish(on.id);
    await publish(off.id);
    expect(await history(on.id)).toEqual([tweets]);
    expect(await about(on.id)).toHaveLength(2);
    // Off: nothing sent, so no job recorded (publishing sends no emails either).
    expect(await history(off.id)).toEqual([]);
    expect(await about(off.id)).toEqual([]);

    // Published again: the post was announced already, so nothing is sent and nothing recorded.
    await publish(on.id, 'cancel-publish');
    await publish(on.id);
    expect(await history(on.id)).toEqual([tweets]);
    // Turned on while a draft, the other one sends its tweets when published again, and says so.
    await publish(off.id, 'cancel-publish');
    expect((await t.call('PUT', `${POSTS}/${off.id}`, { body: { is_social_publishing_enabled: true } })).status).toBe(
      200,
    );
    await publish(off.id);
    expect(await about(off.id)).toHaveLength(2);
    expect(await history(off.id)).toEqual([tweets]);
  });

  it('announces a post published through blog v1 too', async () => {
    await t.call('POST', '/content/api/v2/blog-authors', {
      body: { full_name: 'Social Ada', email: 'ada@social.test' },
    });
    const p = await post({ name: 'Via v1', is_social_publishing_enabled: true });
    const entry = '<entry xmlns="http://www.w3.org/2005/Atom"><draft>false</draft></entry>';
    const res = await t.call('PUT', `/blog/v1/posts/${p.id}.atom`, {
      body: entry,
      headers: { 'content-type': 'application/atom+xml' },
    });
    expect(res.status).toBe(200);
    expect(await about(p.id)).toHaveLength(2);
  });
});
