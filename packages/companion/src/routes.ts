/** Every route of the companion, once: method, path below the mount, handler. Both doors serve this
 * one table through the same pipeline (http/pipeline.ts); the README's Routes section describes it. */
import { BATCH_FILE, COLLECT_PATH, PIXEL_FILE } from '@svc/protocol';
import { HttpError } from './http/errors';
import type { CoreRequest } from './http/exchange';
import type { Handler, Params, Route } from './http/router';
import type { bundle } from './proxy/assets';
import type { collector } from './proxy/collector';
import type { preferencePage } from './subscriptions/page';
import type { subscriptions } from './subscriptions/routes';
import type { Forms } from './forms';
import type { Visitors } from './visitor';

export interface RouteParts {
  visitors: Visitors;
  forms: Forms;
  formVisitor: Handler;
  health: Handler;
  subscriptions: ReturnType<typeof subscriptions>;
  page: ReturnType<typeof preferencePage>;
  events: Handler;
  webhooks: Handler;
  tracker: ReturnType<typeof bundle>;
  formsJs: ReturnType<typeof bundle>;
  collector: ReturnType<typeof collector>;
}

export function routeTable(p: RouteParts): Route[] {
  /** `tracker.<hash>.js` and `forms.<hash>.js`, the versioned paths `companion.scripts()` names. */
  const versioned = (req: CoreRequest, { script, hash }: Params) => {
    if (script == 'tracker') return p.tracker.serve(req, hash);
    if (script == 'forms') return p.formsJs.serve(req, hash);
    throw new HttpError(404, `no script ${script.slice(0, 40)}.js here`);
  };
  return [
    { method: 'GET', path: '/visitor', handler: (req) => p.visitors.route(req) },
    { method: 'GET', path: '/forms/:guid', handler: p.forms.route },
    { method: 'GET', path: '/forms/:guid/visitor', handler: p.formVisitor },
    { method: 'GET', path: '/healthz', handler: p.health },

    { method: 'GET', path: '/subscriptions', handler: (req) => p.subscriptions.get(req) },
    { method: 'PUT', path: '/subscriptions', handler: (req) => p.subscriptions.put(req) },
    { method: 'GET', path: '/preferences', handler: p.page.html },
    { method: 'GET', path: '/preferences.js', handler: p.page.js },
    { method: 'GET', path: '/preferences.css', handler: p.page.css },

    { method: 'POST', path: '/events', handler: p.events },
    { method: 'POST', path: '/webhooks', handler: p.webhooks },

    { method: 'GET', path: '/tracker.js', handler: (req) => p.tracker.serve(req) },
    { method: 'GET', path: '/forms.js', handler: (req) => p.formsJs.serve(req) },
    { method: 'GET', path: '/:script.:hash.js', handler: versioned },
    // The tracker with data-collector="<mount>" sends to <mount>/e and <mount>/p.gif; /collect/...
    // mirrors the platform's own paths.
    ...['', COLLECT_PATH].flatMap((prefix): Route[] => [
      { method: 'POST', path: `${prefix}/${BATCH_FILE}`, handler: p.collector.batch },
      { method: 'GET', path: `${prefix}/${PIXEL_FILE}`, handler: p.collector.pixel },
    ]),
  ];
}
