/** Which webhook events have been handled, so that a repeated delivery (the platform retries when
 * it saw no answer in time) is answered 200 without running the handler twice. An event is marked
 * handled only once the handler succeeded; while a request is handling it, it is "busy" (another
 * delivery of it waits and retries). In this process's memory, or in Redis in shared mode so
 * that every instance knows (busy: `SET NX PX`; handled: kept two days, past the platform's
 * retry window). */
import type { SharedRedis } from '../shared/redis';
import { shared } from '../shared/redis';

export type Claim = 'new' | 'handled' | 'busy';

export interface SeenEvents {
  /** 'new' claims the event for this request (until `done` or `release`). */
  claim(id: string): Promise<Claim>;
  done(id: string): Promise<void>;
  release(id: string): Promise<void>;
}

/** How long a handler may hold an event before another delivery may run it. */
const BUSY_MS = 60_000;
/** How long a handled event is remembered: longer than the platform retries (24 h). */
const KEEP_MS = 2 * 86_400_000;

export function memorySeen(now: () => number): SeenEvents {
  const ids = new Map<string, { state: 'busy' | 'handled'; until: number }>();
  const sweep = () => {
    const t = now();
    for (const [id, e] of ids) if (e.until <= t) ids.delete(id);
  };
  return {
    claim(id) {
      const e = ids.get(id);
      if (e && e.until > now()) return Promise.resolve(e.state);
      if (ids.size > 100_000) sweep();
      ids.set(id, { state: 'busy', until: now() + BUSY_MS });
      return Promise.resolve('new');
    },
    done(id) {
      ids.set(id, { state: 'handled', until: now() + KEEP_MS });
      return Promise.resolve();
    },
    release(id) {
      ids.delete(id);
      return Promise.resolve();
    },
  };
}

export function redisSeen(r: SharedRedis): SeenEvents {
  const key = (id: string) => `${r.prefix}webhooks:seen:${id}`;
  return {
    async claim(id) {
      if ((await shared(r.redis.set(key(id), 'busy', 'PX', BUSY_MS, 'NX'))) == 'OK') return 'new';
      const state = await shared(r.redis.get(key(id)));
      // Gone meanwhile (released, expired): claim again.
      if (state === null)
        return (await shared(r.redis.set(key(id), 'busy', 'PX', BUSY_MS, 'NX'))) == 'OK' ? 'new' : 'busy';
      return state == 'handled' ? 'handled' : 'busy';
    },
    async done(id) {
      await shared(r.redis.set(key(id), 'handled', 'PX', KEEP_MS));
    },
    async release(id) {
      await shared(r.redis.del(key(id)));
    },
  };
}
