/** Forms, as the rest of the platform imports them. */
export type { FieldRecord, FieldWrite, FormRecord, FormWrite, RecordedConsent, SubmissionContext } from './definition';
export { formStore, type FormStore } from './store';
