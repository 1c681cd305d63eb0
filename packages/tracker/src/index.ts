/** ESM entry: `start({ portalId, collector })` for apps that bundle the tracker. */
export { start } from './tracker';
/** Shared with the form embed: the visitor token, when the cookie holds a valid one. */
export { readUtk } from './cookies';
export type * from './types';
