/** The submission: `POST {forms_url}/uploads/form/v2/:portal_id/:form_guid`, urlencoded, with
 * `svc_context` = JSON `{svcutk, pageUrl, pageName, redirectUrl}` and a rendered form's evidence (path and shape from
 * @svc/protocol). A urlencoded POST is a CORS simple request (no preflight). Redirects are not
 * followed: a 302 is a success. */
import { formSubmitPath, SVC_CONTEXT, type SubmissionContext } from '@svc/protocol';
import { readUtk } from '@svc/tracker';
import { safeUrl } from './sanitize';
import type { SubmissionValue, SubmitOptions } from './types';

export interface Outcome {
  /** 0: the request failed (network, CORS, ad blocker). */
  status: number;
  ok: boolean;
  /** Where a 302 points, when the browser lets us read it. */
  location?: string;
  /** 400: the platform's `errors`, each naming its field in `in` (`body.<name>`). */
  errors?: { message: string; in?: string }[];
}

/** What a rendered form says of the person who sent it (evidence.ts): the platform's spam rule. */
export type Evidence = Pick<SubmissionContext, 'fillTimeMs' | 'interactions' | 'prefilled' | 'autofilled'>;

/** `keepalive` lets the request finish when the page navigates away (captured forms);
 * `evidence` is what a rendered form saw; `extra` parameters go after the values. */
export async function send(
  o: SubmitOptions & { formsUrl: string },
  values: SubmissionValue[],
  keepalive = false,
  evidence?: Evidence,
  extra: string[][] = [],
): Promise<Outcome> {
  const body = new URLSearchParams([...values.map((v) => [v.name, v.value]), ...extra]);
  const context: SubmissionContext = {
    svcutk: readUtk(),
    pageUrl: location.href,
    pageName: document.title,
    redirectUrl: safeUrl(o.redirectUrl, /^https?:$/),
    ...evidence,
  };
  body.append(SVC_CONTEXT, JSON.stringify(context));
  const url = o.formsUrl.replace(/\/+$/, '') + formSubmitPath(o.portalId, o.formId);
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      // As text: the header stays ours (a URLSearchParams body would add `;charset=UTF-8`).
      // eslint-disable-next-line @typescript-eslint/restrict-plus-operands -- `+` calls its toString, in the fewest bytes
      body: body + '',
      redirect: 'manual',
      credentials: 'omit',
      keepalive,
    });
  } catch {
    return { status: 0, ok: false };
  }
  // Browsers hide a cross-origin redirect behind an `opaqueredirect` response with status 0.
  const status = res.type == 'opaqueredirect' ? 302 : res.status;
  const out: Outcome = {
    status,
    ok: status >= 200 && status < 400,
    location: res.headers.get('location') || undefined,
  };
  if (status == 400)
    out.errors = await res.json().then(
      (b: { errors?: Outcome['errors'] } | null) => (Array.isArray(b?.errors) ? b.errors : undefined),
      () => undefined,
    );
  return out;
}
