/** A fake collector for the tracker the React bindings start in jsdom: every batch the tracker
 * sends, by `fetch` or by `sendBeacon`, is caught here. */
import { vi } from 'vitest';

export type WireEvent = Record<string, string>;

export function fakeCollector() {
  const events: WireEvent[] = [];
  // The tracker sends its batches as JSON text.
  globalThis.fetch = vi.fn((_url: RequestInfo | URL, init?: RequestInit) => {
    events.push(...(JSON.parse(init!.body as string) as WireEvent[]));
    return Promise.resolve(new Response(null, { status: 204 }));
  });
  navigator.sendBeacon = (_url: string | URL, body?: BodyInit | null) => {
    events.push(...(JSON.parse(body as string) as WireEvent[]));
    return true;
  };
  return {
    /** What the collector has received since the last call: the tracker's buffer is handed over at
     * once, as when the page goes away (`pagehide`), so no batch waits for its 5 s. */
    received() {
      dispatchEvent(new Event('pagehide'));
      return events.splice(0);
    },
  };
}

/** The page views among events, as `[path, previous path]`. */
export const views = (events: WireEvent[]) => events.filter((e) => e.k == '1').map((e) => [e.po, e.rpo]);

/** jsdom fires `popstate` for `history.back()` in a later task. */
export const popstate = () => new Promise((resolve) => addEventListener('popstate', resolve, { once: true }));
