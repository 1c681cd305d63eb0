/** Who is calling: resolves `Authorization: Bearer` or `?access_token=` (OAuth access or
 * private-app tokens) and `hapikey` (where the route allows it) to a portal and its scopes, or answers 401/403 with the
 * legacy bodies. */
import type { RouteDef } from '@svc/api';
import type { Caller } from '../handlers/handler';
import type { Queryable } from '../db/engine';
import type { CredentialStore } from '../store/credentials';
import { PlatformError } from '../domain/errors';
import type { CallerRequest } from './catalog-call';

const invalid = (message: string) =>
  new PlatformError('unauthenticated', message, { category: 'INVALID_AUTHENTICATION' });

/** `db`: where credentials are looked up (the engine: authentication runs before the request's
 * transaction). */
export function authenticator(credentials: CredentialStore, db: Queryable, now: () => number) {
  /** The content API v2 answers a 401 with `succeeded: false` (the reference's recorded body),
   * which its clients test; the legacy keys stay beside it. */
  return async function authenticate(req: CallerRequest, route: RouteDef): Promise<Caller> {
    try {
      return await identify(req, route);
    } catch (err) {
      if (err instanceof PlatformError && err.kind == 'unauthenticated' && route.path.startsWith('/content/api/v2/'))
        throw new PlatformError(err.kind, err.message, { succeeded: false, ...err.extra }, err.headers);
      throw err;
    }
  };

  async function identify(req: CallerRequest, route: RouteDef): Promise<Caller> {
    // A public route needs no credentials and ignores any sent: clients attach their token to
    // every call, form submissions and token refreshes included.
    if (route.public) return { kind: 'none', scopes: [] };
    const header = req.headers.authorization;
    // The OAuth 1-era way to send an access token, which older clients (hapipy, the node
    // client's useOAuth1) still use: as good as the header, which wins when both come.
    const queryToken = typeof req.query.access_token == 'string' ? req.query.access_token : undefined;
    const hapikey = typeof req.query.hapikey == 'string' ? req.query.hapikey : undefined;
    if (!header && !queryToken && !hapikey) {
      throw invalid(
        'Authentication credentials not found. This API supports OAuth 2.0 and private-app access tokens ' +
          '(Authorization: Bearer, or access_token in the query)' +
          (route.auth.includes('hapikey') ? ' and API keys (hapikey).' : '.'),
      );
    }
    let caller: Caller;
    if (header || queryToken) {
      const [scheme, token] = header ? header.split(' ') : ['bearer', queryToken];
      if (scheme?.toLowerCase() != 'bearer' || !token)
        throw invalid('The Authorization header must be "Bearer <access token>".');
      const row = await credentials.find(db, token);
      if (!row || row.revoked || (row.kind != 'access' && row.kind != 'privateApp'))
        throw invalid('The access token is not valid for this portal.');
      if (row.kind == 'access' && row.expires_at! <= now()) {
        const minutes = Math.max(1, Math.round((now() - row.expires_at!) / 60000));
        throw new PlatformError(
          'unauthenticated',
          `The OAuth token used to make this call expired ${minutes} minute(s) ago.`,
          {
            category: 'EXPIRED_AUTHENTICATION',
            context: { 'expire time': [new Date(row.expires_at!).toISOString()] },
          },
        );
      }
      const oauth = row.kind == 'access';
      // The budget is the portal's; an OAuth app has its own in each portal (the real API's rule).
      const key = oauth ? `app:${row.client_id}:${row.portal_id}` : `portal:${row.portal_id}`;
      caller = {
        portalId: row.portal_id,
        kind: oauth ? 'oauth' : 'privateApp',
        scopes: JSON.parse(row.scopes) as string[],
        key,
      };
    } else {
      if (!route.auth.includes('hapikey'))
        throw invalid('This endpoint does not accept the hapikey parameter; use an OAuth or private-app access token.');
      const row = await credentials.find(db, hapikey!);
      if (!row || row.revoked || row.kind != 'hapikey') throw invalid("This key doesn't exist.");
      caller = {
        portalId: row.portal_id,
        kind: 'hapikey',
        scopes: JSON.parse(row.scopes) as string[],
        key: `portal:${row.portal_id}`,
      };
    }
    if (!route.auth.includes(caller.kind))
      throw invalid(`This endpoint does not accept ${caller.kind == 'oauth' ? 'OAuth' : 'private-app'} access tokens.`);
    if (route.scopes.length && !route.scopes.some((s) => caller.scopes.includes(s)))
      throw new PlatformError('forbidden', "This app hasn't been granted all required scopes to make this call.", {
        category: 'MISSING_SCOPES',
        errors: [
          { message: 'One or more of the following scopes are required.', context: { requiredScopes: route.scopes } },
        ],
      });
    return caller;
  }
}
