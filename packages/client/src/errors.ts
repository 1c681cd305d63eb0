/** The one error the client throws. It carries what a caller needs to react (status, category,
 * ids, Retry-After, the parsed body) and never a credential: the request it describes is kept
 * as method + path only, with the query's secrets removed. */
import { inspect } from 'node:util';

export interface SvcApiErrorInit {
  /** HTTP status, or 0 when no response arrived (network error, timeout, abort). */
  status: number;
  message: string;
  method: string;
  /** Path and query, without `hapikey`. */
  path: string;
  category?: string;
  correlationId?: string;
  requestId?: string;
  retryAfterMs?: number;
  body?: unknown;
  /** What failed underneath (network errors); its message only. */
  causeMessage?: string;
}

export class SvcApiError extends Error {
  readonly status: number;
  readonly method: string;
  readonly path: string;
  readonly category?: string;
  readonly correlationId?: string;
  readonly requestId?: string;
  readonly retryAfterMs?: number;
  readonly body?: unknown;

  constructor(init: SvcApiErrorInit) {
    super(init.message);
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
    return `${this.name} [${this.status || 'no response'} ${this.method} ${this.path}]: ${this.message}`;
  }
}

/** Removes credentials from a path's query string (the client never puts others there). */
export function redactPath(path: string) {
  return path.replace(/([?&])(hapikey|access_token)=[^&]*/g, '$1$2=[redacted]');
}
