/** @svc/companion/fetch: the companion as a web-standard handler, `companion.fetch(request) →
 * Promise<Response>`, for Next.js route handlers, Hono, Bun and Deno. The same core, routes, headers
 * and errors as the Express middleware of `@svc/companion`, without Express. */
import { companionCore, type CompanionApi } from './companion';
import { fetchDoor, type FetchHandler } from './doors/fetch';
import type { CompanionOptions } from './options';

/** The companion's API and `fetch`, its routes as a web-standard handler. */
export interface Companion extends CompanionApi {
  /** Answers a request for any companion route under `basePath` (default `/svc`). Needs no `this`:
   * `export const GET = companion.fetch` works. */
  fetch: FetchHandler;
}

export function createCompanion(options: CompanionOptions): Companion {
  const core = companionCore(options);
  return { ...core.api, fetch: fetchDoor(core) };
}

export type { CompanionApi } from './companion';
export type { FetchContext, FetchHandler } from './doors/fetch';
export { getVisitor } from './get-visitor';
export { DEFAULTS, type CompanionOptions } from './options';
export type { CookieSource, VisitorAnswer } from './visitor';
export type { ServerEvent } from './events/event';
export type { EventStats } from './events/queue';
export type { Preferences, SubscriptionType } from './subscriptions/routes';
export type { PublicForm, PublicField } from './forms';
export type { WorkflowEvent, WebhookHandler, Webhooks } from './webhooks/receiver';
export { HttpError } from './http/errors';
