/** The HTTP events API (enterprise custom events sent by a server): a GET pixel and a JSON POST,
 * each one custom event through tracking intake like the tracker's. */
import { randomUUID } from 'node:crypto';
import { badRequest } from '../domain/errors';
import type { Services } from '../services/wiring';
import { refusalOf, type Intake } from '../services/tracking-intake';
import { gifReply } from './gif';
import type { Handlers } from './handler';

/** Identify by email or by a visitor token; at least one is needed. */
function who(email?: string, utk?: string) {
  if (!email && !utk) throw badRequest('give email or utk to say whom the event is about');
}

/** A refused event as the API answers it; a repeat (the same `id`) is accepted again. */
function answer(outcome: Intake) {
  const refused = refusalOf(outcome);
  if (refused) throw refused;
}

const strings = (o: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(o)
      .filter(([, v]) => typeof v == 'string' || typeof v == 'number' || typeof v == 'boolean')
      .map(([k, v]) => [k, String(v)]),
  );

export function eventHandlers({ intake, now }: Services): Handlers {
  const newEid = () => randomUUID().replace(/-/g, '');
  return {
    'events.trigger': async ({ db, query }) => {
      const { _n, _a, _m, email, utk, id, ...rest } = query;
      who(email, utk);
      answer(
        await intake.accept(db, {
          eid: newEid(),
          portalId: _a,
          kind: 3,
          utk,
          timestamp: now(),
          source: 'events-get',
          name: _n,
          value: _m,
          externalId: id,
          contact: { ...strings(rest), ...(email ? { email } : {}) },
          received: query,
        }),
      );
      return gifReply();
    },

    'events.send': async ({ db, portalId, body }) => {
      who(body.email, body.utk);
      answer(
        await intake.accept(db, {
          // The caller's id makes retries idempotent.
          eid: body.id ? `api:${body.id}` : newEid(),
          portalId,
          kind: 3,
          utk: body.utk,
          timestamp: body.occurredAt ?? now(),
          source: 'events-post',
          name: body.eventName,
          value: body.value,
          externalId: body.id,
          contact: { ...strings(body.properties ?? {}), ...(body.email ? { email: body.email } : {}) },
          received: body,
        }),
      );
    },
  };
}
