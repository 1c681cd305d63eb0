/** §4.5 Workflows. The engine that runs the steps is not a route: it runs on a timer (and tests
 * call `services.workflows.runDue()`). */
import type { Handlers } from './handler';
import type { Services } from '../services';

export function workflowHandlers({ workflows }: Services): Handlers {
  return {
    'workflows.list': ({ portalId }) => ({ workflows: workflows.list(portalId) }),
    'workflows.get': ({ portalId, params }) => workflows.get(portalId, params.workflowId),
    'workflows.create': ({ db, portalId, body }) => workflows.create(db, portalId, body),
    'workflows.delete': ({ portalId, params }) => workflows.remove(portalId, params.workflowId),
    'workflows.enroll': ({ portalId, params }) => workflows.enroll(portalId, params.workflowId, params.email),
    'workflows.unenroll': ({ portalId, params }) => workflows.unenroll(portalId, params.workflowId, params.email),
    'workflows.currentEnrollments': ({ portalId, params }) => workflows.currentEnrollments(portalId, params.vid),
    'workflows.pastEvents': ({ portalId, params }) => workflows.pastEvents(portalId, params.workflowId, params.vid),
    'workflows.upcomingEvents': ({ portalId, params }) => workflows.upcomingEvents(portalId, params.workflowId, params.vid),
  };
}
