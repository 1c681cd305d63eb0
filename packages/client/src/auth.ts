/** Credentials: an API key, a fixed bearer token, or OAuth with refresh ahead of expiry.
 * An OAuth refresh is single-flight: however many calls find the token due, one request refreshes
 * it and the others wait for that one; with a store that has `exclusive`, one refresh runs at a
 * time across every process sharing the store. The lifetime comes only from the answer's
 * `expires_in`. A store that throws is reported as a TokenStoreError. */
import type { Clock } from './clock';
import { SvcApiError } from './errors';
import { fromStore, MemoryTokenStore, TokenStoreError, type TokenSet, type TokenStore } from './token-store';

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
export type Refresher = (form: {
  grant_type: 'refresh_token';
  client_id: string;
  client_secret: string;
  refresh_token: string;
}) => Promise<RefreshAnswer>;

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

export function credentials(
  auth: AuthOptions,
  refresh: Refresher,
  clock: Clock,
  onRefresh?: (e: RefreshEvent) => void,
): Credentials {
  if ('apiKey' in auth)
    return {
      apiKey: auth.apiKey,
      bearer: () => Promise.resolve(undefined),
      canRefresh: false,
      expired: async () => {},
      secrets: () => [auth.apiKey],
    };
  if ('accessToken' in auth)
    return {
      bearer: () => Promise.resolve(auth.accessToken),
      canRefresh: false,
      expired: async () => {},
      secrets: () => [auth.accessToken],
    };
  return oauth(auth.oauth, refresh, clock, onRefresh);
}

function oauth(o: OAuthOptions, refresh: Refresher, clock: Clock, onRefresh?: (e: RefreshEvent) => void): Credentials {
  const store: TokenStore = o.tokenStore ?? new MemoryTokenStore();
  const maxAhead = o.refreshAheadMs ?? 60_000;
  let current: TokenSet | undefined;
  let loading: Promise<void> | undefined;
  let inflight: Promise<TokenSet> | undefined;
  // Every refresh token seen, so even a rotated-away one never shows up in an error.
  const seen = new Set([o.refreshToken, o.clientSecret]);
  const remember = (t: TokenSet) => void seen.add(t.refreshToken).add(t.accessToken);

  // A store that failed is asked again by the next call, not remembered as failed.
  const load = () =>
    (loading ??= fromStore(() => store.get()).then(
      (t) => {
        if (t) remember(t);
        current ??= t;
      },
      (err) => {
        loading = undefined;
        throw err;
      },
    ));

  /** Due when within the margin of expiry: min(refreshAheadMs, 10 % of the lifetime), so a
   * 30-minute token refreshes 60 s early and a 60-second one 6 s early, never on every call. */
  const due = (t: TokenSet) => {
    const lifetime = t.obtainedAt === undefined ? Infinity : t.expiresAt - t.obtainedAt;
    return t.expiresAt - Math.min(maxAhead, lifetime / 10) <= clock.now();
  };

  /** New tokens from the platform, with the stored refresh token if there is one; stores nothing. */
  const fetchTokens = async (saved: TokenSet | undefined): Promise<TokenSet> => {
    const refreshToken = saved?.refreshToken ?? o.refreshToken;
    const answer = await refresh({
      grant_type: 'refresh_token',
      client_id: o.clientId,
      client_secret: o.clientSecret,
      refresh_token: refreshToken,
    });
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
    remember(tokens);
    return tokens;
  };
  const reportRefresh = (tokens: TokenSet, usedRefreshToken: string) =>
    onRefresh?.({ expiresAt: tokens.expiresAt, rotated: tokens.refreshToken != usedRefreshToken });

  /** This process alone: the store, not the options, holds the latest refresh token (another
   * process may have rotated it), and the new one is stored before the access token is used,
   * since once the platform rotated it the old one no longer works. */
  const refreshHere = async () => {
    const saved = await fromStore(() => store.get());
    const tokens = await fetchTokens(saved);
    await fromStore(() => store.set(tokens));
    reportRefresh(tokens, saved?.refreshToken ?? o.refreshToken);
    return tokens;
  };

  /** Across processes, through the store's lock: it answers stored tokens that are usable (not
   * due, and not the one the platform just called expired), else runs our refresh and stores its
   * result. A failed refresh request stays what it is; anything else the store threw is its own. */
  const refreshShared = async (expiredToken?: string) => {
    let mine: { tokens: TokenSet; used: string } | undefined;
    let failed: { error: unknown } | undefined;
    const usable = (stored: TokenSet) => {
      remember(stored);
      return !due(stored) && stored.accessToken !== expiredToken;
    };
    let tokens: TokenSet;
    try {
      tokens = await store.exclusive!(usable, async (stored) => {
        try {
          mine = { tokens: await fetchTokens(stored), used: stored?.refreshToken ?? o.refreshToken };
          return mine.tokens;
        } catch (error) {
          failed = { error };
          throw error;
        }
      });
    } catch (err) {
      throw failed ? failed.error : new TokenStoreError(err);
    }
    if (typeof tokens?.accessToken != 'string')
      throw new TokenStoreError(new TypeError('exclusive answered no tokens'));
    remember(tokens);
    // Reported by the client whose refresh it was (a store may answer a copy of what it stored).
    if (mine && mine.tokens.accessToken == tokens.accessToken) reportRefresh(tokens, mine.used);
    return tokens;
  };

  // One refresh in flight per client, whichever way it runs.
  const refreshOnce = (expiredToken?: string) =>
    (inflight ??= (store.exclusive ? refreshShared(expiredToken) : refreshHere())
      .then((tokens) => (current = tokens))
      .finally(() => (inflight = undefined)));

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
      else if (!current || current.accessToken == token) await refreshOnce(token);
    },
    secrets: () => [...seen, ...(current ? [current.accessToken] : [])],
  };
}
