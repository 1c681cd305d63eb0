/** Contacts, as the rest of the platform imports them. */
export type { BatchItem } from './batch';
export type { ChangedContact, ContactRow, Plan, Source, Write } from './plan';
export type { ContactRecord, ReadOptions } from './record';
export { contactColumns } from './sql';
export { contactStore, type ContactsChanged, type ContactStore } from './store';
