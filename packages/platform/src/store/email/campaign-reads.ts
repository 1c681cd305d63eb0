/** Email campaigns and their events as read: a campaign by id, content id or name (made when the
 * demo's is missing), pages of campaigns and of events with opaque offsets, counters computed from
 * the events on every read so that they cannot drift from them. */
import { schemas } from '@svc/api';
import type { z } from 'zod';
import { type Engine, type Param, type Queryable, sql } from '../../db/engine';
import { badRequest, notFound } from '../../domain/errors';
import { CAMPAIGN_IDS, type CampaignData, createCampaign, type EventType } from './campaigns';

type EmailEvent = z.input<typeof schemas.emailEvent>;

export interface EventFilter {
  limit: number;
  offset?: string;
  eventType?: EventType;
  recipient?: string;
  startTimestamp?: number;
  endTimestamp?: number;
}

/** Opaque paging offsets: base64url of the last item's sort key. */
const encodeOffset = (key: number[]) => Buffer.from(key.join('.')).toString('base64url');
function decodeOffset(offset: string | undefined, parts: number): number[] | undefined {
  if (!offset) return undefined;
  const key = Buffer.from(offset, 'base64url').toString().split('.');
  if (key.length != parts || !key.every((k) => /^\d{1,15}$/.test(k)))
    throw badRequest('query.offset: not an offset from a previous answer');
  return key.map(Number);
}

interface EventRow {
  seq: number;
  id: string;
  created: number;
  type: EventType;
  recipient: string;
  data: string;
  campaign_id: number;
  /** The campaign's `data` (its app id and name go on every event). */
  campaign: string;
}

