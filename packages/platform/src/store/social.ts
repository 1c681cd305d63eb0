/** Social publishing (§4.10, reference §14): the portal's channels (seeded: one Twitter and one
 * LinkedIn account) and broadcasts. A broadcast with a future `triggerAt` waits (WAITING) until the
 * scheduler "publishes" it (SUCCESS, `finishedAt`, a message URL); without one it is published at
 * once; a DRAFT waits for nobody. Only waiting and draft broadcasts can be cancelled. */
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/open';
import { badRequest, notFound } from '../domain/errors';

type Json = Record<string, unknown>;
/** A stored channel (its JSON has every key; these are the ones the code reads). */
type Channel = Json & { channelGuid: string; channelKey: string };

interface BroadcastRow {
  guid: string;
  portal_id: number;
  status: string;
  trigger_at: number | null;
  created_at: number;
  data: string;
}

export interface BroadcastInput {
  channelGuid: string;
  /** What the message is about, when the platform sends it for its own content (a blog post). */
  remoteContentType?: string;
  remoteContentId?: string;
  triggerAt?: number;
  groupGuid?: string;
  status?: 'DRAFT';
  content: Json & { body: string };
}

export interface BroadcastFilter {
  status?: 'success' | 'waiting' | 'canceled' | 'error_fatal';
  type?: 'scheduled' | 'published' | 'failed';
  since?: number;
  withChannelKeys: string[];
  count?: number;
  page?: number;
}

const TYPE_STATUS = { scheduled: 'WAITING', published: 'SUCCESS', failed: 'ERROR_FATAL' } as const;

