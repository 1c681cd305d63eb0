/** @svc/companion: an Express router that keeps the svc platform's credentials server-side. */
export { createCompanion, type Companion, type CompanionApi } from './companion';
export type { CompanionOptions } from './options';
export type { ServerEvent } from './events/event';
export type { EventStats } from './events/queue';
export type { VisitorAnswer } from './visitor';
export type { Preferences, SubscriptionType } from './subscriptions/routes';
export type { PublicForm, PublicField } from './forms';
export type { WorkflowEvent, WebhookHandler, Webhooks } from './webhooks/receiver';
export { HttpError } from './http/errors';
export { answerClientError } from './http/client-error';
