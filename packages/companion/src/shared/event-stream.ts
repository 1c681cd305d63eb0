/** Server-side events in shared mode: a Redis Stream with one consumer group, so any instance
 * accepts and any instance delivers.
 *
 * - Accepting: the events are added to the stream (by a script that first checks the bound) before
 *   the 202; a full stream refuses new events rather than dropping accepted ones.
 * - Delivering: each instance reads new entries as a consumer of the group (a blocking read on a
 *   connection of its own) and sends them with their event ids; a sent entry is acknowledged and
 *   deleted, so the stream's length is the number still to send. An entry that failed for now
 *   stays pending and is read again after a pause.
 * - A dead instance: entries pending for longer than `claimIdleMs` are claimed (XAUTOCLAIM) by
 *   the others and sent. An entry can thus be sent twice (the instance died after sending, before
 *   acknowledging); the platform drops a repeated event id, so each event counts once.
 * - Dead letters: an event the platform refuses for good (4xx other than 401, 408, 429) moves to
 *   `<prefix>events:dead` with the status and category, for an operator to inspect or send again. */
import type { Client } from '@svc/client';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { HttpError, upstreamLog } from '../http/errors';
import { acceptedEvents, isPermanent, type EventQueue, type EventStats } from '../events/queue';
import type { QueuedEvent } from '../events/event';
import { script, shared, SharedStoreError, type SharedRedis } from './redis';

// KEYS: stream. ARGV: bound, then one event JSON per entry. → the new length, or -1 when full.
const ACCEPT = `
local n = redis.call('XLEN', KEYS[1])
if n + #ARGV - 1 > tonumber(ARGV[1]) then return -1 end
for i = 2, #ARGV do redis.call('XADD', KEYS[1], '*', 'e', ARGV[i]) end
return n + #ARGV - 1`;

const GROUP = 'delivery';
/** Dead letters kept at most (the oldest go first). */
const DEAD_MAX = 100_000;

export interface StreamQueueOptions {
  flushAt: number;
  /** The pause before a failed delivery is tried again. */
  retryMs: number;
  maxQueueSize: number;
  /** An entry pending this long is taken over from its (presumably dead) instance (`events.claimIdleMs`). */
  claimIdleMs: number;
  now: () => number;
  logger?: Logger;
}

type Entry = { sid: string; event?: QueuedEvent };
type Reply = [string, [string, string[]][]][] | null;

const entries = (list: [string, string[]][]): Entry[] =>
  list.map(([sid, fields]) => {
    try {
      const event = JSON.parse(fields[fields.indexOf('e') + 1]) as QueuedEvent;
      return { sid, event: typeof event?.id == 'string' ? event : undefined };
    } catch {
      return { sid };
    }
  });

