/** The HTTP events API (enterprise custom events sent by a server): a GET pixel and a JSON POST,
 * each one custom event through tracking intake like the tracker's. */
import { randomUUID } from 'node:crypto';
import { badRequest, PlatformError } from '../domain/errors';
import type { Services } from '../services';
import type { Intake } from '../services/tracking-intake';
import { GIF } from './gif';
import { Reply, type Handlers } from './handler';

/** Identify by email or by a visitor token; at least one is needed. */
function who(email?: string, utk?: string) {
  if (!email && !utk) throw badRequest('give email or utk to say whom the event is about');
}

/** A refused event as the API answers it; a repeat (the same `id`) is accepted again. */
function answer(outcome: Intake) {
  if (outcome.kept || outcome.reason == 'duplicate') return;
  if (outcome.reason == 'tier-required') throw new PlatformError('forbidden', outcome.message, { category: 'TIER_REQUIRED' });
  throw new PlatformError(outcome.reason == 'unknown-portal' ? 'not-found' : 'invalid', outcome.message);
}

const strings = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => typeof v == 'string' || typeof v == 'number' || typeof v == 'boolean').map(([k, v]) => [k, String(v)]));

export function eventHandlers({ intake, now }: Services): Handlers {
  const newEid = () => randomUUID().replace(/-/g, '');
  return {
    'events.trigger': ({ query }) => {
      const { _n, _a, _m, email, utk, id, ...rest } = query;
      who(email, utk);
      answer(
        intake.accept({
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
      return new Reply(200, GIF, { 'Content-Type': 'image/gif', 'Cache-Control': 'no-store' });
    },

    'events.send': ({ portalId, body }) => {
      who(body.email, body.utk);
      answer(
        intake.accept({
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
