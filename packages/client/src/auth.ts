/** Credentials: an API key, a fixed bearer token, or OAuth with refresh ahead of expiry.
 * An OAuth refresh is single-flight: however many calls find the token due, one request refreshes
 * it and the others wait for that one. The lifetime comes only from the answer's `expires_in`. */
import type { Clock } from './clock';
import { SvcApiError } from './errors';
import { MemoryTokenStore, type TokenSet, type TokenStore } from './token-store';

export interface OAuthOptions {
  clientId: string;
  clientSecret: string;
  /** Used until the token store holds a (possibly rotated) refresh token. */
  refreshToken: string;
  /** Where tokens live between refreshes; default in memory. */
  tokenStore?: TokenStore;
  /** Refresh this long before expiry, at most; never more than 10 % of the token's lifetime. Default 60 s. */
  refreshAheadMs?: number;
}

/** `apiKey` is sent as `?hapikey=` and only where the spec allows it (the content API v2);
 * `accessToken` is a private-app or other fixed bearer token; `oauth` refreshes by itself. */
export type AuthOptions = { apiKey: string } | { accessToken: string } | { oauth: OAuthOptions };

/** The raw answer of `POST /auth/v1/refresh`. */
export interface RefreshAnswer {
  access_token: string;
  refresh_token?: string;
  expires_in: number;
}
export type Refresher = (form: { grant_type: 'refresh_token'; client_id: string; client_secret: string; refresh_token: string }) => Promise<RefreshAnswer>;

export interface Credentials {
  apiKey?: string;
  /** The bearer token to send, refreshed first when due; undefined for API-key clients. */
  bearer(): Promise<string | undefined>;
  /** Whether `expired` can get a new token (OAuth only). */
  canRefresh: boolean;
  /** The platform said `token` expired: refresh, unless another call already replaced it. */
  expired(token: string): Promise<void>;
  /** Every secret this client knows, to cut out of error messages and bodies. */
  secrets(): string[];
}

export interface RefreshEvent {
  expiresAt: number;
  /** Whether the platform issued a new refresh token (and the store now holds it). */
  rotated: boolean;
}

export function credentials(auth: AuthOptions, refresh: Refresher, clock: Clock, onRefresh?: (e: RefreshEvent) => void): Credentials {
  if ('apiKey' in auth)
    return { apiKey: auth.apiKey, bearer: async () => undefined, canRefresh: false, expired: async () => {}, secrets: () => [auth.apiKey] };
  if ('accessToken' in auth)
    return { bearer: async () => auth.accessToken, canRefresh: false, expired: async () => {}, secrets: () => [auth.accessToken] };
  return oauth(auth.oauth, refresh, clock, onRefresh);
}

function oauth(o: OAuthOptions, refresh: Refresher, clock: Clock, onRefresh?: (e: RefreshEvent) => void): Credentials {
  const store = o.tokenStore ?? new MemoryTokenStore();
  const maxAhead = o.refreshAheadMs ?? 60_000;
  let current: TokenSet | undefined;
  let loading: Promise<void> | undefined;
  let inflight: Promise<TokenSet> | undefined;
  // Every refresh token seen, so even a rotated-away one never shows up in an error.
  const seen = new Set([o.refreshToken, o.clientSecret]);

  const load = () => (loading ??= Promise.resolve(store.get()).then((t) => void (current ??= t)));

  /** Due when within the margin of expiry: min(refreshAheadMs, 10 % of the lifetime), so a
   * 30-minute token refreshes 60 s early and a 60-second one 6 s early, never on every call. */
  const due = (t: TokenSet) => {
    const lifetime = t.obtainedAt === undefined ? Infinity : t.expiresAt - t.obtainedAt;
    return t.expiresAt - Math.min(maxAhead, lifetime / 10) <= clock.now();
  };

  const doRefresh = async (): Promise<TokenSet> => {
    // The store, not the options, holds the latest refresh token (another process may have rotated it).
    const saved = await store.get();
    const refreshToken = saved?.refreshToken ?? o.refreshToken;
    const answer = await refresh({ grant_type: 'refresh_token', client_id: o.clientId, client_secret: o.clientSecret, refresh_token: refreshToken });
    if (typeof answer?.access_token != 'string' || !(answer.expires_in > 0))
      throw new SvcApiError({
        status: 200,
        category: 'INVALID_RESPONSE',
        message: 'the token refresh answered without an access_token and a positive expires_in',
        method: 'POST',
        path: '/auth/v1/refresh',
      });
    const obtainedAt = clock.now();
    const tokens: TokenSet = {
      accessToken: answer.access_token,
      refreshToken: answer.refresh_token || refreshToken,
      expiresAt: obtainedAt + answer.expires_in * 1000,
      obtainedAt,
    };
    seen.add(tokens.refreshToken).add(tokens.accessToken);
    // Persist first: once the platform rotated the refresh token, the old one no longer works.
    await store.set(tokens);
    current = tokens;
    onRefresh?.({ expiresAt: tokens.expiresAt, rotated: tokens.refreshToken != refreshToken });
    return tokens;
  };
  const refreshOnce = () => (inflight ??= doRefresh().finally(() => (inflight = undefined)));

  return {
    canRefresh: true,
    async bearer() {
      if (!current) await load();
      if (inflight) return (await inflight).accessToken;
      if (!current || due(current)) return (await refreshOnce()).accessToken;
      return current.accessToken;
    },
    async expired(token) {
      if (inflight) await inflight;
      else if (!current || current.accessToken == token) await refreshOnce();
    },
    secrets: () => [...seen, ...(current ? [current.accessToken] : [])],
  };
}
