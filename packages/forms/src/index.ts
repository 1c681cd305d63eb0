/** ESM entry: `create` and `capture` for apps that bundle the form embed. */
export { capture } from './capture';
export { create } from './create';
export { sanitize } from './sanitize';
export type * from './types';
