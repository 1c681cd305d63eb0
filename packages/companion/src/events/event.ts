/** A server-side event as callers give it, its checks, and the form it waits in. */
import { isUtk } from '@svc/protocol';
import { HttpError } from '../http/errors';

/** `companion.events.track(...)` and `POST /events` take this. */
export interface ServerEvent {
  /** The event's id or name on the platform, e.g. `paid-invoice`. */
  eventId: string;
  /** Who did it: an email or a visitor token (`svcutk`); at least one. */
  email?: string;
  utk?: string;
  /** A monetary value, added to the contact's event revenue. */
  value?: number;
  /** Contact properties set with the event. */
  properties?: Record<string, string | number | boolean>;
  /** When it happened (ms since the epoch); default when it was accepted. */
  occurredAt?: number;
  /** Deduplication id; default a random UUID. Sending the same id twice counts once. */
  id?: string;
}

/** An accepted event, as kept in the queue and the outbox. */
export interface QueuedEvent {
  id: string;
  name: string;
  email?: string;
  utk?: string;
  value?: number;
  properties?: Record<string, string | number | boolean>;
  occurredAt: number;
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,189}$/;
const NAME = /^[\w.:-]{1,100}$/;
const ID = /^[\w-]{1,64}$/;
const MAX_BYTES = 32 * 1024;

/** Checks one event; throws a 400 naming the field. `at` prefixes field names (`events[2].`). */
export function checkEvent(input: unknown, id: string, now: number, at = ''): QueuedEvent {
  const bad = (field: string, message: string) => new HttpError(400, `${at}${field}: ${message}`);
  if (!input || typeof input != 'object' || Array.isArray(input)) throw bad('event', 'must be an object');
  const e = input as Record<string, unknown>;
  for (const key of Object.keys(e))
    if (!['eventId', 'email', 'utk', 'value', 'properties', 'occurredAt', 'id'].includes(key))
      throw bad(key, 'is not a field of an event');
  if (typeof e.eventId != 'string' || !NAME.test(e.eventId))
    throw bad('eventId', 'must be 1 to 100 letters, digits, _ . : or -');
  if (e.email !== undefined && (typeof e.email != 'string' || !EMAIL.test(e.email)))
    throw bad('email', 'must be an email address');
  if (e.utk !== undefined && !isUtk(e.utk)) throw bad('utk', 'must be 32 lower-case hex characters');
  if (e.email === undefined && e.utk === undefined) throw bad('email', 'give an email or a utk to say who did it');
  if (e.value !== undefined && (typeof e.value != 'number' || !Number.isFinite(e.value)))
    throw bad('value', 'must be a number');
  if (
    e.occurredAt !== undefined &&
    (typeof e.occurredAt != 'number' || !Number.isInteger(e.occurredAt) || e.occurredAt < 0)
  )
    throw bad('occurredAt', 'must be milliseconds since the epoch');
  if (e.id !== undefined && (typeof e.id != 'string' || !ID.test(e.id)))
    throw bad('id', 'must be 1 to 64 letters, digits, _ or -');
  if (e.properties !== undefined) {
    if (!e.properties || typeof e.properties != 'object' || Array.isArray(e.properties))
      throw bad('properties', 'must be an object');
    const entries = Object.entries(e.properties);
    if (entries.length > 100) throw bad('properties', 'at most 100 properties');
    for (const [k, v] of entries) {
      if (!/^[A-Za-z0-9_]{1,100}$/.test(k)) throw bad(`properties.${k.slice(0, 40)}`, 'is not a property name');
      if (!['string', 'number', 'boolean'].includes(typeof v))
        throw bad(`properties.${k}`, 'must be a string, number or boolean');
    }
  }
  const event: QueuedEvent = {
    id: e.id ?? id,
    name: e.eventId,
    email: e.email,
    utk: e.utk,
    value: e.value,
    properties: e.properties as QueuedEvent['properties'],
    occurredAt: e.occurredAt ?? now,
  };
  if (Buffer.byteLength(JSON.stringify(event)) > MAX_BYTES) throw bad('event', 'must be at most 32 KB');
  return event;
}
