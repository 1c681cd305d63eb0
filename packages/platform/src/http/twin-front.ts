/** In front of each server's handler when the admin API is on (app.ts): every request but the
 * admin API's own is written to the journal once answered, and may meet a fault, before the
 * collector, the form submissions' handler or Express see it. With the admin API off none of
 * this runs. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { errorBody } from './errors';
import { answerFault } from './fault-answers';
import { ADMIN_KEY_HEADER, FAULT_HEADER, parseFaultHeader } from './fault-header';
import type { FaultEffect, FaultRules } from './faults';
import type { RequestJournal } from './journal';
import { redactedPath } from './journal';
import type { RateLimitOptions } from './rate-limit';
import type { FoundRoute } from './route-ids';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface TwinFrontDeps {
  faults: FaultRules;
  journal: RequestJournal;
  /** The catalog route a request is (http/route-ids.ts). */
  findRoute: (method: string | undefined, path: string) => FoundRoute | undefined;
  /** The portal authentication found for the request, once it ran (app.ts notes it). */
  callerPortal: (req: IncomingMessage) => number | undefined;
  /** The portal a request's credentials name, read from the database (for a rule with a portal). */
  credentialPortal: (req: IncomingMessage) => Promise<number | undefined>;
  isAdminKey: (given: string | undefined) => boolean;
  rateLimit: RateLimitOptions;
  now: () => number;
}

/** A portal named by the path (`/submissions/v3/integration/submit/:portalId/…`). */
function pathPortal(found: FoundRoute | undefined) {
  const raw = found?.params.portalId ?? found?.params.portal_id ?? found?.params.portalid;
  const n = Number(raw);
  return raw !== undefined && Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function refuse(res: ServerResponse, status: number, message: string) {
  const body = JSON.stringify(errorBody(message, { category: 'VALIDATION_ERROR' }));
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(body);
}

export function twinFront(server: 'base' | 'forms', deps: TwinFrontDeps) {
  return (next: Handler): Handler =>
    (req, res) => {
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const path = q < 0 ? url : url.slice(0, q);
      // The admin API is never faulted nor journaled (its calls are the test's, not the site's).
      if (server == 'base' && (path == '/_admin' || path.startsWith('/_admin/'))) return next(req, res);
      const started = performance.now();
      const found = deps.findRoute(req.method, path);
      let fault: string | undefined;
      let dropped = false;
      res.once('close', () =>
        deps.journal.record({
          at: deps.now(),
          server,
          method: req.method ?? '',
          path: redactedPath(url),
          route: found?.id ?? null,
          portalId: deps.callerPortal(req) ?? pathPortal(found) ?? null,
          status: dropped || !res.headersSent ? null : res.statusCode,
          durationMs: Math.round((performance.now() - started) * 10) / 10,
          ...(fault && { fault }),
        }),
      );

      const header = req.headers[FAULT_HEADER];
      if (header !== undefined) {
        const key = req.headers[ADMIN_KEY_HEADER];
        if (!deps.isAdminKey(typeof key == 'string' ? key : undefined))
          return refuse(
            res,
            403,
            "X-Svc-Fault is the admin API's: send the admin key in X-Svc-Admin-Key with it (a portal's credential does not do)",
          );
        let effect: FaultEffect;
        try {
          effect = parseFaultHeader(String(header));
        } catch (err) {
          return refuse(res, 400, (err as Error).message);
        }
        return apply(effect);
      }
      if (!deps.faults.size) return next(req, res);
      deps.faults
        .pick({
          method: req.method ?? '',
          path,
          route: found?.id,
          portalId: async () => pathPortal(found) ?? (await deps.credentialPortal(req)),
        })
        .then(
          (effect) => (effect ? apply(effect) : next(req, res)),
          () => next(req, res),
        );

      function apply(effect: FaultEffect) {
        fault = effect.id;
        const act = () => {
          if (effect.drop) {
            dropped = true;
            req.socket.destroy();
          } else if (effect.status !== undefined)
            answerFault(res, effect.status, effect.retryAfter, deps.rateLimit, effect.id);
          else next(req, res);
        };
        if (effect.latencyMs > 0) void sleep(effect.latencyMs).then(act);
        else act();
      }
    };
}
