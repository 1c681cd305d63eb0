/** §4.7 Email: subscription types, subscription status per address, campaigns and their events.
 * Status is keyed by the lower-cased address, so it works with or without a contact. Campaign
 * counters are computed from the events on every read, so they cannot drift from them. */
import { randomUUID } from 'node:crypto';
import { schemas } from '@svc/api';
import type { z } from 'zod';
import { preferenceLink } from '@svc/protocol/signed-token';
import { type Engine, type Param, type Queryable, sql } from '../db/engine';
import { renderEmail } from '../domain/email-message';
import { badRequest, notFound } from '../domain/errors';
import { outboxStore, type OutboxStore } from './outbox';

type EventType = (typeof schemas.EMAIL_EVENT_TYPES)[number];
type OptState = 'OPT_IN' | 'OPT_OUT' | 'NOT_OPTED';
type LegalBasis = (typeof schemas.LEGAL_BASES)[number];
type StatusUpdate = z.output<typeof schemas.statusUpdate>;
type EmailEvent = z.input<typeof schemas.emailEvent>;

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

/** Where the emails' preference links lead: the companion's preference centre (its page, e.g.
 * `https://www.example.com/svc/preferences`), with tokens signed by the companion's link secret
 * (`@svc/protocol/signed-token`), valid for `ttlMs`. */
export interface PreferenceLinks {
  url: string;
  secret: string;
  ttlMs: number;
}

export interface MailSettings {
  /** Where sent emails are kept (the mail catcher); default: the newest 500 per portal. */
  outbox?: OutboxStore;
  /** Without them, emails carry no preference link. */
  preferenceLinks?: PreferenceLinks;
}

/** Who an email goes to and why: a workflow's EMAIL step for a contact. */
export interface SendOrigin {
  workflowId: number;
  vid: number;
  firstname?: string;
}

/** Why a send was dropped, as the legacy API's DROPPED events say. */
type DropReason = 'PREVIOUSLY_UNSUBSCRIBED_PORTAL' | 'PREVIOUSLY_UNSUBSCRIBED_MESSAGE' | 'PREVIOUSLY_BOUNCED';

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

export interface EventFilter {
  limit: number;
  offset?: string;
  eventType?: EventType;
  recipient?: string;
  startTimestamp?: number;
  endTimestamp?: number;
}

/** Ids look like the legacy API's; they are global (the table's key), so each follows the largest. */
const FIRST_CAMPAIGN_ID = 10_329_957;
/** Held while a campaign's id is chosen and until its row is committed (see createCampaign). */
const CAMPAIGN_IDS = 'campaign ids';

/** The `type` of the campaign that collects a portal's subscription changes made through the API. */
const STATUS_CHANGES = 'SUBSCRIPTION_CHANGES';

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

/** Opaque paging offsets: base64url of the last item's sort key. */
const encodeOffset = (key: number[]) => Buffer.from(key.join('.')).toString('base64url');
function decodeOffset(offset: string | undefined, parts: number): number[] | undefined {
  if (!offset) return undefined;
  const key = Buffer.from(offset, 'base64url').toString().split('.');
  if (key.length != parts || !key.every((k) => /^\d{1,15}$/.test(k)))
    throw badRequest('query.offset: not an offset from a previous answer');
  return key.map(Number);
}

