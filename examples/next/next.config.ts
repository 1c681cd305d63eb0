import type { NextConfig } from 'next';

// The companion reads its own files (the tracker bundle it serves) as Node does, and keeps one
// instance per process: load it from node_modules rather than bundling it into each route.
const config: NextConfig = { serverExternalPackages: ['@svc/companion', '@svc/client'] };
export default config;
