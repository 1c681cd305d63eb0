/** A submission's `svc_context` (or `hs_context`, its legacy name, when it is absent), read field
 * by field: a field that fails its check (a malformed or over-long `svcutk`/`hutk`, `pageUrl`,
 * `pageName`, `redirectUrl`, a number that is not one) is left out and named, and the submission
 * goes on without it. The visitor's answers never cost them a cookie or a URL they never saw. */
import { schemas } from '@svc/api';
import { LEGACY_CONTEXT, SVC_CONTEXT } from '@svc/protocol';
import type { SubmissionContext } from '../store/forms';

const FIELDS = schemas.submissionContext.shape;
type Field = keyof typeof FIELDS;

export interface ReadContext {
  context: SubmissionContext;
  /** The fields left out, by name (`svc_context` itself when it was not a JSON object). */
  ignored: string[];
}

/** `body`'s context, and the names of the parameters that carried it (not form fields). */
export function readContext(body: Record<string, string | string[]>): ReadContext & { names: string[] } {
  const names = [SVC_CONTEXT, LEGACY_CONTEXT].filter((n) => body[n] !== undefined);
  return { ...parse(body[SVC_CONTEXT] ?? body[LEGACY_CONTEXT]), names };
}

function parse(raw: string | string[] | undefined): ReadContext {
  if (raw === undefined) return { context: {}, ignored: [] };
  let json: unknown;
  try {
    json = typeof raw == 'string' ? JSON.parse(raw) : undefined;
  } catch {
    // not JSON: ignored below
  }
  if (!json || typeof json != 'object' || Array.isArray(json)) return { context: {}, ignored: [SVC_CONTEXT] };
  const context: Record<string, unknown> = {};
  const ignored: string[] = [];
  for (const [name, value] of Object.entries(json)) {
    // Fields the platform does not read are not its business (clients send more: `hsVersion`…).
    if (!Object.hasOwn(FIELDS, name)) continue;
    const checked = FIELDS[name as Field].safeParse(value);
    if (checked.success) context[name] = checked.data;
    else ignored.push(name);
  }
  // `hutk` is another name of `svcutk` (clients written for the real API send it).
  const { hutk, ...rest } = context as SubmissionContext & { hutk?: string };
  return { context: { ...rest, svcutk: rest.svcutk ?? hutk }, ignored };
}
