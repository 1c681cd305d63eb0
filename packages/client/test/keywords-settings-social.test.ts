/** Keywords, settings and social broadcasts (§4.10) through the client, against the real platform. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, startTestPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
beforeAll(async () => {
  t = await startTestPlatform();
});
afterAll(() => t.close());

describe('keywords and settings', () => {
  it('creates, lists, gets and deletes keywords', async () => {
    const c = clientFor(t);
    const { keywords } = await c.keywords.create([{ keyword: 'client one' }, { keyword: 'client two' }]);
    expect((await c.keywords.list({ search: 'client' })).keywords).toHaveLength(2);
    expect((await c.keywords.get(keywords[0].keyword_guid)).keyword).toBe('client one');
    expect(await c.keywords.delete(keywords[0].keyword_guid)).toBeUndefined();
    await expect(c.keywords.get(keywords[0].keyword_guid)).rejects.toMatchObject({ status: 404 });
  });

  it('writes settings with POST and PUT, reads and deletes them', async () => {
    const c = clientFor(t);
    expect(await c.settings.create({ name: 'a', value: '1' })).toBeUndefined();
    expect(await c.settings.update({ name: 'a', value: '2' })).toBeUndefined();
    expect(await c.settings.get({ name: 'a' })).toEqual({ name: 'a', value: '2' });
    expect(await c.settings.get()).toEqual([{ name: 'a', value: '2' }]);
    expect(await c.settings.delete({ name: 'a' })).toBeUndefined();
    expect(await c.settings.get()).toEqual([]);
  });
});

describe('social', () => {
  it('reads channels, creates, lists, gets and cancels broadcasts', async () => {
    const c = clientFor(t);
    const [channel] = await c.social.listChannels();
    expect((await c.social.getChannel(channel.channelGuid)).type).toBe('Twitter');
    const b = await c.social.createBroadcast({
      channelGuid: channel.channelGuid,
      triggerAt: t.clock.now + 60_000,
      content: { body: 'Soon' },
    });
    expect(b.status).toBe('WAITING');
    expect((await c.social.listBroadcasts({ status: 'waiting' })).map((x) => x.broadcastGuid)).toEqual([
      b.broadcastGuid,
    ]);
    expect((await c.social.getBroadcast(b.broadcastGuid)).content?.body).toBe('Soon');
    expect(await c.social.cancelBroadcast(b.broadcastGuid)).toBeUndefined();
    expect((await c.social.getBroadcast(b.broadcastGuid)).status).toBe('CANCELED');
  });
});
