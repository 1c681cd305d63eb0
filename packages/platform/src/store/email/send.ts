/** One send of a campaign's email to one address (a workflow's EMAIL step), recorded as the
 * legacy API's events, and the message kept for the mail catcher. */
import { preferenceLink } from '@svc/protocol/signed-token';
import { type Queryable, sql } from '../../db/engine';
import { renderEmail } from '../../domain/email-message';
import { outboxStore, type OutboxStore } from '../outbox';
import { appendEvent, type CampaignData, type EventType } from './campaigns';
import type { SubscriptionStore } from './subscriptions';

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

export function mailSender(
  now: () => number,
  mail: MailSettings,
  status: SubscriptionStore['status'],
  requireCampaign: (db: Queryable, portalId: number, id: number) => Promise<CampaignData>,
) {
  const outbox = mail.outbox ?? outboxStore();
  const q = {
    portalName: sql<[number], { name: string }>('SELECT name FROM portals WHERE id = ?'),
  };
  return {
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
  };
}
