/** POST /webhooks: the platform's workflow webhooks, checked and handed to the site's code.
 *
 * 404 while no handler is registered (or there is no secret to check with); 401 for a call whose
 * signature does not match (forged, or changed on the way) or that is older than 5 minutes
 * (replayed); 200 without running the handlers again for an event id already handled; 500 when a
 * handler throws, so that the platform tries again later; 200 once every handler has resolved. */
import { WEBHOOK_HEADERS } from '@svc/protocol';
import type { Logger } from 'pino';
import { bodyBytes, WEBHOOK_LIMIT } from '../http/body';
import { HttpError, isObject } from '../http/errors';
import { json, type CoreRequest, type Reply } from '../http/exchange';
import type { SeenEvents } from './seen';
import { refusal } from './signature';

/** What a workflow's webhook step sends, with the call's event id and attempt number. */
export interface WorkflowEvent {
  /** X-Svc-Event-Id: the same on every attempt at one call. */
  id: string;
  type: 'workflow';
  /** Which attempt delivered it (1 for the first). */
  attempt: number;
  workflowId: number;
  vid: number;
  portalId: number;
  email: string | null;
  /** The contact's properties when the step ran. */
  properties: Record<string, string>;
  /** When the step ran (ms). */
  timestamp: number;
}

export type WebhookHandler = (event: WorkflowEvent) => unknown;

export interface Webhooks {
  /** Registers a handler; returns a function that removes it. */
  on(type: 'workflow', handler: WebhookHandler): () => void;
  off(type: 'workflow', handler: WebhookHandler): void;
}

export interface ReceiverOptions {
  /** The OAuth app's client secret the platform signs with; undefined: the route is off. */
  secret: string | undefined;
  /** The URL the platform calls, when this server cannot tell it from the request (behind a
   * proxy that changes the host or scheme); default: the request's own. */
  url?: string;
  seen: SeenEvents;
  now: () => number;
  logger?: Logger;
}

const num = (v: unknown) => typeof v == 'number' && Number.isFinite(v);

/** The body as a workflow event, or a 400 naming what is wrong. */
function workflowEvent(raw: string, id: string, attempt: number): WorkflowEvent {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    throw new HttpError(400, 'the request body is not valid JSON');
  }
  if (!isObject(body)) throw new HttpError(400, 'the request body must be a JSON object');
  for (const field of ['workflowId', 'vid', 'portalId', 'timestamp'] as const)
    if (!num(body[field])) throw new HttpError(400, `body.${field}: must be a number`);
  if (!isObject(body.properties)) throw new HttpError(400, 'body.properties: must be an object');
  return {
    id,
    type: 'workflow',
    attempt,
    workflowId: body.workflowId as number,
    vid: body.vid as number,
    portalId: body.portalId as number,
    email: typeof body.email == 'string' ? body.email : null,
    properties: body.properties as Record<string, string>,
    timestamp: body.timestamp as number,
  };
}

export function webhookReceiver(o: ReceiverOptions) {
  const handlers = new Set<WebhookHandler>();
  const api: Webhooks = {
    on(type, handler) {
      if (type != 'workflow')
        throw new TypeError(`webhooks.on: no "${String(type)}" webhooks; the platform sends "workflow" ones`);
      if (typeof handler != 'function') throw new TypeError('webhooks.on: the handler must be a function');
      handlers.add(handler);
      return () => api.off(type, handler);
    },
    off: (_type, handler) => void handlers.delete(handler),
  };

  async function route(req: CoreRequest): Promise<Reply> {
    if (!handlers.size)
      throw new HttpError(404, "no webhook handler: register one with companion.webhooks.on('workflow', handler)");
    if (!o.secret)
      throw new HttpError(
        404,
        'webhooks are off: no secret to check them with (OAuth credentials, or the webhooks.secret option)',
      );
    // The raw body, as received: the signature covers it byte for byte.
    const body = (await bodyBytes(req, WEBHOOK_LIMIT)).toString('utf8');
    const url = o.url ?? req.url;
    const why = refusal(
      {
        method: req.method,
        url,
        body,
        timestamp: req.header(WEBHOOK_HEADERS.timestamp),
        signature: req.header(WEBHOOK_HEADERS.signature),
      },
      o.secret,
      o.now(),
    );
    if (why) {
      o.logger?.warn({ webhook: 'refused' }, why);
      throw new HttpError(401, why);
    }
    const id = req.header(WEBHOOK_HEADERS.eventId) ?? '';
    if (!/^[\w-]{1,100}$/.test(id)) throw new HttpError(400, 'X-Svc-Event-Id is missing or malformed');
    const attempt = Number(req.header(WEBHOOK_HEADERS.attempt) ?? 1);
    const event = workflowEvent(body, id, Number.isSafeInteger(attempt) && attempt > 0 ? attempt : 1);

    const claim = await o.seen.claim(id);
    if (claim == 'handled') return json(200, { status: 'ok', duplicate: true });
    if (claim == 'busy')
      throw new HttpError(503, 'this event is being handled by another request; try again shortly', {
        'retry-after': '5',
      });
    try {
      for (const handler of [...handlers]) await handler(event);
    } catch (err) {
      await o.seen.release(id).catch(() => undefined);
      // The handler's own message may hold personal data: its name only.
      o.logger?.error(
        { err: { name: err instanceof Error ? err.name : typeof err }, webhook: 'handler-failed' },
        'a webhook handler threw; answered 500 so that the platform tries again',
      );
      throw new HttpError(500, 'the webhook handler failed; the platform will try again');
    }
    await o.seen.done(id);
    return json(200, { status: 'ok' });
  }

  return { api, route };
}
