/** Every handler, by catalog route id. */
import type { Handlers } from './handler';
import type { Services } from '../services';
import { blogV1Handlers } from './blog-v1';
import { contactHandlers } from './contacts';
import { contentHandlers } from './content';
import { emailHandlers } from './email';
import { fileHandlers } from './files';
import { formHandlers, type SubmissionLog } from './forms';
import { listHandlers } from './lists';
import { miscHandlers } from './misc';
import { collectHandlers } from './collect';
import { eventHandlers } from './events';
import { eventOccurrenceHandlers } from './event-occurrences';
import { platformHandlers } from './platform';
import { prospectHandlers } from './prospects';
import { propertyHandlers } from './properties';
import { workflowHandlers } from './workflows';

/** `log`: where what the handlers let pass but a person should know of is told (form submissions'
 * ignored context). */
export function allHandlers(services: Services, log?: SubmissionLog): Handlers {
  return {
    ...contactHandlers(services),
    ...propertyHandlers(services),
    ...listHandlers(services),
    ...formHandlers(services, log),
    ...emailHandlers(services),
    ...workflowHandlers(services),
    ...platformHandlers(services),
    ...eventHandlers(services),
    ...eventOccurrenceHandlers(services),
    ...collectHandlers(services),
    ...contentHandlers(services),
    // After the generic content handlers: files and folders replace some of them.
    ...fileHandlers(services),
    ...blogV1Handlers(services),
    ...miscHandlers(services),
    ...prospectHandlers(services),
  };
}
