/** OAuth refresh: a client id + secret and a refresh token buy an access token that lives
 * `tokenLifetimeSeconds`; with rotation on, the refresh token is replaced each time. */
import { type Queryable, sql } from '../db/engine';
import { hashSecret } from './secrets';
import { PlatformError } from '../domain/errors';
import { issueCredential } from './portals';

interface Row {
  hash: string;
  portal_id: number;
  client_id: string | null;
  scopes: string;
  revoked: number;
}

const q = {
  find: sql<[string, string], Row>(
    'SELECT hash, portal_id, client_id, scopes, revoked FROM credentials WHERE hash = ? AND kind = ?',
  ),
  revoke: sql<[string]>('UPDATE credentials SET revoked = 1 WHERE hash = ?'),
};

/** A token just issued, for whoever records them (the admin API's outbox). */
export interface TokenIssued {
  portalId: number;
  clientId: string;
  accessToken: string;
  refreshToken: string;
  expiresAt: number;
  issuedAt: number;
}

export function oauthStore(
  now: () => number,
  settings: { tokenLifetimeSeconds: number; rotateRefreshTokens: boolean },
  onIssued?: (token: TokenIssued) => void,
) {
  // One message for every refusal, so a caller cannot probe which part was wrong.
  const refused = () =>
    new PlatformError('invalid', 'The client credentials or the refresh token are not valid.', {
      category: 'BAD_REFRESH_TOKEN',
      error: 'invalid_grant',
    });

  return {
    refresh: (db: Queryable, clientId: string, clientSecret: string, refreshToken: string) =>
      db.tx(async (tx) => {
        const client = await tx.get(q.find, hashSecret(clientSecret), 'oauthClient');
        const token = await tx.get(q.find, hashSecret(refreshToken), 'refresh');
        if (!client || client.revoked || client.client_id != clientId) throw refused();
        if (!token || token.revoked || token.client_id != clientId || token.portal_id != client.portal_id)
          throw refused();
        const scopes: string[] = JSON.parse(token.scopes);
        const portalId = token.portal_id;
        const t = now();
        const access = await issueCredential(tx, 'access', {
          portalId,
          scopes,
          clientId,
          expiresAt: t + settings.tokenLifetimeSeconds * 1000,
          now: t,
        });
        let refresh = refreshToken;
        if (settings.rotateRefreshTokens) {
          await tx.run(q.revoke, token.hash);
          refresh = await issueCredential(tx, 'refresh', { portalId, scopes, clientId, now: t });
        }
        onIssued?.({
          portalId,
          clientId,
          accessToken: access,
          refreshToken: refresh,
          expiresAt: t + settings.tokenLifetimeSeconds * 1000,
          issuedAt: t,
        });
        return {
          access_token: access,
          refresh_token: refresh,
          expires_in: settings.tokenLifetimeSeconds,
          token_type: 'bearer' as const,
          portal_id: portalId,
        };
      }),
  };
}
