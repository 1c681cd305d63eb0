/** Server-side events: accepted into a file outbox, then sent in batches (`flushAt` events, or
 * every `flushIntervalMs`), each event through the platform's HTTP events API with its id, so a
 * retry never counts twice. The client retries transient failures; what still fails waits for the
 * next flush. A full queue refuses new events rather than dropping accepted ones. */
import { randomUUID } from 'node:crypto';
import type { Client } from '@svc/client';
import { SvcApiError } from '@svc/client';
import type { Logger } from 'pino';
import { HttpError, upstreamLog } from '../http/errors';
import { checkEvent, type QueuedEvent, type ServerEvent } from './event';
import { Outbox } from './outbox';

export interface EventQueueOptions {
  outboxFile: string;
  flushAt: number;
  flushIntervalMs: number;
  maxQueueSize: number;
  now: () => number;
  logger?: Logger;
}

export interface EventStats {
  /** Accepted, not yet taken by the platform (in shared mode: by any instance, as last seen). */
  pending: number;
  /** Sent by this process. */
  sent: number;
  /** Refused by the platform for good (e.g. 400): logged and dropped (shared mode: dead-lettered). */
  failed: number;
}

/** The event queue the companion's routes use: the file outbox here, or a Redis Stream in shared mode. */
export interface EventQueue {
  /** Resolves once accepted events can be stored (the outbox is open). */
  ready: Promise<void>;
  /** Checks every event, then stores them all; resolves once they are stored. */
  accept(inputs: unknown[]): Promise<{ ids: string[] }>;
  track(this: void, event: ServerEvent): Promise<{ id: string }>;
  /** Sends what waits now. */
  flush(this: void): Promise<void>;
  stats(this: void): EventStats;
  /** Events waiting, and dead letters where they are kept, as `/healthz` reports them. */
  depth(this: void): Promise<{ pending: number; dead?: number }>;
  close(timeoutMs?: number): Promise<void>;
}

/** 4xx answers that will not change on a retry; the event is dropped (and counted). 401 and 429 are not among them. */
export const isPermanent = (e: unknown): e is SvcApiError =>
  e instanceof SvcApiError &&
  e.status >= 400 &&
  e.status < 500 &&
  e.status != 401 &&
  e.status != 408 &&
  e.status != 429;

/** Checks a request's events (all before any is accepted) and gives each its id. */
export const acceptedEvents = (inputs: unknown[], now: number) =>
  inputs.map((e, i) => checkEvent(e, randomUUID(), now, inputs.length > 1 ? `events[${i}].` : ''));

export function eventQueue(client: Client, o: EventQueueOptions): EventQueue {
  const outbox = new Outbox(o.outboxFile);
  const queue: QueuedEvent[] = [];
  // Accepted (in the outbox or being written to it) and not yet taken by the platform.
  const unsent = new Map<string, QueuedEvent>();
  const stats = { sent: 0, failed: 0 };
  let flushing: Promise<void> | undefined;
  let closed = false;
  const ready = outbox.open().then((events) => {
    queue.push(...events);
    for (const e of events) unsent.set(e.id, e);
  });
  const timer = setInterval(() => void flush().catch(() => undefined), o.flushIntervalMs);
  timer.unref();

  async function accept(inputs: unknown[]): Promise<{ ids: string[] }> {
    if (closed) throw new HttpError(503, 'the companion is shutting down; send the events again later');
    const events = acceptedEvents(inputs, o.now());
    await ready.catch(() => {
      throw new HttpError(503, 'the event outbox could not be opened; see the companion log');
    });
    if (unsent.size + events.length > o.maxQueueSize)
      throw new HttpError(503, `the event queue is full (${o.maxQueueSize} events waiting); try again later`, {
        'retry-after': '5',
      });
    for (const e of events) unsent.set(e.id, e);
    try {
      await outbox.append(events);
    } catch (e) {
      for (const ev of events) unsent.delete(ev.id);
      o.logger?.error({ err: { code: (e as NodeJS.ErrnoException).code } }, 'could not write the event outbox');
      throw new HttpError(503, 'the event could not be stored; try again later');
    }
    queue.push(...events);
    if (queue.length >= o.flushAt) void flush().catch(() => undefined);
    return { ids: events.map((e) => e.id) };
  }

  async function sendBatch(batch: QueuedEvent[]) {
    const done: string[] = [];
    const retry: QueuedEvent[] = [];
    await Promise.all(
      batch.map(async (e) => {
        try {
          await client.events.track({ ...e });
          done.push(e.id);
          stats.sent++;
        } catch (err) {
          if (isPermanent(err)) {
            done.push(e.id);
            stats.failed++;
            o.logger?.warn(upstreamLog(err), 'the platform refused a server-side event; dropped');
          } else retry.push(e);
        }
      }),
    );
    for (const id of done) unsent.delete(id);
    await outbox.ack(done, () => [...unsent.values()]);
    return retry;
  }

  /** Sends everything waiting, `flushAt` at a time; events that fail transiently wait for the next flush. */
  function flush(): Promise<void> {
    return (flushing ??= (async () => {
      await ready;
      const later: QueuedEvent[] = [];
      try {
        while (queue.length) {
          const batch = queue.splice(0, o.flushAt);
          const failed = await sendBatch(batch);
          later.push(...failed);
          if (failed.length == batch.length) break; // the platform is failing: wait for the next flush
        }
      } finally {
        queue.unshift(...later);
        flushing = undefined;
      }
      if (later.length) o.logger?.warn({ waiting: queue.length }, 'server-side events wait for the platform');
    })());
  }

  /** Stops accepting, sends what waits (until `timeoutMs`), closes the outbox. What could not be
   * sent stays in the outbox for the next start. */
  async function close(timeoutMs = 10_000) {
    if (closed) return;
    closed = true;
    clearInterval(timer);
    await ready.catch(() => undefined);
    const deadline = Date.now() + timeoutMs;
    while (queue.length && Date.now() < deadline) {
      const before = queue.length;
      await Promise.race([flush(), new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now())).unref())]);
      if (queue.length >= before) break; // no progress: the platform is down; the outbox keeps them
    }
    // A send still running past the deadline is left to finish or fail; its events stay in the outbox.
    const left = Math.max(0, deadline - Date.now());
    await Promise.race([flushing?.catch(() => undefined), new Promise((r) => setTimeout(r, left).unref())]);
    await outbox.close();
  }

  return {
    track: async (event: ServerEvent) => ({ id: (await accept([event])).ids[0] }),
    accept,
    flush,
    close,
    ready,
    stats: (): EventStats => ({ pending: unsent.size, ...stats }),
    depth: () => Promise.resolve({ pending: unsent.size }),
  };
}