/** Every method takes where it runs (`db`: the engine, or a request's transaction) first. */
export function campaignReads(engine: Engine, now: () => number) {
  const { jsonText, jsonNumber } = engine.dialect;
  const q = {
    byName: sql<[number, string, string], { id: number }>(
      `SELECT id FROM campaigns WHERE portal_id = ? AND ${jsonText('data', '$.name')} = ? AND ${jsonText('data', '$.type')} = ? ORDER BY id LIMIT 1`,
    ),
    campaign: sql<[number, number], { data: string }>('SELECT data FROM campaigns WHERE portal_id = ? AND id = ?'),
    campaignPage: sql<[number, number, number], { id: number; data: string; last_updated: number }>(
      'SELECT id, data, last_updated FROM campaigns WHERE portal_id = ? AND id > ? ORDER BY id LIMIT ?',
    ),
    byContent: sql<[number, number], { id: number }>(
      `SELECT id FROM campaigns WHERE portal_id = ? AND ${jsonNumber('data', '$.contentId')} = ? ORDER BY id DESC LIMIT 1`,
    ),
    counts: sql<[number, number], { type: EventType; n: number }>(
      'SELECT type, count(*) AS n FROM email_events WHERE portal_id = ? AND campaign_id = ? GROUP BY type',
    ),
  };

  async function requireCampaign(db: Queryable, portalId: number, id: number): Promise<CampaignData> {
    const row = await db.get(q.campaign, portalId, id);
    if (!row) throw notFound(`campaign ${id} does not exist`);
    return JSON.parse(row.data) as CampaignData;
  }

  return {
    requireCampaign,
    /** The campaign an email step names, by campaign id or content id (the newest with it). */
    async findCampaign(db: Queryable, portalId: number, by: { campaignId?: number; contentId?: number }) {
      const id =
        by.campaignId ??
        (by.contentId === undefined ? undefined : (await db.get(q.byContent, portalId, by.contentId))?.id);
      const row = id === undefined ? undefined : await db.get(q.campaign, portalId, id);
      if (!row) return undefined;
      const data = JSON.parse(row.data) as CampaignData;
      return { id: id!, contentId: data.contentId, name: data.name };
    },

    /** The portal's campaign of this name and type, made with `data` when it has none (the demo's
     * emails): once, even when two processes look for it at once (looked for again under the lock). */
    async ensureCampaign(db: Queryable, portalId: number, data: CampaignData) {
      const find = async (on: Queryable) => (await on.get(q.byName, portalId, data.name, data.type))?.id;
      return (
        (await find(db)) ??
        db.tx(async (tx) => {
          await tx.lock(CAMPAIGN_IDS);
          return (await find(tx)) ?? createCampaign(tx, portalId, data, now());
        })
      );
    },

    /** By id ascending; `offset` is the previous page's last id. */
    async campaigns(db: Queryable, portalId: number, limit: number, offset?: string) {
      const [after = 0] = decodeOffset(offset, 1) ?? [];
      const rows = await db.all(q.campaignPage, portalId, after, limit + 1);
      const page = rows.slice(0, limit);
      return {
        campaigns: page.map((r) => {
          const data = JSON.parse(r.data) as CampaignData;
          return { id: r.id, appId: data.appId, appName: data.appName, lastUpdatedTime: r.last_updated };
        }),
        hasMore: rows.length > limit,
        offset: page.length ? encodeOffset([page.at(-1)!.id]) : (offset ?? ''),
      };
    },

    async campaign(db: Queryable, portalId: number, id: number) {
      // The mail catcher's parts of the record are not the API's.
      const { body: _body, fromEmail: _from, ...data } = await requireCampaign(db, portalId, id);
      const counters = Object.fromEntries(schemas.EMAIL_EVENT_TYPES.map((type) => [type.toLowerCase(), 0]));
      for (const c of await db.all(q.counts, portalId, id)) counters[c.type.toLowerCase()] = c.n;
      return { id, ...data, counters };
    },

    /** Oldest first (by `created`, then insertion); `offset` is the previous page's last key. The
     * events of one campaign (an unknown one is a 404), or of every campaign of the portal. */
    async events(db: Queryable, portalId: number, campaignId: number | undefined, f: EventFilter) {
      if (campaignId !== undefined) await requireCampaign(db, portalId, campaignId);
      const where = ['e.portal_id = ?'];
      const args: (string | number)[] = [portalId];
      const filter = (sql: string, ...values: (string | number)[]) => {
        where.push(sql);
        args.push(...values);
      };
      if (campaignId !== undefined) filter('e.campaign_id = ?', campaignId);
      if (f.eventType) filter('e.type = ?', f.eventType);
      if (f.recipient) filter('e.recipient = ?', f.recipient.toLowerCase());
      if (f.startTimestamp !== undefined) filter('e.created >= ?', f.startTimestamp);
      if (f.endTimestamp !== undefined) filter('e.created <= ?', f.endTimestamp);
      const after = decodeOffset(f.offset, 2);
      if (after) filter('(e.created > ? OR (e.created = ? AND e.seq > ?))', after[0], after[0], after[1]);
      const query = sql<Param[], EventRow>(
        `SELECT e.seq, e.id, e.created, e.type, e.recipient, e.data, e.campaign_id, c.data AS campaign
         FROM email_events e JOIN campaigns c ON c.id = e.campaign_id
         WHERE ${where.join(' AND ')} ORDER BY e.created, e.seq LIMIT ?`,
      );
      const rows = await db.all(query, ...args, f.limit + 1);
      const page = rows.slice(0, f.limit);
      const last = page.at(-1);
      return {
        events: page.map((r): EmailEvent => {
          const campaign = JSON.parse(r.campaign) as CampaignData;
          return {
            id: r.id,
            created: r.created,
            type: r.type,
            recipient: r.recipient,
            portalId,
            appId: campaign.appId,
            appName: campaign.appName,
            emailCampaignId: r.campaign_id,
            ...(JSON.parse(r.data) as Partial<EmailEvent>),
          };
        }),
        hasMore: rows.length > f.limit,
        offset: last ? encodeOffset([last.created, last.seq]) : (f.offset ?? ''),
      };
    },
  };
}