export function streamQueue(client: Client, r: SharedRedis, o: StreamQueueOptions): EventQueue {
  const stream = `${r.prefix}events`;
  const dead = `${stream}:dead`;
  const me = r.instance;
  const add = script<number>(r.redis, 'svcEventsAccept', 1, ACCEPT);
  const stats = { sent: 0, failed: 0 };
  let depth = 0;
  let closed = false;
  // Pauses of the loops end early when the queue closes.
  let wake!: () => void;
  const stopped = new Promise<void>((r) => (wake = r));
  const sleep = (ms: number) => Promise.race([new Promise((r) => setTimeout(r, ms).unref()), stopped]);
  /** Entries being sent by this process (the read loop and the claim loop may meet one). */
  const sending = new Set<string>();
  const running = new Set<Promise<unknown>>();

  let group: Promise<void> | undefined;
  const ensureGroup = () =>
    (group ??= r.redis
      .xgroup('CREATE', stream, GROUP, '0', 'MKSTREAM')
      .then(
        () => undefined,
        (e: Error) => {
          if (!/BUSYGROUP/.test(e.message)) throw e;
        },
      )
      .catch((e) => {
        group = undefined; // try again next time
        throw new SharedStoreError(e);
      }));

  /** Sends entries; acknowledges the sent and the dead-lettered ones. True when some failed for now. */
  async function deliver(list: Entry[]): Promise<boolean> {
    const done: string[] = [];
    const deadLetters: (string | number)[][] = [];
    let retry = false;
    await Promise.all(
      list.map(async ({ sid, event }) => {
        if (sending.has(sid)) return;
        sending.add(sid);
        try {
          if (!event)
            return void deadLetters.push([sid, 'raw', 'unreadable entry', 'status', 0, 'category', 'MALFORMED']);
          await client.events.track({ ...event });
          done.push(sid);
          stats.sent++;
        } catch (err) {
          if (!isPermanent(err)) return void (retry = true);
          deadLetters.push([sid, 'e', JSON.stringify(event), 'status', err.status, 'category', err.category ?? '']);
          o.logger?.warn(upstreamLog(err), 'the platform refused a server-side event; moved to the dead-letter stream');
        } finally {
          sending.delete(sid);
        }
      }),
    );
    const ids = [...done, ...deadLetters.map((d) => d[0] as string)];
    if (ids.length) {
      const m = r.redis.multi();
      for (const [, ...fields] of deadLetters) m.xadd(dead, 'MAXLEN', '~', DEAD_MAX, '*', ...fields, 'at', o.now());
      m.xack(stream, GROUP, ...ids).xdel(stream, ...ids);
      await shared(m.exec());
      stats.failed += deadLetters.length;
    }
    return retry;
  }

  async function read(redis: Redis, from: '>' | '0', block?: number) {
    await ensureGroup();
    const args: (string | number)[] = ['GROUP', GROUP, me, 'COUNT', o.flushAt];
    if (block !== undefined) args.push('BLOCK', block);
    // The typed method: it shapes RESP3 replies as arrays, as RESP2 had them.
    type XReadGroup = (...args: (string | number)[]) => Promise<Reply>;
    const reply = await shared(
      (redis.xreadgroup as unknown as XReadGroup).apply(redis, [...args, 'STREAMS', stream, from]),
    );
    return entries(reply?.[0]?.[1] ?? []);
  }

  /** Reads and sends until nothing is left (own pending entries first); stops at a failure. */
  async function drain(): Promise<void> {
    for (const from of ['0', '>'] as const)
      for (;;) {
        const list = await read(r.redis, from);
        // Nothing left, or only entries the other loop is sending right now.
        if (!list.length || list.every((e) => sending.has(e.sid)) || (await deliver(list))) break;
      }
    depth = await shared(r.redis.xlen(stream));
  }

  let warned = false;
  const trouble = (e: unknown) => {
    if (!warned)
      o.logger?.warn(
        { err: { code: e instanceof SharedStoreError ? 'ESHAREDSTORE' : 'EDELIVERY' } },
        'server-side events wait: the shared store or the platform is failing',
      );
    warned = true;
  };

  /** The read loop: blocks for new entries; after a failure, reads its own pending ones again. */
  async function readLoop() {
    let own = true;
    while (!closed) {
      try {
        const list = await read(r.blocking(), own ? '0' : '>', own ? undefined : 1_000);
        if (own && !list.length) own = false;
        else if (list.length && list.every((e) => sending.has(e.sid)))
          await sleep(50); // the claim loop has them
        else if (list.length && (await deliver(list))) {
          own = true;
          await sleep(o.retryMs);
        }
        warned = false;
      } catch (e) {
        if (closed) break;
        trouble(e);
        await sleep(Math.min(o.retryMs, 1_000));
      }
    }
  }

  /** The claim loop: takes over entries another instance left pending for `claimIdleMs`. */
  async function claimLoop() {
    while (!closed) {
      await sleep(Math.max(250, o.claimIdleMs / 2));
      if (closed) break;
      try {
        let cursor = '0-0';
        do {
          await ensureGroup();
          const [next, claimed, deleted] = (await shared(
            r.redis.xautoclaim(stream, GROUP, me, o.claimIdleMs, cursor, 'COUNT', 100),
          )) as [string, [string, string[]][], string[]];
          if (deleted?.length) await shared(r.redis.xack(stream, GROUP, ...deleted));
          if (claimed.length) await deliver(entries(claimed));
          cursor = next;
        } while (cursor != '0-0' && !closed);
        depth = await shared(r.redis.xlen(stream));
        await forgetGoneConsumers();
      } catch (e) {
        trouble(e);
      }
    }
  }

  /** Every process start is a new consumer name; the group forgets those that hold nothing and
   * have been silent for an hour (their pending events were claimed), so the list stays short. */
  let sweptAt = Date.now();
  async function forgetGoneConsumers() {
    if (Date.now() - sweptAt < 600_000) return;
    sweptAt = Date.now();
    const list = (await shared(r.redis.xinfo('CONSUMERS', stream, GROUP))) as (string | number)[][];
    for (const fields of list) {
      const c = Object.fromEntries(
        Array.from({ length: fields.length / 2 }, (_, i) => [fields[2 * i], fields[2 * i + 1]]),
      );
      if (c.name != me && Number(c.pending) == 0 && Number(c.idle) > 3_600_000)
        await shared(r.redis.xgroup('DELCONSUMER', stream, GROUP, String(c.name)));
    }
  }

  const track = <T>(p: Promise<T>) => {
    running.add(p);
    void p.finally(() => running.delete(p));
    return p;
  };
  void track(readLoop());
  void track(claimLoop());

  const queue: EventQueue = {
    ready: Promise.resolve(),
    async accept(inputs) {
      if (closed) throw new HttpError(503, 'the companion is shutting down; send the events again later');
      const events = acceptedEvents(inputs, o.now());
      const n = await add(stream, o.maxQueueSize, ...events.map((e) => JSON.stringify(e))).catch((e) => {
        // Not stored: the caller must send them again (the same answer as a failed outbox write).
        throw new HttpError(503, `the event could not be stored: ${(e as Error).message}; try again later`, {
          'retry-after': '1',
        });
      });
      if (n < 0)
        throw new HttpError(503, `the event queue is full (${o.maxQueueSize} events waiting); try again later`, {
          'retry-after': '5',
        });
      depth = n;
      return { ids: events.map((e) => e.id) };
    },
    track: async (event) => ({ id: (await queue.accept([event])).ids[0] }),
    flush: drain,
    stats: (): EventStats => ({ pending: depth, ...stats }),
    async depth() {
      const [pending, deadLetters] = await shared(Promise.all([r.redis.xlen(stream), r.redis.xlen(dead)]));
      depth = pending;
      return { pending, dead: deadLetters };
    },
    async close(timeoutMs = 10_000) {
      if (closed) return;
      closed = true;
      wake();
      // Ends the blocking read; what this instance had pending is claimed by the others.
      r.blocking().disconnect();
      await Promise.race([Promise.allSettled([...running]), sleep(timeoutMs)]);
    },
  };
  return queue;
}
