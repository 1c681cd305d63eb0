/** The platform's one error type. Stores, services, handlers and the HTTP layer throw it with a
 * kind that says what went wrong, not how HTTP spells it; http/errors.ts turns a kind into a
 * status and the legacy error body in one place. Messages never carry secrets: they name fields
 * and ids, not credential values. */

/** What went wrong, each kind one HTTP status (http/errors.ts). */
export type ErrorKind =
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'not-found'
  | 'conflict'
  | 'precondition-failed'
  | 'too-large'
  | 'unsupported-type'
  | 'rate-limited'
  | 'not-implemented'
  | 'unavailable'
  | 'internal';

export class PlatformError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    /** Extra keys of the error body (`category`, `validationResults`, ...). */
    readonly extra: Record<string, unknown> = {},
    /** Headers of the answer (`Retry-After`). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'PlatformError';
  }
}

export const badRequest = (message: string, extra?: Record<string, unknown>) =>
  new PlatformError('invalid', message, { category: 'VALIDATION_ERROR', ...extra });
export const notFound = (message = 'resource not found', extra?: Record<string, unknown>) =>
  new PlatformError('not-found', message, extra);
export const conflict = (message: string, extra?: Record<string, unknown>) =>
  new PlatformError('conflict', message, extra);

/** Whether the request may succeed unchanged when tried again: another transaction was writing
 * the same records (category CONFLICT, db/postgres-errors.ts) or the database was gone a moment.
 * No item of a batch is at fault, so the error is answered as it is, not as that item's. */
export const isTransient = (err: PlatformError) => err.kind == 'unavailable' || err.extra.category == 'CONFLICT';
