/** @svc/companion: keeps the svc platform's credentials server-side. One core, two doors: this
 * entry's `createCompanion` is Express middleware (`app.use('/svc', companion)`) that also carries
 * the fetch handler (`companion.fetch`); `@svc/companion/fetch` has the fetch handler alone, for
 * sites without Express. */
import { companionCore, type CompanionApi } from './companion';
import { expressDoor, type NodeHandler } from './doors/express';
import { fetchDoor, type FetchHandler } from './doors/fetch';
import type { CompanionOptions } from './options';

/** Middleware for Express 4 and 5 (or a plain `node:http` handler), with the companion's API and
 * `fetch`, the same routes as a web-standard handler. */
export type Companion = NodeHandler & CompanionApi & { fetch: FetchHandler };

export function createCompanion(options: CompanionOptions): Companion {
  const core = companionCore(options);
  return Object.assign(expressDoor(core), core.api, { fetch: fetchDoor(core) });
}

export type { CompanionApi } from './companion';
export type { FetchContext, FetchHandler } from './doors/fetch';
export type { NodeHandler } from './doors/express';
export { getVisitor } from './get-visitor';
export { DEFAULTS, type CompanionOptions } from './options';
export type { CookieSource, VisitorAnswer } from './visitor';
export type { ServerEvent } from './events/event';
export type { EventStats } from './events/queue';
export type { Preferences, SubscriptionType } from './subscriptions/routes';
export type { PublicForm, PublicField } from './forms';
export type { WorkflowEvent, WebhookHandler, Webhooks } from './webhooks/receiver';
export { HttpError } from './http/errors';
export { answerClientError } from './http/client-error';
