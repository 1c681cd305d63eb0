/** §4.5 Workflows. The engine that runs the steps is not a route: it runs on a timer (and tests
 * call `services.workflows.runDue()`). */
import type { Handlers } from './handler';
import type { Services } from '../services/wiring';

export function workflowHandlers({ workflows }: Services): Handlers {
  return {
    'workflows.list': async ({ db, portalId }) => ({ workflows: await workflows.list(db, portalId) }),
    'workflows.get': ({ db, portalId, params }) => workflows.get(db, portalId, params.workflowId),
    'workflows.create': ({ db, portalId, body }) => workflows.create(db, portalId, body),
    'workflows.delete': ({ db, portalId, params }) => workflows.remove(db, portalId, params.workflowId),
    'workflows.enroll': ({ db, portalId, params }) => workflows.enroll(db, portalId, params.workflowId, params.email),
    'workflows.unenroll': ({ db, portalId, params }) =>
      workflows.unenroll(db, portalId, params.workflowId, params.email),
    'workflows.currentEnrollments': ({ db, portalId, params }) =>
      workflows.currentEnrollments(db, portalId, params.vid),
    'workflows.pastEvents': ({ db, portalId, params }) =>
      workflows.pastEvents(db, portalId, params.workflowId, params.vid),
    'workflows.upcomingEvents': ({ db, portalId, params }) =>
      workflows.upcomingEvents(db, portalId, params.workflowId, params.vid),
  };
}
