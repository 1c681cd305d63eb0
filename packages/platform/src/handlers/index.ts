/** Every handler, by catalog route id. */
import type { Handlers } from './handler';
import type { Services } from '../services/wiring';
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

/** Handler groups merged into one table; a route id handled twice is an error at start (a later
 * group silently winning would hide a mistake). */
export function combine(groups: Record<string, Handlers>): Handlers {
  const all: Handlers = {};
  const owner = new Map<string, string>();
  for (const [group, handlers] of Object.entries(groups))
    for (const [id, handler] of Object.entries(handlers)) {
      const first = owner.get(id);
      if (first) throw new Error(`route ${id} has two handlers: in ${first} and in ${group}`);
      owner.set(id, group);
      (all as Record<string, unknown>)[id] = handler;
    }
  return all;
}

/** `log`: where what the handlers let pass but a person should know of is told (form submissions'
 * ignored context). */
export function allHandlers(services: Services, log?: SubmissionLog): Handlers {
  const files = fileHandlers(services);
  // The generic content verbs (content.ts, made for every collection from the catalog) for all but
  // what files and folders do their own way.
  const content = Object.fromEntries(
    Object.entries(contentHandlers(services)).filter(([id]) => !(id in files)),
  ) as Handlers;
  return combine({
    contacts: contactHandlers(services),
    properties: propertyHandlers(services),
    lists: listHandlers(services),
    forms: formHandlers(services, log),
    email: emailHandlers(services),
    workflows: workflowHandlers(services),
    platform: platformHandlers(services),
    events: eventHandlers(services),
    eventOccurrences: eventOccurrenceHandlers(services),
    collect: collectHandlers(services),
    content,
    files,
    blogV1: blogV1Handlers(services),
    misc: miscHandlers(services),
    prospects: prospectHandlers(services),
  });
}
