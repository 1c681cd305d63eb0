/** The one error the client throws for a failed call. It carries what a caller needs to react
 * (status, category, ids, Retry-After, the parsed body) and never a credential: the request is
 * kept as method + path with `hapikey` redacted, request headers are never kept, and every known
 * secret is cut out of the message and the body before the error is built. */
import { inspect } from 'node:util';

/** Categories the client gives failures that never got an answer (status 0). */
export type ClientCategory =
  'TIMEOUT' | 'NETWORK_ERROR' | 'ABORTED' | 'INVALID_RESPONSE' | 'PACING_FAILED' | 'TOKEN_STORE_FAILED';

export interface SvcApiErrorInit {
  /** HTTP status, or 0 when no answer arrived (network error, timeout, abort). */
  status: number;
  message: string;
  method: string;
  /** Path and query, `hapikey` redacted. */
  path: string;
  category?: string;
  correlationId?: string;
  requestId?: string;
  retryAfterMs?: number;
  body?: unknown;
  /** What failed inside the client (a shared pacing budget or token store that threw). */
  cause?: unknown;
}

export class SvcApiError extends Error {
  /** HTTP status, or 0 when no answer arrived. */
  readonly status: number;
  readonly method: string;
  /** Path and query of the request, `hapikey` redacted. */
  readonly path: string;
  /** The body's `category` (or `errorType`), e.g. `VALIDATION_ERROR`, `RATE_LIMIT`,
   * `EXPIRED_AUTHENTICATION`; for status 0 one of {@link ClientCategory}. */
  readonly category?: string;
  readonly correlationId?: string;
  readonly requestId?: string;
  /** From `Retry-After`, when the answer had one. */
  readonly retryAfterMs?: number;
  /** The parsed error body (JSON), or its text. */
  readonly body?: unknown;

  constructor(init: SvcApiErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'SvcApiError';
    this.status = init.status;
    this.method = init.method;
    this.path = init.path;
    this.category = init.category;
    this.correlationId = init.correlationId;
    this.requestId = init.requestId;
    this.retryAfterMs = init.retryAfterMs;
    this.body = init.body;
  }

  toJSON() {
    const { name, message, status, method, path, category, correlationId, requestId, retryAfterMs, body } = this;
    return { name, message, status, method, path, category, correlationId, requestId, retryAfterMs, body };
  }

  [inspect.custom]() {
    const ids = this.correlationId ? ` correlationId=${this.correlationId}` : '';
    return `${this.name} [${this.status || 'no answer'} ${this.category ?? ''} ${this.method} ${this.path}${ids}]: ${this.message}`;
  }
}

/** Removes credentials from a path's query string. */
export function redactPath(path: string) {
  return path.replace(/([?&])(hapikey|access_token)=[^&]*/g, '$1$2=[redacted]');
}

/** Replaces every occurrence of a known secret (token, key, client secret) with `[redacted]`. */
export function redactSecrets(text: string, secrets: readonly string[]) {
  for (const s of secrets) if (s && text.includes(s)) text = text.split(s).join('[redacted]');
  return text;
}
