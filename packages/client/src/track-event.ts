/** `client.events.track(...)`: a server-side custom event through the HTTP events API. Each
 * event gets an id (unless it has one), which the platform deduplicates on, so a retried send
 * never counts twice. */
import { randomUUID } from 'node:crypto';
import type { CallOptions } from './call-options';
import type { Api } from './types';

export interface TrackedEvent {
  /** The event's name or id, e.g. `paid-invoice`. */
  name: string;
  /** Who did it: an email or a visitor token (`svcutk`); at least one. */
  email?: string;
  utk?: string;
  /** A monetary value, added to the contact's event revenue. */
  value?: number;
  /** Contact properties to set with the event. */
  properties?: Record<string, string | number | boolean>;
  occurredAt?: Date | number;
  /** Deduplication id; default a random UUID. */
  id?: string;
}

export function eventTracker(api: Api) {
  return async (event: TrackedEvent, options?: CallOptions): Promise<{ id: string }> => {
    if (!event.email && !event.utk) throw new TypeError('an event needs an email or a utk to say who did it');
    const id = event.id ?? randomUUID();
    const occurredAt = event.occurredAt instanceof Date ? event.occurredAt.getTime() : event.occurredAt;
    await api.events.send(
      {
        eventName: event.name,
        email: event.email,
        utk: event.utk,
        value: event.value,
        properties: event.properties,
        occurredAt,
        id,
      },
      options,
    );
    return { id };
  };
}