export function socialStore(db: Db, now: () => number) {
  const q = {
    channels: db.prepare<[number], { data: string }>('SELECT data FROM social_channels WHERE portal_id = ? ORDER BY rowid'),
    channel: db.prepare<[number, string], { data: string }>('SELECT data FROM social_channels WHERE portal_id = ? AND guid = ?'),
    addChannel: db.prepare<[string, number, string]>('INSERT INTO social_channels (guid, portal_id, data) VALUES (?, ?, ?)'),
    insert: db.prepare<[string, number, string, number | null, number, string]>(
      'INSERT INTO broadcasts (guid, portal_id, status, trigger_at, created_at, data) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    byGuid: db.prepare<[number, string], BroadcastRow>('SELECT * FROM broadcasts WHERE portal_id = ? AND guid = ?'),
    save: db.prepare<[string, number | null, string, string]>('UPDATE broadcasts SET status = ?, trigger_at = ?, data = ? WHERE guid = ?'),
    due: db.prepare<[number], BroadcastRow>("SELECT * FROM broadcasts WHERE status = 'WAITING' AND trigger_at <= ? ORDER BY trigger_at, created_at"),
    announced: db.prepare<[number, string, string, string], number>(
      `SELECT 1 FROM broadcasts WHERE portal_id = ? AND json_extract(data, '$.remoteContentType') = ?
       AND json_extract(data, '$.remoteContentId') = ? AND json_extract(data, '$.channelGuid') = ? LIMIT 1`,
    ),
  };

  const broadcast = (r: BroadcastRow) => ({ ...(JSON.parse(r.data) as Json), broadcastGuid: r.guid, portalId: r.portal_id, status: r.status, triggerAt: r.trigger_at });

  function find(portalId: number, guid: string) {
    const row = q.byGuid.get(portalId, guid);
    if (!row) throw notFound(`no broadcast with guid ${guid}`);
    return row;
  }

  /** "Publishes" a broadcast: there is no real network, so success is recorded with a message URL. */
  function publish(row: BroadcastRow) {
    const data = JSON.parse(row.data) as Json;
    const at = now();
    const published = { ...data, finishedAt: at, messageUrl: `https://social.svc.local/${String(data.channelKey)}/${row.guid}`, userUpdatedAt: at };
    q.save.run('SUCCESS', row.trigger_at ?? at, JSON.stringify(published), row.guid);
  }

  const store = {
    /** The seeded channels of a new portal (once). */
    seedChannels(portalId: number, at: number) {
      if (q.channels.get(portalId)) return;
      for (const [type, id] of [['Twitter', '4654321'], ['LinkedIn', '7654321']] as const) {
        const guid = randomUUID();
        q.addChannel.run(guid, portalId, JSON.stringify({
          channelGuid: guid,
          portalId,
          channelId: id,
          accountGuid: randomUUID(),
          createdAt: at,
          updatedAt: at,
          active: true,
          shared: false,
          hidden: false,
          channelKey: `${type}:${id}`,
          type,
          channelSlug: type.toLowerCase(),
          accountType: type,
          accountSlug: type.toLowerCase(),
          name: `Portal ${portalId} on ${type}`,
          displayName: `Portal ${portalId}`,
          username: `portal${portalId}`,
          profileUrl: null,
          avatarUrl: null,
          dataMap: {},
          settings: { publish: true },
          channelScopes: [],
          remoteUserIdForFeed: null,
        }));
      }
    },
    /** `settings=false` leaves out each channel's settings. */
    listChannels: (portalId: number, settings = true) =>
      q.channels.all(portalId).map((r) => {
        const c = JSON.parse(r.data) as Channel;
        return settings ? c : { ...c, settings: null };
      }),
    getChannel(portalId: number, guid: string) {
      const row = q.channel.get(portalId, guid);
      if (!row) throw notFound(`no channel with guid ${guid}`);
      return JSON.parse(row.data) as Channel;
    },

    list(portalId: number, f: BroadcastFilter) {
      const where = ['portal_id = ?'];
      const args: unknown[] = [portalId];
      if (f.status) where.push('status = ?'), args.push(f.status.toUpperCase());
      if (f.type) where.push('status = ?'), args.push(TYPE_STATUS[f.type]);
      if (f.since !== undefined) where.push('created_at >= ?'), args.push(f.since);
      if (f.withChannelKeys.length)
        where.push(`json_extract(data, '$.channelKey') IN (${f.withChannelKeys.map(() => '?').join(', ')})`), args.push(...f.withChannelKeys);
      // No count: every broadcast (LIMIT -1). Page × count can exceed what SQLite takes as an
      // offset; such a page is empty anyway.
      const offset = f.count ? Math.min(f.count * (f.page ?? 0), Number.MAX_SAFE_INTEGER) : 0;
      return db
        .prepare<unknown[], BroadcastRow>(`SELECT * FROM broadcasts WHERE ${where.join(' AND ')} ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?`)
        .all(...args, f.count ?? -1, offset)
        .map(broadcast);
    },
    get: (portalId: number, guid: string) => broadcast(find(portalId, guid)),

    create(portalId: number, input: BroadcastInput) {
      const row = q.channel.get(portalId, input.channelGuid);
      if (!row) throw badRequest(`body.channelGuid: no channel with guid ${input.channelGuid}`);
      const channel = JSON.parse(row.data) as Json;
      const at = now();
      const draft = input.status == 'DRAFT';
      const { channelGuid: _c, triggerAt: _t, status: _s, groupGuid, content, ...rest } = input;
      const guid = randomUUID();
      const data = {
        foreignId: null,
        remoteContentId: null,
        remoteContentType: null,
        ...rest,
        groupGuid: groupGuid ?? randomUUID(),
        campaignGuid: null,
        campaignName: null,
        channelGuid: input.channelGuid,
        channelKey: channel.channelKey,
        clientTag: null,
        createdAt: at,
        userUpdatedAt: at,
        finishedAt: null,
        message: null,
        content: { originalBody: content.body, ...content },
        clicks: 0,
        interactions: {},
        interactionCounts: {},
        messageUrl: null,
        wasDraft: draft,
        extraData: {},
      };
      // A draft keeps no trigger time (reference §14); no trigger time otherwise means now.
      const triggerAt = draft ? null : (input.triggerAt ?? at);
      q.insert.run(guid, portalId, draft ? 'DRAFT' : 'WAITING', triggerAt, at, JSON.stringify(data));
      if (!draft && triggerAt! <= at) publish(q.byGuid.get(portalId, guid)!);
      return broadcast(q.byGuid.get(portalId, guid)!);
    },

    cancel(portalId: number, guid: string) {
      const row = find(portalId, guid);
      if (row.status != 'WAITING' && row.status != 'DRAFT') throw badRequest(`broadcast ${guid} is ${row.status}; only waiting or draft broadcasts can be cancelled`);
      const data = { ...(JSON.parse(row.data) as Json), userUpdatedAt: now() };
      q.save.run('CANCELED', row.trigger_at, JSON.stringify(data), guid);
    },

    /** Broadcasts `content` about a piece of the portal's content (a blog post) on each of its active
     * channels, once per channel: announcing it again (a post published a second time) adds none. */
    announce(portalId: number, remote: { type: string; id: string }, content: BroadcastInput['content']) {
      const groupGuid = randomUUID();
      const channels = store.listChannels(portalId).filter((c) => c.active !== false && !c.hidden);
      return channels
        .filter((c) => !q.announced.get(portalId, remote.type, remote.id, c.channelGuid))
        .map((c) => store.create(portalId, { channelGuid: c.channelGuid, groupGuid, remoteContentType: remote.type, remoteContentId: remote.id, content }));
    },

    /** Publishes every waiting broadcast whose trigger time has come; returns how many. */
    publishDue() {
      const due = q.due.all(now());
      due.forEach(publish);
      return due.length;
    },
  };
  return store;
}

export type SocialStore = ReturnType<typeof socialStore>;
