/** The parts of the twin that live beside the servers when the admin API is on: the fault
 * rules, the request journal, and the front that applies both to every request
 * (http/twin-front.ts), with what it needs to know of a request's portal. app.ts builds them once. */
import type { IncomingMessage, RequestListener } from 'node:http';
import type { RouteDef } from '@svc/api';
import { adminKeyCheck } from './admin/guard';
import type { CallerRequest } from './http/catalog-call';
import { faultRules } from './http/faults';
import { requestJournal } from './http/journal';
import type { RateLimitOptions } from './http/rate-limit';
import { routeFinder } from './http/route-ids';
import { twinFront } from './http/twin-front';
import type { Caller } from './handlers/handler';
import type { Services } from './services/wiring';

/** The credential a request carries: the bearer token, `access_token` or `hapikey`. */
function credentialOf(req: IncomingMessage): string | undefined {
  const bearer = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  if (bearer) return bearer;
  const query = new URLSearchParams((req.url ?? '').split('?')[1] ?? '');
  return query.get('access_token') ?? query.get('hapikey') ?? undefined;
}

export function twinParts(adminKey: string, journalSize: number | undefined, services: Services) {
  const faults = faultRules();
  const journal = requestJournal(journalSize);
  /** The portal authentication found, by the request's headers object (the same object from
   * the front to the catalog call, whatever copies of the request are made on the way). */
  const callers = new WeakMap<object, number>();
  const finders = { base: routeFinder('base'), forms: routeFinder('forms') };
  return {
    faults,
    journal,
    /** `authenticate`, noting each caller's portal for the journal. */
    noting:
      (authenticate: (req: CallerRequest, route: RouteDef) => Promise<Caller>) =>
      async (req: CallerRequest, route: RouteDef) => {
        const caller = await authenticate(req, route);
        if (caller.portalId !== undefined) callers.set(req.headers, caller.portalId);
        return caller;
      },
    front: (server: 'base' | 'forms', rateLimit: RateLimitOptions, now: () => number) => {
      const wrap = twinFront(server, {
        faults,
        journal,
        findRoute: finders[server],
        callerPortal: (req) => callers.get(req.headers),
        credentialPortal: async (req) => {
          const credential = credentialOf(req);
          const row = credential ? await services.credentials.find(services.engine, credential) : undefined;
          return row && !row.revoked ? Number(row.portal_id) : undefined;
        },
        isAdminKey: adminKeyCheck(adminKey),
        rateLimit,
        now,
      });
      return (handler: RequestListener) => wrap(handler);
    },
  };
}
