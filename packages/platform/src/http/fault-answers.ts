/** What a fault's status looks like: the real API's answers, so that a client's handling of them
 * is what is tested. A 429 is the API budget's (http/rate-limit.ts): its error body, the
 * X-Svc-RateLimit-* headers with nothing remaining, and `Retry-After`. A 5xx has the API's error
 * body; a 503 may carry `Retry-After` too. */
import type { ServerResponse } from 'node:http';
import { errorBody } from './errors';
import { budgetHeaders, OVER_BUDGET, type RateLimitOptions } from './rate-limit';

const MESSAGES: Record<number, string> = {
  429: OVER_BUDGET.message,
  500: 'internal error',
  502: 'Bad gateway: the service behind this endpoint did not answer in time; try again.',
  503: 'The service is temporarily unavailable; try again later.',
};

export function answerFault(
  res: ServerResponse,
  status: number,
  retryAfter: number | undefined,
  limit: RateLimitOptions,
  faultId: string,
) {
  let headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  let extra: Record<string, unknown> = {};
  if (status == 429) {
    headers = { ...headers, ...budgetHeaders(limit, 0), 'Retry-After': String(retryAfter ?? 1) };
    extra = OVER_BUDGET.details;
  } else if (retryAfter !== undefined) headers['Retry-After'] = String(retryAfter);
  // Which rule it was, for whoever reads the answer while debugging a test.
  headers['X-Svc-Fault'] = faultId;
  const message = MESSAGES[status] ?? `the request failed (status ${status}, from a fault rule)`;
  const body = JSON.stringify(errorBody(message, extra));
  res.writeHead(status, { ...headers, 'content-length': String(Buffer.byteLength(body)) });
  res.end(body);
}
