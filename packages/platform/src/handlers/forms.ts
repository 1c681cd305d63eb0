/** §4.6 Forms: definitions on {base_url}, submissions (public, CORS) on {forms_url}. */
import { schemas } from '@svc/api';
import { SVC_CONTEXT } from '@svc/protocol';
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

/** `url?submissionGuid=…` (or `&…` when it has a query), before any `#fragment`. */
function withSubmissionGuid(url: string, guid: string) {
  const hash = url.indexOf('#');
  const [base, fragment] = hash < 0 ? [url, ''] : [url.slice(0, hash), url.slice(hash)];
  return `${base}${base.includes('?') ? '&' : '?'}submissionGuid=${guid}${fragment}`;
}

export function formHandlers({ forms, visitors }: Services): Handlers {
  return {
    'forms.list': ({ db, portalId }) => forms.list(db, portalId),
    'forms.get': ({ db, portalId, params }) => forms.get(db, portalId, params.form_guid),
    'forms.create': ({ db, portalId, body }) => forms.create(db, portalId, body),
    'forms.update': ({ db, portalId, params, body }) => forms.update(db, portalId, params.form_guid, body),
    'forms.delete': ({ db, portalId, params }) => forms.remove(db, portalId, params.form_guid),
    'forms.getFields': ({ db, portalId, params }) => forms.fields(db, portalId, params.form_guid),
    'forms.getField': ({ db, portalId, params }) => forms.field(db, portalId, params.form_guid, params.field_name),
    'forms.submit': async ({ db, params, body }) => {
      const { [SVC_CONTEXT]: raw, ...values } = body;
      const context = parseContext(raw);
      const { conversionId, vid, redirect } = await forms.submit(db, params.portal_id, params.form_guid, values, context);
      // In the same write as the submission: the visitor's earlier page views now count for the contact.
      if (context.svcutk && vid !== null) await visitors.link(db, params.portal_id, context.svcutk, vid);
      return redirect ? new Reply(302, undefined, { location: withSubmissionGuid(redirect, conversionId) }) : new Reply(204);
    },
  };
}
