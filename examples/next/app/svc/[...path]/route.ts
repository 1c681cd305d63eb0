// Every companion route under /svc (its basePath): the visitor, the preference centre, form
// definitions, the tracker and its collector, health. Node's runtime (the default), not edge.
import { svc } from '@/lib/svc';

const companion = (request: Request) => svc().fetch(request);

export { companion as GET, companion as HEAD, companion as POST, companion as PUT, companion as OPTIONS };
