/** API errors and the legacy error body: `status`, `message`, `correlationId`, `requestId`, plus
 * endpoint-specific keys (`category`, `error`, `validationResults`, ...). Messages never carry
 * secrets: they name fields and ids, not credential values. */
import { randomUUID } from 'node:crypto';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Extra keys of the error body. */
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const notFound = (message = 'resource not found', extra?: Record<string, unknown>) => new ApiError(404, message, extra);
export const badRequest = (message: string, extra?: Record<string, unknown>) =>
  new ApiError(400, message, { category: 'VALIDATION_ERROR', ...extra });
export const conflict = (message: string, extra?: Record<string, unknown>) => new ApiError(409, message, extra);

export function errorBody(message: string, extra: Record<string, unknown> = {}) {
  const correlationId = randomUUID();
  return { status: 'error', message, correlationId, requestId: correlationId.replace(/-/g, ''), ...extra };
}
