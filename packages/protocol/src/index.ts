/** @svc/protocol: what the browser scripts and the servers must agree on, each fact once. No
 * dependencies and no side effects, so the browser bundles keep only what they use. The order
 * only decides where the bundles place these constants; this one gzips the form embed smallest. */
export * from './free-mail';
export * from './form-submission';
export * from './collector';
export * from './cookies';
export * from './utk';
export * from './webhooks';
