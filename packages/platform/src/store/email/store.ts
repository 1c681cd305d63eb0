/** §4.7 Email: subscription types, subscription status per address (subscriptions.ts), campaigns
 * and their events (campaigns.ts writes them, campaign-reads.ts reads them), and the sends of
 * workflows' EMAIL steps (send.ts), as one store. */
import type { Engine } from '../../db/engine';
import { campaignReads } from './campaign-reads';
import { mailSender, type MailSettings } from './send';
import { subscriptionStore } from './subscriptions';

/** Every method takes where it runs (`db`: the engine, or a request's transaction) first. */
export function emailStore(engine: Engine, now: () => number, mail: MailSettings = {}) {
  const subscriptions = subscriptionStore(engine, now);
  const { requireCampaign, ...campaigns } = campaignReads(engine, now);
  return {
    ...subscriptions,
    ...campaigns,
    ...mailSender(now, mail, subscriptions.status, requireCampaign),
  };
}

export type EmailStore = ReturnType<typeof emailStore>;
