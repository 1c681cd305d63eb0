/** `client.forms.submitFields(...)`: a form submission to `{forms_url}` as an embed sends it,
 * with the visitor's `svcutk` in `svc_context` so the new contact is linked to their visits. */
import { LEGAL_CONSENT, SVC_CONTEXT, type LegalConsent, type SubmissionContext } from '@svc/protocol';
import type { CallOptions } from './call-options';
import type { Api, Redirect } from './types';

export interface FormSubmission {
  /** Field values by name (`email` is required by the platform); arrays for multi-value fields. */
  fields: Record<string, string | number | boolean | readonly string[]>;
  /** The visitor's `svcutk` cookie; the platform refuses one that is not a utk (32 lower-case hex). */
  utk?: string;
  pageUrl?: string;
  pageName?: string;
  /** The visitor's IP address, when the submission is relayed by a server. */
  ipAddress?: string;
  /** Where the platform should send the visitor after the submission (overrides the form's). */
  redirectUrl?: string;
  /** Consent given, for forms with `legalConsentOptions` (the platform refuses a submission
   * without the consent to process a form requires). */
  legalConsent?: LegalConsent;
}

export interface FormSubmitted {
  /** The redirect the platform answered with (with `?submissionGuid=`), if any. */
  redirectUrl?: string;
}

export function formSubmitter(api: Api) {
  return async (
    portalId: string | number,
    formGuid: string,
    s: FormSubmission,
    options?: CallOptions,
  ): Promise<FormSubmitted> => {
    const body: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(s.fields))
      body[name] = Array.isArray(value) ? [...(value as readonly string[])] : String(value);
    const context: SubmissionContext = {
      svcutk: s.utk,
      pageUrl: s.pageUrl,
      pageName: s.pageName,
      ipAddress: s.ipAddress,
      redirectUrl: s.redirectUrl,
    };
    if (Object.values(context).some((v) => v !== undefined)) body[SVC_CONTEXT] = JSON.stringify(context);
    if (s.legalConsent) body[LEGAL_CONSENT] = JSON.stringify(s.legalConsent);
    const answer: Redirect | undefined = await api.forms.submit(portalId, formGuid, body, options);
    return answer?.location ? { redirectUrl: answer.location } : {};
  };
}
