/** Social publishing (§4.10, reference §14): the portal's channels (seeded: one Twitter and one
 * LinkedIn account) and broadcasts. A broadcast with a future `triggerAt` waits (WAITING) until the
 * scheduler "publishes" it (SUCCESS, `finishedAt`, a message URL); without one it is published at
 * once; a DRAFT waits for nobody. Only waiting and draft broadcasts can be cancelled. */
import { randomUUID } from 'node:crypto';
import { type Engine, type Param, type Queryable, sql } from '../db/engine';
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

/** The seeded channels of a new portal: their guids and records. */
function seededChannels(portalId: number, at: number) {
  return (
    [
      ['Twitter', '4654321'],
      ['LinkedIn', '7654321'],
    ] as const
  ).map(([type, id]) => {
    const guid = randomUUID();
    const data = {
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
    };
    return { guid, data: JSON.stringify(data) };
  });
}

/** Every method takes where it runs (`db`: the engine, or a request's transaction) first. */
export function socialStore(engine: Engine, now: () => number) {
  const { jsonText, forUpdateSkipLocked } = engine.dialect;
  const q = {
    channels: sql<[number], { data: string }>('SELECT data FROM social_channels WHERE portal_id = ? ORDER BY seq'),
    anyChannel: sql<[number], { one: number }>('SELECT 1 AS one FROM social_channels WHERE portal_id = ? LIMIT 1'),
    channel: sql<[number, string], { data: string }>(
      'SELECT data FROM social_channels WHERE portal_id = ? AND guid = ?',
    ),
    addChannel: sql<[string, number, string]>('INSERT INTO social_channels (guid, portal_id, data) VALUES (?, ?, ?)'),
    insert: sql<[string, number, string, number | null, number, string]>(
      'INSERT INTO broadcasts (guid, portal_id, status, trigger_at, created_at, data) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    byGuid: sql<[number, string], BroadcastRow>(
      'SELECT guid, portal_id, status, trigger_at, created_at, data FROM broadcasts WHERE portal_id = ? AND guid = ?',
    ),
    // Each changes a broadcast only in the state it was read in: one the scheduler published
    // after a caller read it is not cancelled, and one published by another run is not again.
    publish: sql<[number, string, string]>(
      "UPDATE broadcasts SET status = 'SUCCESS', trigger_at = ?, data = ? WHERE guid = ? AND status = 'WAITING'",
    ),
    cancel: sql<[string, string]>(
      "UPDATE broadcasts SET status = 'CANCELED', data = ? WHERE guid = ? AND status IN ('WAITING', 'DRAFT')",
    ),
    due: sql<[number], BroadcastRow>(
      `SELECT guid, portal_id, status, trigger_at, created_at, data FROM broadcasts WHERE status = 'WAITING' AND trigger_at <= ?
       ORDER BY trigger_at, created_at${forUpdateSkipLocked}`,
    ),
    announced: sql<[number, string, string, string], { one: number }>(
      `SELECT 1 AS one FROM broadcasts WHERE portal_id = ? AND ${jsonText('data', '$.remoteContentType')} = ?
       AND ${jsonText('data', '$.remoteContentId')} = ? AND ${jsonText('data', '$.channelGuid')} = ? LIMIT 1`,
    ),
  };

  // The columns assigned to the parsed object itself, not to a spread copy of it (slow to add to in V8).
  const broadcast = (r: BroadcastRow) =>
    Object.assign(JSON.parse(r.data) as Json, {
      broadcastGuid: r.guid,
      portalId: r.portal_id,
      status: r.status,
      triggerAt: r.trigger_at,
    });

  async function find(db: Queryable, portalId: number, guid: string) {
    const row = await db.get(q.byGuid, portalId, guid);
    if (!row) throw notFound(`no broadcast with guid ${guid}`);
    return row;
  }

  /** "Publishes" a waiting broadcast: there is no real network, so success is recorded with a
   * message URL. Resolves to whether it did (it was still waiting). */
  async function publish(db: Queryable, row: BroadcastRow) {
    const data = JSON.parse(row.data) as Json;
    const at = now();
    const published = {
      ...data,
      finishedAt: at,
      messageUrl: `https://social.svc.local/${String(data.channelKey)}/${row.guid}`,
      userUpdatedAt: at,
    };
    return (await db.run(q.publish, row.trigger_at ?? at, JSON.stringify(published), row.guid)) > 0;
  }

  const store = {
    /** The seeded channels of a new portal (once). */
    async seedChannels(db: Queryable, portalId: number, at: number) {
      if (await db.get(q.anyChannel, portalId)) return;
      for (const c of seededChannels(portalId, at)) await db.run(q.addChannel, c.guid, portalId, c.data);
    },
    /** `settings=false` leaves out each channel's settings. */
    listChannels: async (db: Queryable, portalId: number, settings = true) =>
      (await db.all(q.channels, portalId)).map((r) => {
        const c = JSON.parse(r.data) as Channel;
        return settings ? c : { ...c, settings: null };
      }),
    async getChannel(db: Queryable, portalId: number, guid: string) {
      const row = await db.get(q.channel, portalId, guid);
      if (!row) throw notFound(`no channel with guid ${guid}`);
      return JSON.parse(row.data) as Channel;
    },

    async list(db: Queryable, portalId: number, f: BroadcastFilter) {
      const where = ['portal_id = ?'];
      const args: Param[] = [portalId];
      if (f.status) {
        where.push('status = ?');
        args.push(f.status.toUpperCase());
      }
      if (f.type) {
        where.push('status = ?');
        args.push(TYPE_STATUS[f.type]);
      }
      if (f.since !== undefined) {
        where.push('created_at >= ?');
        args.push(f.since);
      }
      if (f.withChannelKeys.length) {
        where.push(`${jsonText('data', '$.channelKey')} IN (${f.withChannelKeys.map(() => '?').join(', ')})`);
        args.push(...f.withChannelKeys);
      }
      // No count: every broadcast (no LIMIT). Page × count can exceed what SQLite takes as an
      // offset; such a page is empty anyway.
      let page = '';
      if (f.count) {
        page = ' LIMIT ? OFFSET ?';
        args.push(f.count, Math.min(f.count * (f.page ?? 0), Number.MAX_SAFE_INTEGER));
      }
      const rows = await db.all(
        sql<Param[], BroadcastRow>(
          `SELECT guid, portal_id, status, trigger_at, created_at, data FROM broadcasts WHERE ${where.join(' AND ')} ORDER BY created_at DESC, seq DESC${page}`,
        ),
        ...args,
      );
      return rows.map(broadcast);
    },
    get: async (db: Queryable, portalId: number, guid: string) => broadcast(await find(db, portalId, guid)),

    async create(db: Queryable, portalId: number, input: BroadcastInput) {
      const row = await db.get(q.channel, portalId, input.channelGuid);
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
      await db.run(q.insert, guid, portalId, draft ? 'DRAFT' : 'WAITING', triggerAt, at, JSON.stringify(data));
      if (!draft && triggerAt! <= at) await publish(db, (await db.get(q.byGuid, portalId, guid))!);
      return broadcast((await db.get(q.byGuid, portalId, guid))!);
    },

    async cancel(db: Queryable, portalId: number, guid: string) {
      const row = await find(db, portalId, guid);
      const data = { ...(JSON.parse(row.data) as Json), userUpdatedAt: now() };
      if (!(await db.run(q.cancel, JSON.stringify(data), guid)))
        throw badRequest(
          `broadcast ${guid} is ${(await find(db, portalId, guid)).status}; only waiting or draft broadcasts can be cancelled`,
        );
    },

    /** Broadcasts `content` about a piece of the portal's content (a blog post) on each of its active
     * channels, once per channel: announcing it again (a post published a second time) adds none. */
    async announce(
      db: Queryable,
      portalId: number,
      remote: { type: string; id: string },
      content: BroadcastInput['content'],
    ) {
      const groupGuid = randomUUID();
      const channels = (await store.listChannels(db, portalId)).filter((c) => c.active !== false && !c.hidden);
      const made = [];
      for (const c of channels)
        if (!(await db.get(q.announced, portalId, remote.type, remote.id, c.channelGuid)))
          made.push(
            await store.create(db, portalId, {
              channelGuid: c.channelGuid,
              groupGuid,
              remoteContentType: remote.type,
              remoteContentId: remote.id,
              content,
            }),
          );
      return made;
    },

    /** Publishes every waiting broadcast whose trigger time has come; returns how many. */
    async publishDue(db: Queryable) {
      let n = 0;
      for (const row of await db.all(q.due, now())) if (await publish(db, row)) n++;
      return n;
    },
  };
  return store;
}

export type SocialStore = ReturnType<typeof socialStore>;
