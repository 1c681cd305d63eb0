/** Two platform processes on one PostgreSQL database, each standing as an engine of its own (its
 * own pool of connections) with its own stores: the due work of the scheduler is done once between
 * them, whether their runs meet at the row claims or at the scheduler's exclusive lock, and the
 * campaigns they make at once get ids of their own. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Engine, type Queryable, sql } from '../src/db/engine';
import { openPostgres } from '../src/db/open-postgres';
import { scheduler } from '../src/jobs/scheduler';
import { socialPublishing } from '../src/jobs/social-publishing';
import { contentEngine } from '../src/store/content/engine';
import { createCampaign, emailStore } from '../src/store/email';
import { seedEmailDefaults } from '../src/store/email-seed';
import { createPortal } from '../src/store/portals';
import { socialStore } from '../src/store/social';
import { havePostgres, PG_URL, pgSchema } from './postgres';

const schema = await pgSchema('two_processes');
const MINUTE = 60_000;
const PORTAL = 7;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const sum = (ns: number[]) => ns.reduce((a, b) => a + b, 0);

describe.skipIf(!havePostgres)('two processes on one PostgreSQL database', () => {
  let clock = 1_800_000_000_000;
  const now = () => clock;

  /** What one process has: its engine, its stores (wired as services/wiring.ts wires them), its scheduler. */
  function processOn(engine: Engine) {
    const content = contentEngine(engine, now);
    const social = socialStore(engine, now);
    socialPublishing(content, social);
    const jobs = scheduler(engine, (fn) => engine.tx(fn), [
      { name: 'publish', run: (t) => content.publishDue(t) },
      { name: 'broadcasts', run: (t) => social.publishDue(t) },
    ]);
    return { engine, content, social, email: emailStore(engine, now), scheduler: jobs };
  }
  let a: ReturnType<typeof processOn>;
  let b: ReturnType<typeof processOn>;
  let blogId: number;
  let channelGuid: string;

  beforeAll(async () => {
    const [one, two] = await Promise.all([openPostgres(PG_URL, { schema }), openPostgres(PG_URL, { schema })]);
    a = processOn(one);
    b = processOn(two);
    await createPortal(a.engine, a, { id: PORTAL, name: 'Seven', tier: 'enterprise', now: clock });
    blogId = (await a.content.list(a.engine, PORTAL, 'blogs', { limit: 1 }, new Set())).objects[0].id;
    channelGuid = (await a.social.listChannels(a.engine, PORTAL))[0].channelGuid;
  });
  afterAll(async () => {
    await a?.engine.close();
    await b?.engine.close();
  });

  /** `n` posts scheduled for `at` (announced on social when they go live), made half by each process. */
  async function schedulePosts(prefix: string, n: number, at: number) {
    return Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const p = i % 2 ? a : b;
        const post = await p.content.create(p.engine, PORTAL, 'blog-posts', {
          name: `${prefix} ${i}`,
          content_group_id: blogId,
          publish_immediately: false,
          publish_date: at,
          is_social_publishing_enabled: true,
        });
        await p.content.publishAction(p.engine, PORTAL, 'blog-posts', post.id, 'schedule-publish');
        return post.id;
      }),
    );
  }

  /** `n` broadcasts waiting for `at`. */
  async function scheduleBroadcasts(prefix: string, n: number, at: number) {
    const made = await Promise.all(
      Array.from({ length: n }, (_, i) => {
        const p = i % 2 ? a : b;
        return p.social.create(p.engine, PORTAL, { channelGuid, triggerAt: at, content: { body: `${prefix} ${i}` } });
      }),
    );
    return made.map((m) => m.broadcastGuid);
  }

  /** How many times each post went live (its PUBLISHED versions), by id. Not its history's tweets
   * job: a post is announced once however often it goes live, and the job is recorded only when
   * it sent something. */
  async function timesPublished(ids: number[]) {
    const d = a.engine.dialect;
    const rows = await a.engine.all(
      sql<[string], { id: number; n: number }>(
        `SELECT object_id AS id, count(*) AS n FROM content_versions WHERE ${d.inJsonArray('object_id', '?', 'integer')}
         AND ${d.jsonText('data', '$.state')} = 'PUBLISHED' GROUP BY object_id`,
      ),
      JSON.stringify(ids),
    );
    return new Map(rows.map((r) => [r.id, r.n]));
  }

  it('publishes each of 100 due posts once, and each due broadcast once, with the jobs run side by side in both', async () => {
    const at = clock + MINUTE;
    const posts = await schedulePosts('Post', 100, at);
    const waiting = await scheduleBroadcasts('Waiting', 50, at);
    clock = at;

    // Each job run by both processes at once, twice each, in transactions of their own (no
    // exclusive lock): only the row claims keep them apart.
    const runs = (job: (p: typeof a) => (t: Queryable) => Promise<number>) =>
      Promise.all([a, b, a, b].map((p) => p.engine.tx(job(p))));
    const published = await runs((p) => (t) => p.content.publishDue(t));
    expect(sum(published)).toBe(100);
    const broadcast = await runs((p) => (t) => p.social.publishDue(t));
    expect(sum(broadcast)).toBe(50);

    const times = await timesPublished(posts);
    expect(posts.filter((id) => times.get(id) !== 1)).toEqual([]);
    // And each post's tweets job recorded once.
    const jobs = await Promise.all(posts.map((id) => a.content.history(a.engine, id)));
    expect(jobs.filter((h) => h.length != 1 || !h[0].event.startsWith('send tweets (')).length).toBe(0);
    for (const id of posts) expect((await a.content.get(a.engine, PORTAL, 'blog-posts', id)).state).toBe('PUBLISHED');
    // Each post announced once on each of the portal's two channels, and published at once.
    const announced = await a.engine.all(
      sql<[number], { status: string; n: number }>(
        `SELECT status, count(*) AS n FROM broadcasts WHERE portal_id = ? AND ${a.engine.dialect.jsonText('data', '$.remoteContentType')} = 'BLOG_POST' GROUP BY status`,
      ),
      PORTAL,
    );
    expect(announced).toEqual([{ status: 'SUCCESS', n: 200 }]);
    for (const guid of waiting)
      expect(await a.social.get(a.engine, PORTAL, guid)).toMatchObject({ status: 'SUCCESS', finishedAt: at });
    // Nothing is left due.
    expect(await Promise.all([a, b].map((p) => p.engine.tx((t) => p.content.publishDue(t))))).toEqual([0, 0]);
  });

  it('runs the scheduler in one process at a time: runs started together do the due work once between them', async () => {
    const at = clock + MINUTE;
    const posts = await schedulePosts('Scheduled', 20, at);
    await scheduleBroadcasts('Later', 10, at);
    clock = at;
    const done = await Promise.all([
      a.scheduler.runDue(),
      b.scheduler.runDue(),
      a.scheduler.runDue(),
      b.scheduler.runDue(),
    ]);
    expect(sum(done.map((d) => d.publish))).toBe(20);
    expect(sum(done.map((d) => d.broadcasts))).toBe(10);
    expect([...(await timesPublished(posts)).values()]).toEqual(Array(20).fill(1));

    // A slow run in one process: the other's run, started meanwhile, does not run at all.
    let running = 0;
    let most = 0;
    const slow = (engine: Engine) =>
      scheduler(engine, (fn) => engine.tx(fn), [
        {
          name: 'slow',
          run: async () => {
            most = Math.max(most, ++running);
            await sleep(100);
            running--;
            return 1;
          },
        },
      ]);
    const both = await Promise.all([slow(a.engine).runDue(), slow(b.engine).runDue()]);
    expect(both.map((d) => d.slow).sort()).toEqual([0, 1]);
    expect(most).toBe(1);
  });

  it('cancels a waiting broadcast only while it waits: one the scheduler published meanwhile stays published', async () => {
    const at = clock + MINUTE;
    const [guid] = await scheduleBroadcasts('Raced', 1, at);
    clock = at;
    // Process a publishes it and holds its transaction open; process b's cancel reads it as
    // waiting and then waits for a's row lock to write.
    let published!: () => void;
    const hasPublished = new Promise<void>((resolve) => (published = resolve));
    let commit!: () => void;
    const mayCommit = new Promise<void>((resolve) => (commit = resolve));
    const publishing = a.engine.tx(async (t) => {
      const n = await a.social.publishDue(t);
      published();
      await mayCommit;
      return n;
    });
    await hasPublished;
    const cancelling = b.social.cancel(b.engine, PORTAL, guid).catch((err: Error) => err.message);
    await sleep(100);
    commit();
    expect(await publishing).toBe(1);
    expect(await cancelling).toBe(`broadcast ${guid} is SUCCESS; only waiting or draft broadcasts can be cancelled`);
    expect(await a.social.get(a.engine, PORTAL, guid)).toMatchObject({ status: 'SUCCESS' });
  });

  it('gives campaigns made at once in both processes ids of their own, each after the largest', async () => {
    await seedEmailDefaults(a.engine, PORTAL, clock);
    const largest = sql<[], { id: number }>('SELECT max(id) AS id FROM campaigns');
    const before = (await a.engine.value(largest))!;
    expect(before).toBeGreaterThanOrEqual(10_329_957);
    const data = {
      appId: 1,
      appName: 'Batch',
      contentId: 1,
      name: 'At once',
      subject: 'Hi',
      type: 'BATCH_EMAIL',
      numIncluded: 0,
      numQueued: 0,
      processingState: 'DONE',
      lastProcessingFinishedAt: null,
    };
    // Each transaction stays open a while after choosing its id, as a request's would.
    const ids = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? a : b).engine.tx(async (t) => {
          const id = await createCampaign(t, PORTAL, data, clock);
          await sleep(10);
          return id;
        }),
      ),
    );
    expect([...ids].sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => before + 1 + i));

    // A portal's first subscription changes, in both processes at once: one campaign collects them.
    await Promise.all(
      Array.from({ length: 6 }, (_, i) => {
        const p = i % 2 ? a : b;
        return p.email.update(p.engine, PORTAL, `reader${i}@example.test`, { subscribed: false });
      }),
    );
    const collecting = await a.engine.all(
      sql<[number], { id: number }>(
        `SELECT id FROM campaigns WHERE portal_id = ? AND ${a.engine.dialect.jsonText('data', '$.type')} = 'SUBSCRIPTION_CHANGES'`,
      ),
      PORTAL,
    );
    expect(collecting).toHaveLength(1);
    expect(
      await a.engine.value(
        sql<[number], { n: number }>(
          "SELECT count(*) AS n FROM email_events WHERE campaign_id = ? AND type = 'STATUSCHANGE'",
        ),
        collecting[0].id,
      ),
    ).toBe(6);
  });
});
