/** Sends the queued webhook calls (store/webhook-queue.ts): signs each attempt, makes it outside any
 * transaction, and settles it in one: delivered, another attempt later (retry policy in
 * domain/webhook-retry.ts), or failed for good. What each attempt came to goes to `settled`
 * (the workflow log, and the enrollment moving on after a final one).
 *
 * Calls run side by side, up to `concurrency` in this process: a receiver that is slow or down
 * holds back its own deliveries only, and the workflow engine's steps run on a timer of their
 * own, so it holds back no enrollment either. */
import { createHmac } from 'node:crypto';
import { WEBHOOK_HEADERS, webhookSignatureBase } from '@svc/protocol';
import type { Queryable } from '../db/engine';
import {
  type AttemptResult,
  delivered,
  describeResult,
  parseRetryAfter,
  type RetryPolicy,
  retryable,
  retryDelay,
} from '../domain/webhook-retry';
import type { Delivery, WebhookQueue } from '../store/webhook-queue';

/** What one attempt came to, as the log tells it. */
export interface Settlement {
  kind: 'delivered' | 'retry' | 'failed';
  detail: string;
}

export interface SenderDeps {
  queue: WebhookQueue;
  /** Where reads run (the engine). */
  db: Queryable;
  policy: RetryPolicy;
  fetchFn: typeof fetch;
  now: () => number;
  /** In [0, 1): the jitter of the waits. */
  random?: () => number;
  /** Runs a settlement's transaction. */
  write: <T>(fn: (t: Queryable) => Promise<T>) => Promise<T>;
  /** Records a settlement in its transaction. */
  settled: (t: Queryable, d: Delivery, s: Settlement) => Promise<void>;
  /** Calls in flight at once in this process. */
  concurrency?: number;
  /** Where the sender's own failures go (the database unreachable): the claim then runs out and
   * the attempt is made again. */
  onError?: (err: unknown) => void;
}

/** X-Svc-Signature-v3: base64 of HMAC-SHA256 keyed with the app's client secret. */
export const signWebhook = (secret: string, method: string, url: string, body: string, timestamp: string) =>
  createHmac('sha256', secret)
    .update(webhookSignatureBase(method, url, body, timestamp), 'utf8')
    .digest('base64');

/** How long a claimed delivery is this process's: far longer than an attempt takes. */
export const DELIVERY_LEASE_MS = 60_000;
const CLAIM_BATCH = 50;

const seconds = (ms: number) =>
  ms < 10_000
    ? `${(ms / 1000).toFixed(1)} s`
    : ms < 7_200_000
      ? `${Math.round(ms / 1000)} s`
      : `${Math.round(ms / 3_600_000)} h`;

