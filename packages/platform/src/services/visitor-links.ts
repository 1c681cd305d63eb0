/** Linking a visitor token (utk) to a contact, the one way it happens: by a form submission, by
 * `identify` data on a tracked event, or by the events API. The link is stored and the visitor's
 * earlier events and sessions, anonymous until now, start counting for the contact. */
import type { Queryable } from '../db/engine';
import type { ContactStore } from '../store/contacts';
import type { TrackingStore } from '../store/tracking';
import type { VisitSessions } from './sessions';

export function visitorLinks(contacts: ContactStore, tracking: TrackingStore, sessions: VisitSessions) {
  return {
    async link(db: Queryable, portalId: number, utk: string, vid: number) {
      await contacts.linkUtk(db, portalId, utk, vid);
      await tracking.attribute(db, portalId, utk, vid, () => sessions.claim(db, portalId, utk, vid));
    },
  };
}

export type VisitorLinks = ReturnType<typeof visitorLinks>;
