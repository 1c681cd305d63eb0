/** The events on a contact's timeline (`GET /events/v3/events`): its page views and custom events
 * with their properties, in the real API's event-occurrence shape. */
import { PAGE_VIEW_EVENT_TYPE } from '@svc/api';
import { notFound } from '../domain/errors';
import type { Services } from '../services/wiring';
import { occurrenceProperties } from '../store/event-occurrences';
import type { Handlers } from './handler';

export function eventOccurrenceHandlers({ contacts, occurrences }: Services): Handlers {
  return {
    'events.list': async ({ db, portalId, query, req }) => {
      const email = query['objectProperty.email'];
      const contact =
        query.objectId !== undefined
          ? await contacts.get(db, portalId, query.objectId)
          : await contacts.getByEmail(db, portalId, email!);
      if (!contact)
        throw notFound(
          query.objectId !== undefined ? `no contact with vid ${query.objectId}` : `no contact with email ${email}`,
        );
      const { rows, next } = await occurrences.page(db, { ...query, portalId, vid: contact.vid });
      const results = rows.map((e) => ({
        objectType: 'CONTACT' as const,
        objectId: String(contact.vid),
        eventType: e.kind == 1 ? PAGE_VIEW_EVENT_TYPE : (e.event_name ?? ''),
        occurredAt: new Date(Number(e.timestamp)).toISOString(),
        id: e.eid,
        properties: occurrenceProperties(e),
      }));
      if (!next) return { results };
      // The same request from the next cursor on.
      const link = new URL(req.originalUrl, 'http://x');
      link.searchParams.set('after', next);
      return { results, paging: { next: { after: next, link: link.pathname + link.search } } };
    },
  };
}
