/** A form submission as the embed sends it and `{forms_url}` takes it: the path, and the
 * `svc_context` parameter that ties the new contact to the visitor. The catalog's route
 * (packages/api) uses this path and checks `svc_context` with a schema of this shape. */

const PREFIX = '/uploads/form/v2/';

/** `POST {forms_url}` + this path, urlencoded field values plus {@link SVC_CONTEXT}. */
export const FORM_SUBMIT_PATH = `${PREFIX}:portal_id/:form_guid` as const;

/** {@link FORM_SUBMIT_PATH} for one form, each id URL-encoded as one path segment. */
export const formSubmitPath = (portalId: string | number, formGuid: string): string =>
  PREFIX + [portalId, formGuid].map(encodeURIComponent).join('/');

/** The name of the parameter that carries the {@link SubmissionContext} as JSON. */
export const SVC_CONTEXT = 'svc_context';

/** `svc_context`: a JSON object, URL-encoded, every field optional. A field the platform cannot
 * use (a malformed token, an over-long URL) is ignored and named in the answer's
 * {@link IGNORED_CONTEXT_HEADER}: the submission itself is never refused for its context. */
export interface SubmissionContext {
  /** The visitor's utk (the `svcutk` cookie). Links the contact to the visitor's page views. */
  svcutk?: string;
  /** The visitor's address, when a server submits on their behalf. */
  ipAddress?: string;
  /** The page the form was on. */
  pageUrl?: string;
  /** That page's title. */
  pageName?: string;
  /** Where to send the browser after a successful submission (answered 302). */
  redirectUrl?: string;
  /** Milliseconds from the form being shown to its submission (the embed measures it). */
  fillTimeMs?: number;
  /** The embed's evidence of a person (its spam rule, packages/forms/README.md): how many trusted
   * key presses, pointer presses and inputs the form saw before it was sent. Trusted events come
   * from the person's own keyboard, mouse, finger or assistive technology, never from a script. */
  interactions?: number;
  /** How many fields the embed filled in itself (known visitor, values from the page). */
  prefilled?: number;
  /** How many fields the browser's own autofill filled in. */
  autofilled?: number;
}

/** The legacy name of {@link SVC_CONTEXT}, which site code written for the vendor's products and
 * its clients still post: read as `svc_context` when that is absent. */
export const LEGACY_CONTEXT = 'hs_context';

/** The answer's header naming the `svc_context` fields that were ignored, comma-separated (or
 * `svc_context` itself when it was not a JSON object). Absent when everything was used. */
export const IGNORED_CONTEXT_HEADER = 'X-Svc-Ignored-Context';

/** The honeypot: a text input people never see or reach, which the embed adds to every form
 * and sends with the values. Bots fill every input; a submission with it non-empty is spam. A
 * dash, which no property name has: it can never be one of a form's fields. */
export const HONEYPOT = 'svc-hp';

/** The parameter that carries a submission's {@link LegalConsent} as JSON. */
export const LEGAL_CONSENT = 'legalConsentOptions';

/** What the visitor agreed to, in the anchor's v3 shape: consent to process their data, and one
 * entry per subscription checkbox shown, each with the text it was shown with. */
export interface LegalConsent {
  consent: {
    consentToProcess?: boolean;
    /** The consent-to-process text shown. */
    text?: string;
    communications?: { value: boolean; subscriptionTypeId: number; text?: string }[];
  };
}
