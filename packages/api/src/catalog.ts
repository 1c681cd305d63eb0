/** The whole catalog: every route of the spec, each once. */
import type { RouteDef } from './route';
import { blogV1Routes } from './routes/blog-v1';
import { collectorRoutes } from './routes/collector';
import { contactRoutes } from './routes/contacts';
import { contentRoutes } from './routes/content';
import { emailRoutes } from './routes/email';
import { eventOccurrenceRoutes } from './routes/event-occurrences';
import { formRoutes } from './routes/forms';
import { listRoutes } from './routes/lists';
import { miscRoutes } from './routes/misc';
import { platformRoutes } from './routes/platform';
import { propertyRoutes } from './routes/properties';
import { workflowRoutes } from './routes/workflows';

export const catalog = {
  ...contactRoutes,
  ...listRoutes,
  ...propertyRoutes,
  ...workflowRoutes,
  ...formRoutes,
  ...emailRoutes,
  ...platformRoutes,
  ...collectorRoutes,
  ...eventOccurrenceRoutes,
  ...contentRoutes,
  ...blogV1Routes,
  ...miscRoutes,
};

export type Catalog = typeof catalog;
export type RouteId = keyof Catalog;

/** The routes as a list, in catalog order. */
export const routes: RouteDef[] = Object.values(catalog);
