/** Email campaigns and their events as written: a campaign made (its id the largest plus one,
 * under a lock), an event appended. Plain functions, so that the seed (store/email-seed.ts) and
 * the store use the one writer. */
import { randomUUID } from 'node:crypto';
import type { schemas } from '@svc/api';
import { type Queryable, sql } from '../../db/engine';

export type EventType = (typeof schemas.EMAIL_EVENT_TYPES)[number];

/** What a campaign row keeps in `data`: the record minus `id` and the computed `counters`. */
export interface CampaignData {
  appId: number;
  appName: string;
  contentId: number;
  name: string;
  subject: string;
  type: string;
  numIncluded: number;
  numQueued: number;
  processingState: string;
  lastProcessingFinishedAt: number | null;
  /** The subscription type the email belongs to: who opted out of it does not get it. */
  subscriptionTypeId?: number;
  /** The email's text (paragraphs split by blank lines), for the messages the mail catcher keeps;
   * default a line naming the campaign. Not part of the API's campaign record. */
  body?: string;
  /** The sender's address; default `no-reply@example.invalid` (there is no mail server). */
  fromEmail?: string;
}

export interface NewEvent {
  type: EventType;
  recipient: string;
  created: number;
  /** Type-specific fields (`sentBy`, `url`, `subscriptions`, ...), merged into the event record. */
  data?: Record<string, unknown>;
  /** The twin made it up, with no mail server or recipient behind it: a send's DELIVERED, and
   * every event of the sample campaigns. The record says `simulated: true`. */
  simulated?: true;
}

/** Ids look like the legacy API's; they are global (the table's key), so each follows the largest. */
const FIRST_CAMPAIGN_ID = 10_329_957;
/** Held while a campaign's id is chosen and until its row is committed (see createCampaign). */
export const CAMPAIGN_IDS = 'campaign ids';

const campaignQ = {
  nextId: sql<[number], { id: number }>('SELECT coalesce(max(id), ?) + 1 AS id FROM campaigns'),
  insert: sql<[number, number, string, number]>(
    'INSERT INTO campaigns (id, portal_id, data, last_updated) VALUES (?, ?, ?, ?)',
  ),
  event: sql<[string, number, number, number, string, string, string]>(
    'INSERT INTO email_events (id, portal_id, campaign_id, created, type, recipient, data) VALUES (?, ?, ?, ?, ?, ?, ?)',
  ),
  // Moves forward only (SQLite's max(a, b) is PostgreSQL's greatest: a condition says it in both).
  touch: sql<[number, number, number]>('UPDATE campaigns SET last_updated = ? WHERE id = ? AND last_updated < ?'),
};

/** `db`: where it runs (the engine, or a transaction's handle). The id is the largest plus one:
 * two transactions at once on PostgreSQL would both see the same largest (neither sees the
 * other's row before it commits), so choosing one takes a lock that the next waits for until this
 * transaction ends. A lock rather than a sequence keeps the ids the same on both engines: a
 * sequence would skip those of rolled-back transactions and need moving after a copy. */
export function createCampaign(
  db: Queryable,
  portalId: number,
  data: CampaignData,
  lastUpdated: number,
): Promise<number> {
  return db.tx(async (t) => {
    await t.lock(CAMPAIGN_IDS);
    const id = Number(await t.value(campaignQ.nextId, FIRST_CAMPAIGN_ID - 1));
    await t.run(campaignQ.insert, id, portalId, JSON.stringify(data), lastUpdated);
    return id;
  });
}

/** Appends one event and moves the campaign's `lastUpdatedTime`; returns the event's key. */
export async function appendEvent(db: Queryable, portalId: number, campaignId: number, e: NewEvent) {
  const id = randomUUID();
  const data = e.simulated ? { ...e.data, simulated: true } : (e.data ?? {});
  await db.run(
    campaignQ.event,
    id,
    portalId,
    campaignId,
    e.created,
    e.type,
    e.recipient.toLowerCase(),
    JSON.stringify(data),
  );
  await db.run(campaignQ.touch, e.created, campaignId, e.created);
  return { id, created: e.created };
}
