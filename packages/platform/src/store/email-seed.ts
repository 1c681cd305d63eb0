/** A portal's starting email data: subscription types, and three sent campaigns whose events follow
 * the lifecycle of a send (PROCESSED → SENT → DELIVERED | BOUNCE → OPEN → CLICK) for a handful of
 * recipients, so the campaign and event routes have something to show. Nothing was sent: every
 * one of these events is marked `simulated: true`. */
import { type Queryable, sql } from '../db/engine';
import { appendEvent, createCampaign, type CampaignData, type NewEvent } from './email';

const TYPES = [
  {
    name: 'Marketing Information',
    description: 'Offers, promotions and news about our products and services',
    active: true,
  },
  { name: 'Weekly Newsletter', description: 'A weekly round-up of articles, guides and upcoming events', active: true },
  { name: 'Product Updates', description: 'Release notes and announcements of new features', active: true },
  // Inactive: still defined (addresses may have a status for it), but "subscribe to all" skips it.
  {
    name: 'Webinar Invitations',
    description: 'Invitations to live webinars (retired; webinars now go out with the newsletter)',
    active: false,
  },
];

/** How far one recipient's send got. */
type Outcome = 'delivered' | 'opened' | 'clicked' | 'bounced';

const BATCH = { appId: 113, appName: 'Batch' };
const AUTOMATED = { appId: 114, appName: 'Automated' };

interface SampleCampaign extends Pick<CampaignData, 'appId' | 'appName' | 'contentId' | 'name' | 'subject' | 'type'> {
  daysAgo: number;
  /** Where CLICK events lead. */
  link: string;
  /** The name of the subscription type it belongs to. */
  subscription: string;
  recipients: Record<string, Outcome>;
}

const CAMPAIGNS: SampleCampaign[] = [
  {
    ...BATCH,
    contentId: 311_698_603,
    name: 'Spring product launch',
    subject: 'Meet the new reporting dashboard',
    type: 'BATCH_EMAIL',
    daysAgo: 12,
    link: 'https://www.example.com/blog/new-dashboard',
    subscription: 'Product Updates',
    recipients: {
      'ada@example.com': 'clicked',
      'grace@example.org': 'opened',
      'alan@example.net': 'delivered',
      'margaret@example.com': 'clicked',
      'nobody@example.invalid': 'bounced',
    },
  },
  {
    ...BATCH,
    contentId: 311_698_871,
    name: 'Weekly Newsletter #42',
    subject: 'This week: five ways to clean up your contact lists',
    type: 'BATCH_EMAIL',
    daysAgo: 5,
    link: 'https://www.example.com/newsletter/42',
    subscription: 'Weekly Newsletter',
    recipients: {
      'ada@example.com': 'opened',
      'grace@example.org': 'clicked',
      'alan@example.net': 'opened',
      'linus@example.net': 'delivered',
    },
  },
  {
    ...AUTOMATED,
    contentId: 311_702_114,
    name: 'Welcome email',
    subject: 'Welcome aboard!',
    type: 'AUTOMATED_EMAIL',
    daysAgo: 2,
    link: 'https://www.example.com/getting-started',
    subscription: 'Marketing Information',
    recipients: {
      'linus@example.net': 'clicked',
      'barbara@example.org': 'delivered',
    },
  },
];

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const OPENED_BY = {
  deviceType: 'COMPUTER',
  userAgent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko)',
};

const q = {
  any: sql<[number]>('SELECT 1 FROM subscription_types WHERE portal_id = ?'),
  type: sql<[number, string, string, number], { id: number }>(
    'INSERT INTO subscription_types (portal_id, name, description, active) VALUES (?, ?, ?, ?) RETURNING id',
  ),
};

/** Creates the default subscription types and sample campaigns; does nothing if the portal already
 * has subscription types, so it is safe to call on every start. `db`: where it runs (the engine, or
 * a transaction's handle). */
export function seedEmailDefaults(db: Queryable, portalId: number, now: number): Promise<void> {
  return db.tx(async (t) => {
    if (await t.get(q.any, portalId)) return;
    const typeIds = new Map<string, number>();
    for (const type of TYPES)
      typeIds.set(
        type.name,
        Number((await t.get(q.type, portalId, type.name, type.description, type.active ? 1 : 0))!.id),
      );

    for (const { daysAgo, link, recipients, subscription, ...data } of CAMPAIGNS) {
      const sentAt = now - daysAgo * DAY;
      const addresses = Object.entries(recipients);
      const id = await createCampaign(
        t,
        portalId,
        {
          ...data,
          subscriptionTypeId: typeIds.get(subscription),
          numIncluded: addresses.length,
          numQueued: addresses.length,
          processingState: 'DONE',
          lastProcessingFinishedAt: sentAt + 5 * MINUTE,
        },
        sentAt,
      );
      for (const [i, [recipient, outcome]] of addresses.entries()) {
        const at = sentAt + i * 10_000;
        const add = (type: NewEvent['type'], created: number, extra: Record<string, unknown> = {}) =>
          appendEvent(t, portalId, id, { type, recipient, created, data: extra, simulated: true });
        await add('PROCESSED', at);
        // Later events point back at the SENT event, as in the legacy API.
        const sentBy = await add('SENT', at + MINUTE, { subject: data.subject, fromEmail: 'news@example.com' });
        if (outcome == 'bounced') {
          await add('BOUNCE', at + 2 * MINUTE, {
            sentBy,
            category: 'UNKNOWN_USER',
            status: '5.1.1',
            response: '550 5.1.1 mailbox does not exist',
          });
          continue;
        }
        await add('DELIVERED', at + 2 * MINUTE, { sentBy, response: '250 2.0.0 OK' });
        if (outcome == 'delivered') continue;
        await add('OPEN', at + 90 * MINUTE, { sentBy, ...OPENED_BY });
        if (outcome == 'clicked') await add('CLICK', at + 95 * MINUTE, { sentBy, url: link, ...OPENED_BY });
      }
    }
  });
}
