/** Errors as HTTP answers, in one place: a PlatformError's kind becomes its status, and every
 * error answer has the legacy body: `status`, `message`, `correlationId`, `requestId`, plus the
 * error's own keys (`category`, `error`, `validationResults`, ...). */
import { randomUUID } from 'node:crypto';
import { PlatformError, type ErrorKind } from '../domain/errors';

const STATUS: Record<ErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  'precondition-failed': 412,
  'too-large': 413,
  'unsupported-type': 415,
  'rate-limited': 429,
  internal: 500,
  'not-implemented': 501,
  unavailable: 503,
};

export function errorBody(message: string, extra: Record<string, unknown> = {}) {
  const correlationId = randomUUID();
  return { status: 'error', message, correlationId, requestId: correlationId.replace(/-/g, ''), ...extra };
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: ReturnType<typeof errorBody>;
}

/** The answer to a PlatformError, or undefined for anything else (a bug: the caller logs it). */
export function httpAnswer(err: unknown): HttpAnswer | undefined {
  if (!(err instanceof PlatformError)) return undefined;
  return { status: STATUS[err.kind], headers: err.headers, body: errorBody(err.message, err.extra) };
}

/** The answer to an unexpected error: nothing about it reaches the caller. */
export const internalError = (): HttpAnswer => ({ status: 500, headers: {}, body: errorBody('internal error') });

/** The answer to a method that no route of the path takes: 405, `Allow` naming the routes' methods
 * (and `also`: methods answered beside them, as the collector's CORS preflight). */
export const notAllowed = (method: string, allowed: readonly string[], also: readonly string[] = []): HttpAnswer => ({
  status: 405,
  headers: { Allow: [...allowed, ...also].join(', ') },
  body: errorBody(`${method} is not allowed here; use ${allowed.join(' or ')}`),
});
