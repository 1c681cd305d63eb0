/** Credentials: an API key, a fixed bearer token, or OAuth with refresh ahead of expiry. A refresh
 * is single-flight: however many calls find the token stale, one request refreshes it. */
import { MemoryTokenStore, type TokenSet, type TokenStore } from './token-store';

export interface OAuthOptions {
  clientId: string;
  clientSecret: string;
  /** Used until the token store holds a (possibly rotated) refresh token. */
  refreshToken: string;
  tokenStore?: TokenStore;
  /** Refresh this long before expiry. Default 60 s. */
  refreshAheadMs?: number;
}

export type AuthOptions = { apiKey: string } | { accessToken: string } | { oauth: OAuthOptions };

/** Performs `POST /auth/v1/refresh` and returns the raw answer. */
export type Refresher = (form: Record<string, string>) => Promise<{ access_token: string; refresh_token: string; expires_in: number }>;

export interface Credentials {
  /** The bearer token to send, refreshed first when needed; undefined for API-key clients. */
  bearer(): Promise<string | undefined>;
  apiKey?: string;
  /** After an EXPIRED_AUTHENTICATION answer: refresh unless someone already did. */
  expired(token: string): Promise<boolean>;
}

export function credentials(auth: AuthOptions, refresh: Refresher, now: () => number = Date.now): Credentials {
  if ('apiKey' in auth) return { apiKey: auth.apiKey, bearer: async () => undefined, expired: async () => false };
  if ('accessToken' in auth) return { bearer: async () => auth.accessToken, expired: async () => false };

  const o = auth.oauth;
  const store = o.tokenStore ?? new MemoryTokenStore();
  const ahead = o.refreshAheadMs ?? 60_000;
  let current: TokenSet | undefined;
  let inflight: Promise<TokenSet> | undefined;

  const doRefresh = async (): Promise<TokenSet> => {
    const saved = await store.get();
    const answer = await refresh({
      grant_type: 'refresh_token',
      client_id: o.clientId,
      client_secret: o.clientSecret,
      refresh_token: saved?.refreshToken ?? o.refreshToken,
    });
    const tokens = {
      accessToken: answer.access_token,
      refreshToken: answer.refresh_token || (saved?.refreshToken ?? o.refreshToken),
      expiresAt: now() + answer.expires_in * 1000,
    };
    await store.set(tokens);
    return (current = tokens);
  };
  const refreshOnce = () => (inflight ??= doRefresh().finally(() => (inflight = undefined)));

  return {
    async bearer() {
      current ??= await store.get();
      if (!current || current.expiresAt - ahead <= now()) return (await refreshOnce()).accessToken;
      return current.accessToken;
    },
    async expired(token) {
      if (inflight) await inflight;
      else if (!current || current.accessToken == token) await refreshOnce();
      return true;
    },
  };
}
