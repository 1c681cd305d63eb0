/** §4.6 Forms: definitions on {base_url}, submissions (public, CORS) on {forms_url}. */
import { schemas } from '@svc/api';
import { HONEYPOT, LEGAL_CONSENT, SVC_CONTEXT, type LegalConsent } from '@svc/protocol';
import { badRequest } from '../domain/errors';
import { Reply, type Handlers } from './handler';
import type { Services } from '../services';
import type { SubmissionContext } from '../store/forms';

/** `svc_context` is URL-encoded JSON; anything else is the caller's mistake, named as such. */
function parseContext(raw: string | string[] | undefined): SubmissionContext {
  if (raw === undefined) return {};
  let json: unknown;
  try {
    json = typeof raw == 'string' ? JSON.parse(raw) : undefined;
  } catch {
    // falls through to the 400 below
  }
  const parsed = schemas.submissionContext.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = [`body.${SVC_CONTEXT}`, ...issue.path.map(String)].join('.');
    throw badRequest(json === undefined ? `body.${SVC_CONTEXT}: must be a JSON object` : `${where}: ${issue.message}`);
  }
  // `hutk` is another name of `svcutk` (clients written for the real API send it).
  const { hutk, ...context } = parsed.data;
  return { ...context, svcutk: context.svcutk ?? hutk };
}

/** `legalConsentOptions` is URL-encoded JSON of @svc/protocol's LegalConsent shape. */
function parseConsent(raw: string | string[] | undefined): LegalConsent | undefined {
  if (raw === undefined) return undefined;
  let json: unknown;
  try {
    json = typeof raw == 'string' ? JSON.parse(raw) : undefined;
  } catch {
    // falls through to the 400 below
  }
  const parsed = schemas.legalConsent.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw badRequest(json === undefined ? `body.${LEGAL_CONSENT}: must be a JSON object` : `${[`body.${LEGAL_CONSENT}`, ...issue.path.map(String)].join('.')}: ${issue.message}`);
  }
  return parsed.data;
}

/** `url?submissionGuid=…` (or `&…` when it has a query), before any `#fragment`. */
function withSubmissionGuid(url: string, guid: string) {
  const hash = url.indexOf('#');
  const [base, fragment] = hash < 0 ? [url, ''] : [url.slice(0, hash), url.slice(hash)];
  return `${base}${base.includes('?') ? '&' : '?'}submissionGuid=${guid}${fragment}`;
}

export function formHandlers({ forms, visitors, email: subscriptions }: Services): Handlers {
  return {
    'forms.list': ({ db, portalId }) => forms.list(db, portalId),
    'forms.get': ({ db, portalId, params }) => forms.get(db, portalId, params.form_guid),
    'forms.create': ({ db, portalId, body }) => forms.create(db, portalId, body),
    'forms.update': ({ db, portalId, params, body }) => forms.update(db, portalId, params.form_guid, body),
    'forms.delete': ({ db, portalId, params }) => forms.remove(db, portalId, params.form_guid),
    'forms.getFields': ({ db, portalId, params }) => forms.fields(db, portalId, params.form_guid),
    'forms.getField': ({ db, portalId, params }) => forms.field(db, portalId, params.form_guid, params.field_name),
    'forms.submit': async ({ db, params, body }) => {
      const { [SVC_CONTEXT]: raw, [HONEYPOT]: trap, [LEGAL_CONSENT]: consentRaw, ...values } = body;
      const context = parseContext(raw);
      const honeypot = typeof trap == 'string' ? trap : trap?.join('');
      const consent = parseConsent(consentRaw);
      const { conversionId, vid, redirect, ...saved } = await forms.submit(db, params.portal_id, params.form_guid, values, context, { honeypot, consent });
      // In the same write as the submission: the visitor's earlier page views now count for the contact.
      if (context.svcutk && vid !== null) await visitors.link(db, params.portal_id, context.svcutk, vid);
      // The subscriptions ticked, with their legal basis and the text shown; an address that left
      // all of the portal's email stays out (that cannot be undone through the API either).
      const ticked = 'consent' in saved ? saved.consent?.communications.filter((c) => c.value) : undefined;
      if (ticked?.length && saved.email && !(await subscriptions.status(db, params.portal_id, saved.email)).unsubscribeFromPortal)
        await subscriptions.update(db, params.portal_id, saved.email, {
          subscriptionStatuses: ticked.map((c) => ({ id: c.subscriptionTypeId, subscribed: true, optState: 'OPT_IN', legalBasis: 'CONSENT_WITH_NOTICE', legalBasisExplanation: c.text })),
        });
      return redirect ? new Reply(302, undefined, { location: withSubmissionGuid(redirect, conversionId) }) : new Reply(204);
    },
  };
}
