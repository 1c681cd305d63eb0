/** The events on a contact's timeline: its page views and custom events, each with its
 * properties. The spec lists no read of them (§4.10 leaves the enterprise events' paths open), so
 * the route takes the shape of the real API's event occurrences (`GET /events/v3/events`):
 * `{results: [{objectType, objectId, eventType, occurredAt, id, properties}], paging}`. */
import { z } from 'zod';
import { count, numericId } from '../common';
import { route } from '../route';

const READ = ['crm.objects.contacts.read', 'crm.objects.contacts.write'];

/** The event type of a page view, as the real API names it; a custom event's type is its id or name. */
export const PAGE_VIEW_EVENT_TYPE = 'e_visited_page';

/** A time bound: an ISO 8601 date-time (the real API's form) or milliseconds since the epoch. */
const instant = z
  .string()
  .refine(
    (s) => /^\d{1,15}$/.test(s) || (/^\d{4}-\d\d-\d\dT/.test(s) && !Number.isNaN(Date.parse(s))),
    'must be an ISO 8601 date-time or milliseconds since the epoch',
  )
  .transform((s) => (/^\d+$/.test(s) ? Number(s) : Date.parse(s)));

export const eventOccurrence = z.object({
  /** Always `CONTACT`: events are kept per contact. */
  objectType: z.literal('CONTACT'),
  /** The contact's vid. */
  objectId: z.string(),
  /** `e_visited_page` for a page view, else the custom event's id or name. */
  eventType: z.string(),
  /** When it happened (the sender's clock), ISO 8601. */
  occurredAt: z.string(),
  /** The event id (the tracker's `eid`, `api:<id>` for an events API call with an id). */
  id: z.string(),
  /** Page views: `svc_url`, `svc_title`, `svc_referrer` as known. Custom events: their own
   * properties, plus `svc_url` and `svc_title` of the page and `svc_value` when a value was given. */
  properties: z.record(z.string(), z.string()),
});

export const eventOccurrenceRoutes = {
  'events.list': route({
    id: 'events.list',
    method: 'GET',
    path: '/events/v3/events',
    summary:
      "A contact's page views and custom events with their properties, newest first (the real API's event occurrences): " +
      '`objectType=contact` and `objectId` (vid) or `objectProperty.email`; `eventType`, `occurredAfter`/`occurredBefore` filter; `after` pages',
    scopes: READ,
    query: z
      .object({
        objectType: z
          .string()
          .transform((s) => s.toLowerCase())
          .pipe(z.enum(['contact', '0-1'], 'must be contact (events are kept per contact)')),
        objectId: numericId.optional(),
        'objectProperty.email': z.string().min(1).max(254).optional(),
        eventType: z.string().min(1).max(255).optional(),
        occurredAfter: instant.optional(),
        occurredBefore: instant.optional(),
        sort: z.enum(['DESCENDING', 'ASCENDING'], 'must be DESCENDING or ASCENDING').default('DESCENDING'),
        limit: count(100, 100),
        /** The cursor of `paging.next.after`. */
        after: z
          .string()
          .regex(/^\d{1,15}-\d{1,15}$/, 'must be the paging.next.after of an earlier page')
          .optional(),
      })
      .refine((q) => q.objectId !== undefined || q['objectProperty.email'] !== undefined, {
        message: 'give objectId (the contact vid) or objectProperty.email',
        path: ['objectId'],
      }),
    response: z.object({
      results: z.array(eventOccurrence),
      paging: z.object({ next: z.object({ after: z.string(), link: z.string() }) }).optional(),
    }),
  }),
};
