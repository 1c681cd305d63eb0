/** Every handler, by catalog route id. */
import type { Handlers } from '../http/handler';
import type { Services } from '../services';
import { contactHandlers } from './contacts';
import { emailHandlers } from './email';
import { formHandlers } from './forms';
import { listHandlers } from './lists';
import { platformHandlers } from './platform';
import { propertyHandlers } from './properties';
import { workflowHandlers } from './workflows';

export function allHandlers(services: Services, settings: { tokenLifetimeSeconds: number; rotateRefreshTokens: boolean }): Handlers {
  return {
    ...contactHandlers(services),
    ...propertyHandlers(services),
    ...listHandlers(services),
    ...formHandlers(services),
    ...emailHandlers(services),
    ...workflowHandlers(services),
    ...platformHandlers(services, settings),
  };
}
