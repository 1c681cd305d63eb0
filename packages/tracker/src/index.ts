/** ESM entry: `start({ portalId, collector })` for apps that bundle the tracker. */
export { start } from './tracker';
export type * from './types';
