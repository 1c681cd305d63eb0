/** Texts shown to visitors, in English, with per-locale overrides from `translations`. */
import type { Messages } from './types';

export const EN: Messages = {
  required: 'Please complete this required field.',
  invalidEmail: 'Please enter a valid email address.',
  blockedEmail: 'Please use another email address: this form does not accept addresses at {domain}.',
  invalidNumber: 'Please enter a number.',
  invalidDate: 'Please enter a valid date.',
  select: 'Please select',
  submitText: 'Submit',
  thanks: 'Thanks for submitting the form.',
  failed: 'The form could not be sent. Your answers are kept: please try again.',
  invalid: 'Please check the fields marked above.',
  notFound: 'This form is no longer available.',
  loadFailed: 'The form could not be loaded.',
  next: 'Next',
  back: 'Back',
  fieldLabels: {},
};

/** English, overridden by `translations[locale]`, or by the language alone (`de` for `de-AT`). */
export function messagesFor(locale = '', translations: Record<string, Partial<Messages>> = {}): Messages {
  const t = translations[locale] || translations[locale.split('-')[0]] || {};
  return { ...EN, ...t, fieldLabels: { ...t.fieldLabels } };
}
