/** §4.5 Workflows. */
import { z } from 'zod';
import { numericId } from '../common';
import { route } from '../route';
import { logEvent, workflow, workflowWrite } from '../schemas/workflow';

const SCOPES = ['automation'];
const workflowId = numericId;
const enrollment = z.object({ workflowId, email: z.string().min(3).max(254) });
const logEvents = z.object({ workflowId, vid: numericId });

export const workflowRoutes = {
  'workflows.list': route({
    id: 'workflows.list',
    method: 'GET',
    path: '/automation/v2/workflows',
    summary: 'All workflows that are not deleted',
    scopes: SCOPES,
    response: z.object({ workflows: z.array(workflow) }),
  }),
  'workflows.get': route({
    id: 'workflows.get',
    method: 'GET',
    path: '/automation/v2/workflows/:workflowId',
    summary: 'One workflow (404 once deleted)',
    scopes: SCOPES,
    params: z.object({ workflowId }),
    response: workflow,
  }),
  'workflows.create': route({
    id: 'workflows.create',
    method: 'POST',
    path: '/automation/v2/workflows',
    summary: 'Create a workflow with its actions (DELAY, SET_CONTACT_PROPERTY, ADD_TO_LIST, EMAIL, WEBHOOK)',
    scopes: SCOPES,
    body: workflowWrite,
    response: workflow,
  }),
  'workflows.delete': route({
    id: 'workflows.delete',
    method: 'DELETE',
    path: '/automation/v2/workflows/:workflowId',
    summary: 'Delete a workflow (its enrollments end)',
    scopes: SCOPES,
    params: z.object({ workflowId }),
  }),
  'workflows.enroll': route({
    id: 'workflows.enroll',
    method: 'POST',
    path: '/automation/v2/workflows/:workflowId/enrollments/contacts/:email',
    summary: 'Enroll the contact with this email (404 unknown, 412 disabled or already enrolled)',
    scopes: SCOPES,
    params: enrollment,
  }),
  'workflows.unenroll': route({
    id: 'workflows.unenroll',
    method: 'DELETE',
    path: '/automation/v2/workflows/:workflowId/enrollments/contacts/:email',
    summary: 'Unenroll the contact with this email',
    scopes: SCOPES,
    params: enrollment,
  }),
  'workflows.currentEnrollments': route({
    id: 'workflows.currentEnrollments',
    resource: 'contacts', // the enrollments of one contact
    method: 'GET',
    path: '/automation/v2/workflows/enrollments/contacts/:vid',
    summary: 'Workflows the contact is currently enrolled in',
    scopes: SCOPES,
    params: z.object({ vid: numericId }),
    response: z.array(workflow),
  }),
  'workflows.pastEvents': route({
    id: 'workflows.pastEvents',
    method: 'GET',
    path: '/automation/v2/workflows/:workflowId/logevents/contacts/:vid/past',
    summary: 'What the workflow did for the contact, newest first',
    scopes: SCOPES,
    params: logEvents,
    response: z.array(logEvent),
  }),
  'workflows.upcomingEvents': route({
    id: 'workflows.upcomingEvents',
    method: 'GET',
    path: '/automation/v2/workflows/:workflowId/logevents/contacts/:vid/upcoming',
    summary: 'What the workflow will do for the contact, soonest first',
    scopes: SCOPES,
    params: logEvents,
    response: z.array(logEvent),
  }),
};
