/** The companion: one per server process, made on the first request (`next build` loads the
 * modules that use it without the platform's settings). Route handlers and server components are
 * bundled apart, so the instance lives on globalThis, where both (and hot reloads in development)
 * find it. */
import { createCompanion, type Companion } from '@svc/companion/fetch';
import { settings } from './settings';

const cache = globalThis as typeof globalThis & { svc?: Companion };

export function svc(): Companion {
  return (cache.svc ??= createCompanion({
    baseUrl: settings.baseUrl(),
    formsUrl: settings.formsUrl(),
    auth: { accessToken: settings.token() },
    // Give the platform the same secret (svc-platform: SVC_PREFERENCES_SECRET) and the links in
    // its emails open this site's preference centre. Without it, a random one per process.
    subscriptions: { linkSecret: process.env.SVC_LINK_SECRET, siteUrl: '/', signUpUrl: '/contact' },
  }));
}
