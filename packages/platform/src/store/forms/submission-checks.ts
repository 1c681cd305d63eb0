/** A submission's values checked against its form: every field on the form, the required ones
 * given, the email valid and not blocked, the consent the form asks for. Pure: the 400 names
 * every field that is wrong. */
import type { LegalConsent } from '@svc/protocol';
import { badRequest } from '../../domain/errors';
import type { Write } from '../contacts';
import { isEmail } from '../properties';
import { fieldValue } from '../spam-submissions';
import { type ConsentOptions, type Definition, type RecordedConsent, shapeOf } from './definition';

/** Problems in a submission, in the anchor's v3 `errors` style, each naming its field. */
interface SubmissionError {
  message: string;
  errorType:
    | 'REQUIRED_FIELD'
    | 'FIELD_NOT_IN_FORM_DEFINITION'
    | 'INVALID_EMAIL'
    | 'BLOCKED_EMAIL'
    | 'REQUIRED_CONSENT'
    | 'INVALID_CONSENT';
  in: string;
}

/** Field values as writes, or the 400 naming every field that is wrong. Empty optional values
 * are left out so that a blank input does not clear what the contact already has. `asked` is
 * the live definition: a value for a field whose property was deleted since the page loaded is
 * still accepted (kept with the submission, not written to the contact). Email is required when
 * the form asks for it. */
export function writesOf(
  def: Definition,
  asked: Definition,
  values: Record<string, string | string[]>,
  consentGiven?: LegalConsent,
): { writes: Write[]; consent?: RecordedConsent } {
  const joined = Object.entries(values).map(([name, v]) => ({ property: name, value: fieldValue(v) }));
  const given = new Map(joined.map((w) => [w.property, w.value]));
  const onForm = shapeOf(def).names;
  const { required, blocked } = shapeOf(asked);
  const errors: SubmissionError[] = [];
  for (const name of given.keys())
    if (!onForm.has(name))
      errors.push({
        message: `Field '${name}' is not on the form`,
        errorType: 'FIELD_NOT_IN_FORM_DEFINITION',
        in: `body.${name}`,
      });
  for (const name of required)
    if (!given.get(name))
      errors.push({
        message: `Required field '${name}' is missing`,
        errorType: 'REQUIRED_FIELD',
        in: `body.${name}`,
      });
  const email = given.get('email');
  if (email && !isEmail(email))
    errors.push({ message: `Email address ${email} is invalid`, errorType: 'INVALID_EMAIL', in: 'body.email' });
  else if (email && blocked.has(email.split('@')[1].toLowerCase()))
    errors.push({
      message: `Email address ${email} is blocked by the form`,
      errorType: 'BLOCKED_EMAIL',
      in: 'body.email',
    });
  const consent = consentOf(def.legalConsentOptions, consentGiven?.consent, errors);
  if (errors.length) throw badRequest(errors.map((e) => e.message).join('; '), { errors });
  return { writes: joined.filter((w) => w.value !== ''), consent };
}

/** The consent a submission gives, checked against what the form asks for: consent to process
 * when the form has a checkbox for it, every required subscription, and no subscription the form
 * does not offer. The texts recorded are the form's own, the ones the embed showed. */
function consentOf(
  o: ConsentOptions | undefined,
  given: LegalConsent['consent'] | undefined,
  errors: SubmissionError[],
): RecordedConsent | undefined {
  const at = 'body.legalConsentOptions';
  if (!o) return undefined;
  const boxes = o.communicationsCheckboxes ?? [];
  const chosen = new Map((given?.communications ?? []).map((c) => [c.subscriptionTypeId, c.value]));
  if (o.consentToProcessCheckboxLabel && given?.consentToProcess !== true)
    errors.push({
      message: 'Consent to process personal data is required by this form',
      errorType: 'REQUIRED_CONSENT',
      in: `${at}.consentToProcess`,
    });
  for (const b of boxes)
    if (b.required && chosen.get(b.subscriptionTypeId) !== true)
      errors.push({
        message: `Consent to subscription type ${b.subscriptionTypeId} ('${b.label}') is required by this form`,
        errorType: 'REQUIRED_CONSENT',
        in: `${at}.communications`,
      });
  for (const id of chosen.keys())
    if (!boxes.some((b) => b.subscriptionTypeId == id))
      errors.push({
        message: `Subscription type ${id} is not offered by this form`,
        errorType: 'INVALID_CONSENT',
        in: `${at}.communications`,
      });
  const join = (...texts: (string | undefined)[]) => texts.filter(Boolean).join('\n');
  return {
    consentToProcess: given?.consentToProcess === true,
    text: join(o.consentToProcessText, o.consentToProcessCheckboxLabel),
    communications: boxes.map((b) => ({
      subscriptionTypeId: b.subscriptionTypeId,
      value: chosen.get(b.subscriptionTypeId) === true,
      text: join(o.communicationConsentText, b.label),
    })),
  };
}
