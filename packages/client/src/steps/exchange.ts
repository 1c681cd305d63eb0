/** The innermost send: one HTTP exchange over undici, the body read in full, bounded by a
 * timeout per attempt (the call's, else the client's) and the caller's signal. A timeout or a
 * network error is an answer with no status, for the retry step to judge; an abort ends the call. */
import { request, type Dispatcher } from 'undici';
import { aborted, type Send } from './step';

export interface ExchangePolicy {
  timeoutMs: number;
  dispatcher?: Dispatcher;
}

const TIMED_OUT = Symbol('timed out');

export const exchange =
  ({ timeoutMs, dispatcher }: ExchangePolicy): Send =>
  async (req) => {
    const ms = req.options.timeoutMs ?? timeoutMs;
    const signal = req.options.signal;
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(TIMED_OUT), ms);
    const onAbort = () => ac.abort(signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const res = await request(req.url, {
        method: req.route.method,
        headers: req.headers,
        body: req.body,
        signal: ac.signal,
        dispatcher,
      });
      const bytes = Buffer.from(await res.body.arrayBuffer());
      return { status: res.statusCode, headers: res.headers, bytes };
    } catch (err) {
      if (signal?.aborted) throw aborted(req);
      if (ac.signal.reason === TIMED_OUT) return { status: 0, failure: 'TIMEOUT', reason: `timed out after ${ms} ms` };
      const e = err as Error & { code?: string };
      return { status: 0, failure: 'NETWORK_ERROR', reason: e.code ? `${e.code}: ${e.message}` : e.message };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  };
