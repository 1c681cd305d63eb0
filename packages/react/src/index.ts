/** @svc/react: the tracker, its commands and the form embed as React components and hooks. */
export { useSvc, type Svc } from './commands';
export { usePrivacyConsent } from './privacy-consent';
export { SvcForm, type SvcFormCallbacks, type SvcFormProps } from './svc-form';
export { SvcTracker, type SvcTrackerProps } from './svc-tracker';
export type { ConsentMode, CustomEvent, Identity, PrivacyConsent, TrackerConfig } from '@svc/tracker';
export type { FormDefinition, SubmissionValue, SubmitError, SubmittedData } from '@svc/forms';
