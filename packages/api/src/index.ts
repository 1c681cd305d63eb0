/** @svc/api: the endpoint catalog of the svc platform. */
export { catalog, routes, type Catalog, type RouteId } from './catalog';
export * from './common';
export { openApiDocument } from './openapi';
export {
  BEARER,
  route,
  type AtomEntry,
  type AuthKind,
  type BodyType,
  type RetryPolicy,
  type Method,
  type Milestone,
  type RouteDef,
  type Routes,
} from './route';
export * as schemas from './schemas';
export { collectOutcome, wireEvent } from './routes/collector';
export { eventOccurrence, PAGE_VIEW_EVENT_TYPE } from './routes/event-occurrences';
