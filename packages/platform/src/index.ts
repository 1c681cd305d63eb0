/** @svc/platform: the svc platform API on SQLite or PostgreSQL. */
export { createPlatform, type Platform, type PlatformOptions } from './app';
export { demoThanksCampaign, seedDemo, DEMO_PORTAL } from './seed';
export { inspectorKeyIn, inspectorUrl, readCredentialsFile, saveCredentials } from './credentials-file';
export {
  createPortal,
  issuePortalCredentials,
  keepAppSecret,
  ALL_SCOPES,
  type PortalCredentials,
  type Tier,
} from './store/portals';
// The engine interface, for code that queries the platform's database on either engine (the benchmark).
export { sql, type Engine, type Queryable, type Query, type Transaction } from './db/engine';