interface TypeRow {
  id: number;
  name: string;
  description: string;
  active: number;
  category: string;
}
interface StatusRow {
  type_id: number;
  subscribed: number;
  opt_state: OptState;
  legal_basis: LegalBasis | null;
  legal_basis_explanation: string | null;
  updated_at: number;
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
export function emailStore(engine: Engine, now: () => number, mail: MailSettings = {}) {
  const { jsonText, jsonNumber } = engine.dialect;
  const outbox = mail.outbox ?? outboxStore();
  const q = {
    portalName: sql<[number], { name: string }>('SELECT name FROM portals WHERE id = ?'),
    byName: sql<[number, string, string], { id: number }>(
      `SELECT id FROM campaigns WHERE portal_id = ? AND ${jsonText('data', '$.name')} = ? AND ${jsonText('data', '$.type')} = ? ORDER BY id LIMIT 1`,
    ),
    types: sql<[number], TypeRow>(
      'SELECT id, name, description, active, category FROM subscription_types WHERE portal_id = ? ORDER BY id',
    ),
    statuses: sql<[number, string], StatusRow>(
      `SELECT type_id, subscribed, opt_state, legal_basis, legal_basis_explanation, updated_at
       FROM subscription_statuses WHERE portal_id = ? AND email = ? ORDER BY type_id`,
    ),
    setStatus: sql<[number, string, number, number, OptState, string | null, string | null, number]>(
      `INSERT INTO subscription_statuses (portal_id, email, type_id, subscribed, opt_state, legal_basis, legal_basis_explanation, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (portal_id, email, type_id) DO UPDATE SET subscribed = excluded.subscribed, opt_state = excluded.opt_state,
         legal_basis = coalesce(excluded.legal_basis, subscription_statuses.legal_basis),
         legal_basis_explanation = coalesce(excluded.legal_basis_explanation, subscription_statuses.legal_basis_explanation),
         updated_at = excluded.updated_at`,
    ),
    unsubscribedAll: sql<[number, string], { at: number }>(
      'SELECT at FROM portal_unsubscribes WHERE portal_id = ? AND email = ?',
    ),
    unsubscribeAll: sql<[number, string, number]>(
      'INSERT INTO portal_unsubscribes (portal_id, email, at) VALUES (?, ?, ?)',
    ),
    deliveryMarks: sql<[number, string], { type: EventType }>(
      `SELECT type FROM email_events WHERE portal_id = ? AND recipient = ? AND type IN ('BOUNCE', 'UNBOUNCE', 'SPAMREPORT')
       ORDER BY created, seq`,
    ),
    campaign: sql<[number, number], { data: string }>('SELECT data FROM campaigns WHERE portal_id = ? AND id = ?'),
    campaignPage: sql<[number, number, number], { id: number; data: string; last_updated: number }>(
      'SELECT id, data, last_updated FROM campaigns WHERE portal_id = ? AND id > ? ORDER BY id LIMIT ?',
    ),
    statusCampaign: sql<[number, string], { id: number }>(
      `SELECT id FROM campaigns WHERE portal_id = ? AND ${jsonText('data', '$.type')} = ?`,
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
    return JSON.parse(row.data);
  }

  /** The portal's "Subscription changes" campaign, created on the first change: once, even when
   * two processes make a portal's first change at once (looked for again under the lock). */
  async function statusCampaign(db: Queryable, portalId: number, t: number) {
    const find = async (on: Queryable) => (await on.get(q.statusCampaign, portalId, STATUS_CHANGES))?.id;
    const create = (on: Queryable) =>
      createCampaign(
        on,
        portalId,
        {
          appId: 0,
          appName: 'Subscriptions',
          contentId: 0,
          name: 'Subscription changes',
          subject: '',
          type: STATUS_CHANGES,
          numIncluded: 0,
          numQueued: 0,
          processingState: 'DONE',
          lastProcessingFinishedAt: null,
        },
        t,
      );
    return (
      (await find(db)) ??
      db.tx(async (tx) => {
        await tx.lock(CAMPAIGN_IDS);
        return (await find(tx)) ?? create(tx);
      })
    );
  }

  async function status(db: Queryable, portalId: number, email: string) {
    const address = email.toLowerCase();
    const rows = await db.all(q.statuses, portalId, address);
    const unsubscribeFromPortal = !!(await db.get(q.unsubscribedAll, portalId, address));
    const optedOut = new Set(rows.filter((r) => !r.subscribed).map((r) => r.type_id));
    const active = (await db.all(q.types, portalId)).filter((t) => t.active);
    // "Subscribed" until opted out of everything: from the portal, or from every active type.
    const subscribed = !unsubscribeFromPortal && !(active.length && active.every((t) => optedOut.has(t.id)));
    const marks = (await db.all(q.deliveryMarks, portalId, address)).map((m) => m.type);
    return {
      subscribed,
      markedAsSpam: marks.includes('SPAMREPORT'),
      unsubscribeFromPortal,
      portalId,
      bounced: marks.filter((m) => m != 'SPAMREPORT').at(-1) == 'BOUNCE',
      email: address,
      status: subscribed ? ('subscribed' as const) : ('unsubscribed' as const),
      subscriptionStatuses: rows.map((r) => ({
        id: r.type_id,
        subscribed: !!r.subscribed,
        updatedAt: r.updated_at,
        optState: r.opt_state,
        legalBasis: r.legal_basis,
        legalBasisExplanation: r.legal_basis_explanation,
      })),
    };
  }

  return {
    definitions: async (db: Queryable, portalId: number) =>
      (await db.all(q.types, portalId)).map((t) => ({
        id: t.id,
        portalId,
        name: t.name,
        description: t.description,
        active: !!t.active,
        internal: false,
        category: t.category,
        channel: 'EMAIL',
      })),

    status,

    /** Applies `{subscribed}` to every active type (or `unsubscribeFromAll` to every type), then the
     * per-type entries; records one STATUSCHANGE event when anything changed. */
    update(db: Queryable, portalId: number, email: string, body: StatusUpdate) {
      return db.tx(async (tx) => {
        const address = email.toLowerCase();
        const t = now();
        const types = await tx.all(q.types, portalId);
        const alreadyOut = !!(await tx.get(q.unsubscribedAll, portalId, address));
        const unknown = body.subscriptionStatuses?.find((s) => !types.some((type) => type.id == s.id));
        if (unknown) throw badRequest(`subscription type ${unknown.id} does not exist in this portal`);
        const subscribing =
          body.subscribed === true ||
          body.unsubscribeFromAll === false ||
          !!body.subscriptionStatuses?.some((s) => s.subscribed);
        if (alreadyOut && subscribing)
          throw badRequest(
            `${address} has unsubscribed from all email of this portal; that cannot be undone through the API`,
          );
        if (body.unsubscribeFromAll && subscribing)
          throw badRequest('unsubscribeFromAll cannot be combined with subscribing');

        const leavingPortal = !!body.unsubscribeFromAll && !alreadyOut;
        const changes = new Map<
          number,
          { subscribed: boolean; optState?: OptState; legalBasis?: LegalBasis; legalBasisExplanation?: string }
        >();
        if (leavingPortal) for (const type of types) changes.set(type.id, { subscribed: false });
        else if (body.subscribed !== undefined)
          for (const type of types.filter((x) => x.active)) changes.set(type.id, { subscribed: body.subscribed });
        for (const s of body.subscriptionStatuses ?? []) changes.set(s.id, s);
        if (!changes.size && !leavingPortal) return;

        if (leavingPortal) await tx.run(q.unsubscribeAll, portalId, address, t);
        const subscriptions = [];
        for (const [id, c] of changes) {
          const legalBasis = c.legalBasis ?? body.portalSubscriptionLegalBasis ?? null;
          const explanation = c.legalBasisExplanation ?? body.portalSubscriptionLegalBasisExplanation ?? null;
          await tx.run(
            q.setStatus,
            portalId,
            address,
            id,
            c.subscribed ? 1 : 0,
            c.optState ?? (c.subscribed ? 'OPT_IN' : 'OPT_OUT'),
            legalBasis,
            explanation,
            t,
          );
          subscriptions.push({
            id,
            status: c.subscribed ? 'SUBSCRIBED' : 'UNSUBSCRIBED',
            ...(legalBasis ? { legalBasis, legalBasisExplanation: explanation } : {}),
          });
        }
        await appendEvent(tx, portalId, await statusCampaign(tx, portalId, t), {
          type: 'STATUSCHANGE',
          recipient: address,
          created: t,
          data: {
            source: 'SOURCE_API',
            subscriptions,
            portalSubscriptionStatus: alreadyOut || leavingPortal ? 'UNSUBSCRIBED' : 'SUBSCRIBED',
          },
        });
      });
    },

    /** The campaign an email step names, by campaign id or content id (the newest with it). */
    async findCampaign(db: Queryable, portalId: number, by: { campaignId?: number; contentId?: number }) {
      const id =
        by.campaignId ??
        (by.contentId === undefined ? undefined : (await db.get(q.byContent, portalId, by.contentId))?.id);
      const row = id === undefined ? undefined : await db.get(q.campaign, portalId, id);
      if (!row) return undefined;
      const data: CampaignData = JSON.parse(row.data);
      return { id: id!, contentId: data.contentId, name: data.name };
    },

    /** One send of a campaign's email to one address (a workflow's EMAIL step), recorded as the
     * legacy API's events: PROCESSED, then SENT and DELIVERED, or DROPPED with the reason when
     * the address unsubscribed (from the portal, or from the email's subscription type) or
     * bounced. There is no mail server: SENT is the message as rendered, kept for the inspector's
     * mail view (store/outbox.ts) in the same transaction, and DELIVERED is simulated (marked
     * `simulated: true`: no recipient's server ever answered); a dropped send leaves no message.
     * `origin`: the workflow and contact it is for (named and greeted). */
    async send(
      db: Queryable,
      portalId: number,
      campaignId: number,
      recipient: string,
      origin?: SendOrigin,
    ): Promise<{ sent: true } | { sent: false; dropReason: DropReason }> {
      const campaign = await requireCampaign(db, portalId, campaignId);
      const current = await status(db, portalId, recipient);
      const typeOut =
        campaign.subscriptionTypeId !== undefined &&
        current.subscriptionStatuses.some((s) => s.id == campaign.subscriptionTypeId && !s.subscribed);
      const dropReason: DropReason | undefined =
        current.unsubscribeFromPortal || !current.subscribed
          ? 'PREVIOUSLY_UNSUBSCRIBED_PORTAL'
          : typeOut
            ? 'PREVIOUSLY_UNSUBSCRIBED_MESSAGE'
            : current.bounced
              ? 'PREVIOUSLY_BOUNCED'
              : undefined;
      const t = now();
      const add = (type: EventType, data?: Record<string, unknown>, simulated?: true) =>
        appendEvent(db, portalId, campaignId, { type, recipient, created: t, data, simulated });
      await add('PROCESSED');
      if (dropReason) {
        await add('DROPPED', { dropReason, dropMessage: `not sent: ${dropReason.toLowerCase().replaceAll('_', ' ')}` });
        return { sent: false, dropReason };
      }
      const sentBy = await add('SENT', { subject: campaign.subject });
      await add('DELIVERED', { sentBy, response: '250 2.0.0 OK' }, true);
      // The message as sent, in the same transaction as its events: the mail catcher's.
      const links = mail.preferenceLinks;
      const message = renderEmail({
        portalName: (await db.get(q.portalName, portalId))?.name ?? `portal ${portalId}`,
        fromEmail: campaign.fromEmail ?? 'no-reply@example.invalid',
        to: recipient,
        firstname: origin?.firstname,
        campaign,
        preferencesUrl: links && preferenceLink(links.url, links.secret, recipient, t + links.ttlMs),
      });
      await outbox.add(db, portalId, {
        ...message,
        campaignId,
        workflowId: origin?.workflowId ?? null,
        vid: origin?.vid ?? null,
        preferenceLink: !!links,
        sentAt: t,
      });
      return { sent: true };
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
          const data: CampaignData = JSON.parse(r.data);
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
          const campaign: CampaignData = JSON.parse(r.campaign);
          return {
            id: r.id,
            created: r.created,
            type: r.type,
            recipient: r.recipient,
            portalId,
            appId: campaign.appId,
            appName: campaign.appName,
            emailCampaignId: r.campaign_id,
            ...JSON.parse(r.data),
          };
        }),
        hasMore: rows.length > f.limit,
        offset: last ? encodeOffset([last.created, last.seq]) : (f.offset ?? ''),
      };
    },
  };
}

export type EmailStore = ReturnType<typeof emailStore>;
