/** Contact lists, as the rest of the platform imports them. */
export type { ListRecord, ListWrite, MembershipChange } from './record';
export type { MemberRow } from './sql';
export { listStore, type ListStore } from './store';
