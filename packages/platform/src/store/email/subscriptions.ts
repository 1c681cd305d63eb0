/** Email subscriptions (§4.7): the portal's subscription types and each address's status,
 * keyed by the lower-cased address so that it works with or without a contact; a change through
 * the API is recorded as a STATUSCHANGE event of the portal's "Subscription changes" campaign. */
import { schemas } from '@svc/api';
import type { z } from 'zod';
import { type Engine, type Queryable, sql } from '../../db/engine';
import { badRequest } from '../../domain/errors';
import { appendEvent, CAMPAIGN_IDS, createCampaign, type EventType } from './campaigns';

type OptState = 'OPT_IN' | 'OPT_OUT' | 'NOT_OPTED';
type LegalBasis = (typeof schemas.LEGAL_BASES)[number];
type StatusUpdate = z.output<typeof schemas.statusUpdate>;

/** The `type` of the campaign that collects a portal's subscription changes made through the API. */
const STATUS_CHANGES = 'SUBSCRIPTION_CHANGES';

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

/** Every method takes where it runs (`db`: the engine, or a request's transaction) first. */
export function subscriptionStore(engine: Engine, now: () => number) {
  const { jsonText } = engine.dialect;
  const q = {
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
    statusCampaign: sql<[number, string], { id: number }>(
      `SELECT id FROM campaigns WHERE portal_id = ? AND ${jsonText('data', '$.type')} = ?`,
    ),
  };

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
  };
}

export type SubscriptionStore = ReturnType<typeof subscriptionStore>;
