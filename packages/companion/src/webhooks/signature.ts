/** Checks a platform webhook call: its signature (X-Svc-Signature-v3, compared in constant time)
 * and its age (X-Svc-Request-Timestamp within 5 minutes of this clock, so a recorded call cannot be
 * played again later). The string signed is @svc/protocol's `webhookSignatureBase`. */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { WEBHOOK_MAX_AGE_MS, webhookSignatureBase } from '@svc/protocol';

export interface SignedCall {
  method: string;
  /** The full URL the platform requested. */
  url: string;
  /** The raw body, as received. */
  body: string;
  timestamp: string | undefined;
  signature: string | undefined;
}

/** Why a call is refused, safe to answer with; undefined when it is genuine and fresh. */
export function refusal(
  call: SignedCall,
  secret: string,
  now: number,
  maxAgeMs = WEBHOOK_MAX_AGE_MS,
): string | undefined {
  if (!call.timestamp || !/^\d{1,16}$/.test(call.timestamp))
    return 'X-Svc-Request-Timestamp is missing or not milliseconds since the epoch';
  if (!call.signature) return 'X-Svc-Signature-v3 is missing';
  const expected = createHmac('sha256', secret)
    .update(webhookSignatureBase(call.method, call.url, call.body, call.timestamp), 'utf8')
    .digest();
  const given = Buffer.from(call.signature, 'base64');
  // Equal lengths for timingSafeEqual; a wrong length compares against itself and still fails.
  const same =
    given.length == expected.length ? timingSafeEqual(given, expected) : (timingSafeEqual(expected, expected), false);
  if (!same) return 'the signature does not match this request';
  // Checked after the signature (which covers the timestamp): a stale call is a replay.
  if (Math.abs(now - Number(call.timestamp)) > maxAgeMs) return 'the request is older than 5 minutes (a replay?)';
  return undefined;
}
