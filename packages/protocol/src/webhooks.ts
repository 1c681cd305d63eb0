/** Workflow webhooks: the headers every call from the platform carries and the string its
 * signature covers, shared by the platform (which signs) and the companion (which verifies).
 *
 * The signature (`X-Svc-Signature-v3`) is base64 of HMAC-SHA256, keyed with the client secret of
 * the portal's OAuth app, over the UTF-8 string `method + url + body + timestamp`: the method in
 * capitals, the full URL as requested (scheme, host, path and query), the raw body ('' for GET)
 * and the `X-Svc-Request-Timestamp` header's value (milliseconds since the epoch). The HMAC itself
 * is left to each side (node:crypto), so this module stays free of dependencies. */

export const WEBHOOK_HEADERS = {
  timestamp: 'x-svc-request-timestamp',
  signature: 'x-svc-signature-v3',
  eventId: 'x-svc-event-id',
  /** Which attempt this is (1 for the first): informative, not signed. */
  attempt: 'x-svc-attempt',
} as const;

/** A receiver refuses a call whose timestamp is further than this from its own clock (a replay). */
export const WEBHOOK_MAX_AGE_MS = 5 * 60_000;

/** The string the signature covers. */
export const webhookSignatureBase = (method: string, url: string, body: string, timestamp: string) =>
  method.toUpperCase() + url + body + timestamp;
