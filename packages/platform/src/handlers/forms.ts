/** §4.6 Forms: definitions on {base_url}, submissions (public, CORS) on {forms_url}. */
import { schemas } from '@svc/api';
import { HONEYPOT, IGNORED_CONTEXT_HEADER, LEGAL_CONSENT, type LegalConsent } from '@svc/protocol';
import { badRequest } from '../domain/errors';
import { Reply, type Handlers } from './handler';
import type { Services } from '../services/wiring';
import { readContext } from './submission-context';

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
    throw badRequest(
      json === undefined
        ? `body.${LEGAL_CONSENT}: must be a JSON object`
        : `${[`body.${LEGAL_CONSENT}`, ...issue.path.map(String)].join('.')}: ${issue.message}`,
    );
  }
  return parsed.data;
}

/** `url?submissionGuid=…` (or `&…` when it has a query), before any `#fragment`. */
function withSubmissionGuid(url: string, guid: string) {
  const hash = url.indexOf('#');
  const [base, fragment] = hash < 0 ? [url, ''] : [url.slice(0, hash), url.slice(hash)];
  return `${base}${base.includes('?') ? '&' : '?'}submissionGuid=${guid}${fragment}`;
}

/** Where a submission's ignored context is told: the log, by field name only (a utk is an
 * identity, a URL may carry one). */
export interface SubmissionLog {
  warn(obj: object, msg: string): void;
}

export function formHandlers({ forms, submissions }: Services, log?: SubmissionLog): Handlers {
  return {
    'forms.list': ({ db, portalId }) => forms.list(db, portalId),
    'forms.get': ({ db, portalId, params }) => forms.get(db, portalId, params.form_guid),
    'forms.create': ({ db, portalId, body }) => forms.create(db, portalId, body),
    'forms.update': ({ db, portalId, params, body }) => forms.update(db, portalId, params.form_guid, body),
    'forms.delete': ({ db, portalId, params }) => forms.remove(db, portalId, params.form_guid),
    'forms.getFields': ({ db, portalId, params }) => forms.fields(db, portalId, params.form_guid),
    'forms.getField': ({ db, portalId, params }) => forms.field(db, portalId, params.form_guid, params.field_name),
    'forms.submit': async ({ db, params, body }) => {
      const { context, ignored, names } = readContext(body);
      const { [HONEYPOT]: trap, [LEGAL_CONSENT]: consentRaw, ...rest } = body;
      // The context's parameters are not fields of the form.
      const values = names.length
        ? Object.fromEntries(Object.entries(rest).filter(([name]) => !names.includes(name)))
        : rest;
      const honeypot = typeof trap == 'string' ? trap : trap?.join('');
      const consent = parseConsent(consentRaw);
      const { conversionId, redirect } = await submissions.submit(
        db,
        params.portal_id,
        params.form_guid,
        values,
        context,
        { honeypot, consent },
      );
      // Said in a header: the real API's answers (204, or 302 with Location) have no body to say it in.
      // Exposed, so that an embed's script may read it across origins.
      const headers: Record<string, string> = ignored.length
        ? { [IGNORED_CONTEXT_HEADER]: ignored.join(', '), 'Access-Control-Expose-Headers': IGNORED_CONTEXT_HEADER }
        : {};
      if (ignored.length)
        log?.warn(
          { portalId: params.portal_id, formGuid: params.form_guid, conversionId, ignored },
          'form submission: svc_context fields ignored',
        );
      return redirect
        ? new Reply(302, undefined, { ...headers, location: withSubmissionGuid(redirect, conversionId) })
        : new Reply(204, undefined, headers);
    },
  };
}
