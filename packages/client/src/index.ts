/** @svc/client: a typed client for every route of the svc platform API. */
export { createClient, type Client, type ClientOptions } from './client';
export { SvcApiError } from './errors';
export { FileTokenStore, MemoryTokenStore, type TokenSet, type TokenStore } from './token-store';
export type { AuthOptions, OAuthOptions } from './auth';
export type { CallOptions } from './request';
export type { PageBounds } from './paging';
export type { Api, Method, Output } from './types';
