/** A form submission as a whole: the form's store writes the contact and the conversion; then, in
 * the same write, the visitor's earlier page views start counting for the contact (attribution)
 * and the subscriptions ticked are recorded. The public route (handlers/forms.ts) and the release
 * of a spam submission from review (the inspector) both go through `submit`, so a released
 * submission is what it would have been: contact, lists, workflows, consent, attribution. */
import type { LegalConsent } from '@svc/protocol';
import type { Queryable } from '../db/engine';
import { atTime } from '../db/tx-clock';
import { notFound } from '../domain/errors';
import type { EmailStore } from '../store/email';
import type { FormStore, SubmissionContext } from '../store/forms';
import { type SpamRecord, spamSubmissions } from '../store/spam-submissions';
import type { VisitorLinks } from './visitor-links';

type Write = <T>(fn: (t: Queryable) => T) => Promise<Awaited<T>>;

/** What a release answers: the submission as listed, now released, and whether this call did it. */
export interface Released extends SpamRecord {
  released: NonNullable<SpamRecord['released']>;
  /** True when an earlier release had done it already (nothing was written this time). */
  alreadyReleased: boolean;
}

export function formSubmissions(
  forms: FormStore,
  visitors: VisitorLinks,
  subscriptions: EmailStore,
  write: Write,
  now: () => number,
) {
  async function submit(
    db: Queryable,
    portalId: number,
    guid: string,
    values: Record<string, string | string[]>,
    context: SubmissionContext,
    extra: { honeypot?: string; consent?: LegalConsent; replayOf?: string } = {},
  ) {
    const { conversionId, vid, redirect, ...saved } = await forms.submit(db, portalId, guid, values, context, extra);
    // In the same write as the submission: the visitor's earlier page views now count for the contact.
    if (context.svcutk && vid !== null) await visitors.link(db, portalId, context.svcutk, vid);
    // The subscriptions ticked, with their legal basis and the text shown; an address that left
    // all of the portal's email stays out (that cannot be undone through the API either).
    const ticked = 'consent' in saved ? saved.consent?.communications.filter((c) => c.value) : undefined;
    if (ticked?.length && saved.email && !(await subscriptions.status(db, portalId, saved.email)).unsubscribeFromPortal)
      await subscriptions.update(db, portalId, saved.email, {
        subscriptionStatuses: ticked.map((c) => ({
          id: c.subscriptionTypeId,
          subscribed: true,
          optState: 'OPT_IN',
          legalBasis: 'CONSENT_WITH_NOTICE',
          legalBasisExplanation: c.text,
        })),
      });
    return { conversionId, vid, redirect, spam: 'spam' in saved ? saved.spam : undefined };
  }

  /** "Not spam": the submission is replayed once, in one write, as it was sent: its values,
   * context and consent, its conversion id, and its time for the submission and the contact's
   * writes (db/tx-clock.ts). What follows from it (lists, workflows, subscriptions) happens now,
   * so a workflow's delays count from the release. Releasing it again writes nothing and answers
   * the first release. A submission the form no longer accepts (a field's property deleted, an
   * address the form now blocks) is refused with the form's 400 and stays spam. */
  async function release(portalId: number, guid: string, conversionId: string): Promise<Released> {
    return write(async (t) => {
      const claimed = await spamSubmissions.claim(t, portalId, guid, conversionId, now());
      if (!claimed) {
        const found = await spamSubmissions.one(t, portalId, guid, conversionId);
        if (!found?.released)
          throw notFound(
            `no spam submission ${conversionId.slice(0, 64)} of form ${guid.slice(0, 64)} in portal ${portalId}`,
          );
        return { ...found, released: found.released, alreadyReleased: true };
      }
      const { record, values, context, consent, releasedAt } = claimed;
      const { vid } = await submit(atTime(t, record.timestamp), portalId, guid, values, context, {
        consent,
        replayOf: conversionId,
      });
      await spamSubmissions.releasedTo(t, conversionId, vid);
      return { ...record, released: { at: releasedAt, vid }, alreadyReleased: false };
    });
  }

  /** A form's spam for review, newest first (spamSubmissions.page); 404 for a form the portal lacks. */
  async function spam(db: Queryable, portalId: number, guid: string, page: { before?: string; limit?: number } = {}) {
    await forms.get(db, portalId, guid);
    return spamSubmissions.page(db, portalId, guid, page);
  }

  return { submit, release, spam };
}

export type FormSubmissions = ReturnType<typeof formSubmissions>;
