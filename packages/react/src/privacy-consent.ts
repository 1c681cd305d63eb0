/** The visitor's privacy decision as React state, for a cookie banner or a consent-aware widget. */
import type { PrivacyConsent } from '@svc/tracker';
import { useEffect, useState } from 'react';
import { svc } from './commands';

/** `undefined` until a decision is known (on the server, before the tracker loads, and in `opt-in`
 * mode before `setConsent`); then `{allowed, categories: {analytics}}`, updated on every decision.
 * Stops listening on unmount. */
export function usePrivacyConsent(): PrivacyConsent | undefined {
  const [consent, setConsent] = useState<PrivacyConsent>();
  useEffect(() => svc.addPrivacyConsentListener(setConsent), []);
  return consent;
}
