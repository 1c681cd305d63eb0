/** @svc/client: a typed client for every route of the svc platform API. */
export { createClient, type Client, type ClientOptions } from './client';
export { SvcApiError, type ClientCategory } from './errors';
export { FileTokenStore, MemoryTokenStore, type TokenSet, type TokenStore } from './token-store';
export type { AuthOptions, OAuthOptions, RefreshEvent } from './auth';
export type { CallOptions } from './call-options';
export type { RateBudget } from './budget';
export type { Clock } from './clock';
export type { RetryEvent } from './steps/retry';
export type { PageBounds } from './paging';
export type { FormSubmission, FormSubmitted } from './form-submit';
export type { TrackedEvent } from './track-event';
export type { Api, Input, Method, Output, Redirect } from './types';
export type { LegalConsent } from '@svc/protocol';
export { routeTable, type RouteInfo } from './route-table';
