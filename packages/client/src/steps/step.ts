/** The request path as a chain of steps, the way undici composes interceptors: a step takes the
 * next step's `send` and returns its own, so each concern (retries, pacing, credentials, ...) is
 * one small function with its policy as data, and a chain is a list composed once per client.
 * The innermost `send` is the HTTP exchange.
 *
 * An attempt answers with what came back, or with no answer for a reason worth a retry (timeout,
 * network error). What ends the call at once (an abort, a pacing budget or token store that
 * failed, a failed token refresh) is thrown as an SvcApiError and passes through every step. */
import type { CallOptions } from '../call-options';
import type { SvcApiError, SvcApiErrorInit } from '../errors';
import type { RouteInfo } from '../route-table';

export type Headers = Record<string, string | string[] | undefined>;

/** One call, prepared once (URL, encoded body) and sent once per attempt. */
export interface Request {
  /** The route's id, e.g. `contacts.getByUtk`. */
  id: string;
  route: RouteInfo;
  url: string;
  /** Path and query with credentials redacted: what errors show. */
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /** Whether a failed attempt may be sent again (see retry.ts). */
  repeatable: boolean;
  options: CallOptions;
  /** An SvcApiError of this call: method and path filled in, every known secret cut out. */
  fail(init: Omit<SvcApiErrorInit, 'method' | 'path'>): SvcApiError;
  /** Every secret the client knows, to cut out of what it reports. */
  secrets(): string[];
  /** Set by refresh-on-401, so a call forces at most one refresh whatever its retries. */
  refreshed?: boolean;
}

/** An answer (body read in full; `token`: the bearer token it was sent with), or none. */
export type Answer =
  | { status: number; headers: Headers; bytes: Buffer; token?: string }
  | { status: 0; failure: 'TIMEOUT' | 'NETWORK_ERROR'; reason: string };

export type Send = (req: Request) => Promise<Answer>;
export type Step = (next: Send) => Send;

/** The steps around `send`, the first one outermost. */
export const compose = (steps: readonly Step[], send: Send): Send =>
  steps.reduceRight((next, step) => step(next), send);

export const header = (h: Headers, name: string) => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

export const aborted = (req: Request) =>
  req.fail({ status: 0, category: 'ABORTED', message: `${req.route.method} ${req.path} aborted` });
