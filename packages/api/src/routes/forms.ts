/** §4.6 Forms: definitions on {base_url}, submissions on {forms_url}. */
import { FORM_SUBMIT_PATH } from '@svc/protocol';
import { z } from 'zod';
import { route } from '../route';
import { form, formField, formWrite } from '../schemas/form';

const SCOPES = ['forms'];
// Any string: an unknown guid is a 404 from the platform, as in the legacy API.
const guid = z.string().min(1).max(100);
const formGuid = z.object({ form_guid: guid });

export const formRoutes = {
  'forms.submit': route({
    id: 'forms.submit',
    idParam: 'form_guid', // the portal id only says whose form it is
    method: 'POST',
    path: FORM_SUBMIT_PATH,
    host: 'forms',
    summary:
      'Submit a form (urlencoded fields + svc_context JSON): 204, or 302 to the redirect URL; ' +
      'creates or updates the contact by email and links the visitor utk',
    auth: ['none'],
    redirects: true,
    params: z.object({
      portal_id: z
        .string()
        .regex(/^\d{1,15}$/, 'must be a portal id')
        .transform(Number),
      form_guid: guid,
    }),
    bodyType: 'urlencoded',
    body: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
  }),
  'forms.list': route({
    id: 'forms.list',
    method: 'GET',
    path: '/contacts/v1/forms',
    summary: 'All forms',
    scopes: SCOPES,
    response: z.array(form),
  }),
  'forms.get': route({
    id: 'forms.get',
    method: 'GET',
    path: '/contacts/v1/forms/:form_guid',
    summary: 'One form',
    scopes: SCOPES,
    params: formGuid,
    response: form,
  }),
  'forms.create': route({
    id: 'forms.create',
    method: 'POST',
    path: '/contacts/v1/forms',
    summary: 'Create a form',
    scopes: SCOPES,
    body: formWrite,
    response: form,
  }),
  'forms.update': route({
    id: 'forms.update',
    retry: 'safe',
    method: 'POST',
    path: '/contacts/v1/forms/:form_guid',
    summary: 'Update a form (fields given replace the fields)',
    scopes: SCOPES,
    params: formGuid,
    body: formWrite.partial(),
    response: form,
  }),
  'forms.delete': route({
    id: 'forms.delete',
    method: 'DELETE',
    path: '/contacts/v1/forms/:form_guid',
    summary: 'Delete a form',
    scopes: SCOPES,
    params: formGuid,
  }),
  'forms.getFields': route({
    id: 'forms.getFields',
    method: 'GET',
    path: '/contacts/v1/fields/:form_guid',
    summary: 'All fields of a form',
    scopes: SCOPES,
    params: formGuid,
    response: z.array(formField),
  }),
  'forms.getField': route({
    id: 'forms.getField',
    method: 'GET',
    path: '/contacts/v1/fields/:form_guid/:field_name',
    summary: 'One field of a form',
    scopes: SCOPES,
    params: z.object({ form_guid: guid, field_name: z.string().min(1).max(100) }),
    response: formField,
  }),
};
