/** Delivery: batches of up to 10 events or 5 s over `fetch` keepalive, `sendBeacon` when the page
 * is hidden, an image pixel where `fetch` is missing, and a bounded, persisted retry queue. */
import { BATCH_FILE, PIXEL_FILE, type WireEvent } from '@svc/protocol';

const KEY = 'svc_retry';
const BATCH = 10;
const WAIT = 5000;
const MAX_STORED = 100;
const MAX_AGE = 7 * 864e5;
/** Consecutive network errors (not HTTP errors) after which this page stops trying: the
 * collector is blocked or unreachable. The stored events wait for the next page or `online`. */
const MAX_BLOCKED = 3;

export function transport(collector: string, canStore: () => boolean | undefined, log: (...a: unknown[]) => void) {
  const base = collector.replace(/\/*$/, '/');
  let buffer: WireEvent[] = [];
  let memory: WireEvent[] = [];
  let flushTimer: ReturnType<typeof setTimeout> | undefined;
  /** Set from scheduling a retry until its batch is answered: one stored batch in flight at a time. */
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let failures = 0;
  let blocked = 0;

  const load = (): WireEvent[] => {
    try {
      if (canStore()) return JSON.parse((localStorage[KEY] as string | undefined) || '[]') as WireEvent[];
    } catch {
      // unreadable or refused: the queue in memory
    }
    return memory;
  };
  const save = (q: WireEvent[]) => {
    memory = q.filter((e) => Date.now() - +e.cts < MAX_AGE).slice(-MAX_STORED);
    try {
      if (canStore()) localStorage[KEY] = JSON.stringify(memory);
    } catch {
      // full or refused: the queue in memory
    }
    return memory;
  };
  /** Drops the batch from the stored queue and, when it failed, appends it again. */
  const update = (batch: WireEvent[], failed: boolean) =>
    save(
      load()
        .filter((x) => !batch.some((e) => e.eid == x.eid))
        .concat(failed ? batch : []),
    );
  /** Exponential backoff, 0.5 s doubling to 60 s, with 10 % jitter. */
  const backoff = () => Math.min(60000, 500 * 2 ** failures++) * (0.9 + Math.random() / 5);

  /** Online and not blocked: worth a try. */
  const canTry = () => navigator.onLine && blocked < MAX_BLOCKED;
  const schedule = (ms: number) => {
    if (!retryTimer && canTry() && load().length) retryTimer = setTimeout(retry, ms);
  };
  const retry = () => {
    const q = save(load());
    if (q.length) post(q.slice(0, BATCH), true);
    else retryTimer = undefined;
  };

  function post(batch: WireEvent[], stored?: boolean) {
    if (!canTry()) return stored ? (retryTimer = undefined) : update(batch, true);
    if (!self.fetch)
      return batch.forEach(
        // eslint-disable-next-line @typescript-eslint/restrict-plus-operands -- `+` calls its toString; String() costs budget bytes
        (e) => (new Image().src = base + PIXEL_FILE + '?' + new URLSearchParams(e as Record<string, string>)),
      );
    log('send', batch);
    // In an async function so that a fetch that throws (a broken polyfill) counts as a network error.
    void (async () => fetch(base + BATCH_FILE, { method: 'POST', body: JSON.stringify(batch), keepalive: true }))()
      .then(
        (res) => {
          const s = res.status;
          const again = /408|429|^5/.test(s as unknown as string);
          const after = res.headers.get('Retry-After') as string;
          // Seconds, else an HTTP date; missing or unreadable: 0.
          const wait = (after as unknown as number) * 1000 || Date.parse(after) - Date.now() || 0;
          blocked = 0;
          if (!again) failures = 0;
          return again ? Math.max(wait, backoff()) : 0;
        },
        (err) => {
          log('send', err);
          blocked++;
          return backoff();
        },
      )
      // The wait before the next try: 0 when this batch went through.
      .then((ms) => {
        if (stored) retryTimer = undefined;
        update(batch, ms > 0);
        schedule(ms);
      });
  }

  const flush = () => {
    clearTimeout(flushTimer);
    flushTimer = undefined;
    while (buffer.length) post(buffer.splice(0, BATCH));
  };

  /** Page going away: hand what is buffered to the browser, which sends it after unload. */
  const leave = () => {
    clearTimeout(flushTimer);
    flushTimer = undefined;
    while (buffer.length) {
      const batch = buffer.splice(0, BATCH);
      let queued: boolean | undefined;
      try {
        // Offline, a beacon is accepted and then lost: store the batch instead.
        queued = navigator.onLine && navigator.sendBeacon(base + BATCH_FILE, JSON.stringify(batch));
      } catch {
        // refused: as below
      }
      // Refused (too big, quota) or offline: keep it for the next page. Missing: keepalive fetch.
      if (!queued) {
        if ((navigator as Partial<Navigator>).sendBeacon) update(batch, true);
        else post(batch);
      }
    }
  };

  addEventListener('online', () => ((blocked = 0), schedule(0)));
  addEventListener('pagehide', leave);
  addEventListener('visibilitychange', () => document.hidden && leave());
  schedule(0);

  return {
    send(e: WireEvent) {
      buffer.push(e);
      if (buffer.length >= BATCH) flush();
      else flushTimer ||= setTimeout(flush, WAIT);
    },
    /** Drops everything not yet handed to the network (do-not-track). */
    clear() {
      buffer = [];
      save([]);
    },
  };
}
