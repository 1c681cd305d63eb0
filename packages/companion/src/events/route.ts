/** `POST /events`: server-side events from other backends. Off (404) without `events.secret`; the
 * secret comes as `Authorization: Bearer <secret>` (compared in constant time) and is checked before
 * the body is read. One event, or `{"events": [...]}` with 1 to 100, all checked before any is
 * accepted; 202 `{accepted, ids}` once they are stored. */
import { isJson, jsonBody } from '../http/body';
import { HttpError, timingSafeSecret } from '../http/errors';
import { json, type CoreRequest, type Reply } from '../http/exchange';
import type { EventQueue } from './queue';

export function eventsRoute(events: Pick<EventQueue, 'accept'>, secret: string | undefined) {
  return async (req: CoreRequest): Promise<Reply> => {
    if (!secret) throw new HttpError(404, 'POST /events is off: set events.secret to let other backends send events');
    const auth = req.header('authorization') ?? '';
    if (!auth.startsWith('Bearer ') || !timingSafeSecret(auth.slice(7), secret))
      throw new HttpError(401, 'send the shared secret as Authorization: Bearer <secret>');
    const body = await jsonBody(req);
    if (!isJson(req)) throw new HttpError(415, 'send events as application/json');
    const list = body && typeof body == 'object' && 'events' in body ? body.events : [body];
    if (!Array.isArray(list) || list.length == 0 || list.length > 100)
      throw new HttpError(400, 'events: send one event, or {"events": [...]} with 1 to 100');
    const { ids } = await events.accept(list);
    return json(202, { accepted: ids.length, ids });
  };
}