export function webhookSender({
  queue,
  db,
  policy,
  fetchFn,
  now,
  random = Math.random,
  write,
  settled,
  concurrency = 10,
  onError = console.error,
}: SenderDeps) {
  /** One HTTP attempt, signed with `secret`. */
  async function call(d: Delivery, secret: string): Promise<AttemptResult> {
    const timestamp = String(now());
    const body = d.method == 'POST' ? d.body : '';
    const headers: Record<string, string> = {
      [WEBHOOK_HEADERS.timestamp]: timestamp,
      [WEBHOOK_HEADERS.signature]: signWebhook(secret, d.method, d.url, body, timestamp),
      [WEBHOOK_HEADERS.eventId]: d.event_id,
      [WEBHOOK_HEADERS.attempt]: String(d.attempts + 1),
      'user-agent': 'svc-platform-webhooks/1',
    };
    if (d.method == 'POST') headers['content-type'] = 'application/json';
    try {
      // Redirects are not followed: the signature covers this URL, not another.
      const res = await fetchFn(d.url, {
        method: d.method,
        headers,
        body: d.method == 'POST' ? body : undefined,
        redirect: 'manual',
        signal: AbortSignal.timeout(policy.timeoutMs),
      });
      await res.body?.cancel(); // releases the connection: the answer's body is not used
      return {
        kind: 'answered',
        status: res.status,
        retryAfterMs: res.status == 429 ? parseRetryAfter(res.headers.get('retry-after'), now()) : undefined,
      };
    } catch (err) {
      const e = err as Error & { cause?: { code?: string } };
      if (e.name == 'TimeoutError' || e.name == 'AbortError') return { kind: 'timeout' };
      return { kind: 'network', message: e.cause?.code ? `${e.message} (${e.cause.code})` : e.message };
    }
  }

  /** What to record after attempt number `attempts` came to `result`. */
  function decide(d: Delivery, attempts: number, result: AttemptResult): Settlement & { nextAt?: number } {
    const what = `${d.method} ${d.url} ${describeResult(result)} (attempt ${attempts}, event ${d.event_id})`;
    if (delivered(result)) return { kind: 'delivered', detail: what };
    if (!retryable(result)) return { kind: 'failed', detail: `${what}; refused for good` };
    const wait = retryDelay(policy, attempts, result, random());
    const nextAt = now() + wait;
    if (nextAt > d.created_at + policy.retryForMs)
      return {
        kind: 'failed',
        detail: `${what}; given up after ${attempts} attempts over ${seconds(now() - d.created_at)}`,
      };
    return { kind: 'retry', detail: `${what}; next attempt in ${seconds(wait)}`, nextAt };
  }

  /** Makes one attempt at a claimed delivery and records it, unless the claim was lost meanwhile. */
  async function runOne(d: Delivery) {
    const attempts = d.attempts + 1;
    const key = await queue.signingKey(db, d.portal_id, d.client_id);
    const s: Settlement & { nextAt?: number } = key
      ? decide(d, attempts, await call(d, key.secret))
      : {
          kind: 'failed',
          detail: `${d.method} ${d.url} not sent (event ${d.event_id}): ${d.client_id ? `no OAuth app ${d.client_id}` : 'the portal has no OAuth app'} whose client secret could sign it`,
        };
    await write(async (t) => {
      const kept =
        s.kind == 'retry'
          ? await queue.retry(t, d, attempts, s.nextAt!, s.detail)
          : await queue.finish(t, d, s.kind == 'delivered' ? 'delivered' : 'failed', attempts, s.detail);
      if (kept) await settled(t, d, { kind: s.kind, detail: s.detail });
    });
  }

  const running = new Set<Promise<void>>();
  function track(d: Delivery) {
    const p = runOne(d)
      .catch(onError)
      .finally(() => {
        running.delete(p);
        if (timer) void pump(); // a freed slot takes the next due delivery at once
      });
    running.add(p);
    return p;
  }

  let pumping = false;
  /** Claims as many due deliveries as there are free slots and starts them, without waiting. */
  async function pump() {
    if (pumping) return;
    pumping = true;
    try {
      const free = concurrency - running.size;
      if (free <= 0) return;
      const at = now();
      // Started, not awaited: each attempt settles on its own (its errors go to onError).
      for (const d of await queue.claim(at, at + DELIVERY_LEASE_MS, free)) void track(d);
    } catch (err) {
      onError(err);
    } finally {
      pumping = false;
    }
  }

  let timer: NodeJS.Timeout | undefined;
  return {
    /** Makes every attempt due now and waits for them, and for those in flight (tests, the clock's
     * advance); resolves to how many were made. */
    async runDue() {
      // The attempts the timer started first: a moved clock's passes answer after them too.
      let made = running.size;
      while (running.size) await Promise.all(running);
      for (;;) {
        const at = now();
        const claimed = await queue.claim(at, at + DELIVERY_LEASE_MS, CLAIM_BATCH);
        await Promise.all(claimed.map(track));
        made += claimed.length;
        if (claimed.length < CLAIM_BATCH) return made;
      }
    },
    /** Something was queued: with the timer running, its first attempt starts now, not at the
     * next tick. */
    kick: () => void (timer && pump()),
    start(intervalMs = 1000) {
      if (timer) return;
      timer = setInterval(() => void pump(), intervalMs);
      timer.unref();
    },
    /** Stops taking deliveries; resolves once the attempts in flight are recorded. */
    async stop() {
      clearInterval(timer);
      timer = undefined;
      while (running.size) await Promise.all(running);
    },
  };
}

export type WebhookSender = ReturnType<typeof webhookSender>;
