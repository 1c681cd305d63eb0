/** Email, as the rest of the platform imports it. */
export { appendEvent, type CampaignData, createCampaign, type NewEvent } from './campaigns';
export type { EventFilter } from './campaign-reads';
export type { MailSettings, PreferenceLinks, SendOrigin } from './send';
export { emailStore, type EmailStore } from './store';
