/** The platform's stores, wired to one database and one clock. */
import type { Db } from './db/open';
import { contactStore } from './store/contacts';
import { propertyStore } from './store/properties';

export function createServices(db: Db, now: () => number) {
  const properties = propertyStore(db, now);
  /** Contact changes: dynamic lists and workflows subscribe here. */
  const contactListeners: ((portalId: number, vids: number[]) => void)[] = [];
  const contacts = contactStore(db, properties, now, (portalId, vids) => contactListeners.forEach((fn) => fn(portalId, vids)));
  return { db, now, properties, contacts, onContactsChanged: (fn: (portalId: number, vids: number[]) => void) => contactListeners.push(fn) };
}

export type Services = ReturnType<typeof createServices>;
