/** The OAuth tokens the platform issued (POST /oauth/v1/token, /auth/v1/refresh), kept in memory
 * for the admin API's outbox when it is on: a test reads the access token its code under test
 * received. The newest `size` only. Tokens go nowhere else: never to a log. */

export interface IssuedToken {
  seq: number;
  portalId: number;
  clientId: string;
  accessToken: string;
  /** The refresh token it was bought with, or the new one when refresh tokens rotate. */
  refreshToken: string;
  expiresAt: number;
  issuedAt: number;
}

export function tokenOutbox(size = 1000) {
  let tokens: IssuedToken[] = [];
  let seq = 0;
  return {
    add(t: Omit<IssuedToken, 'seq'>) {
      tokens.push({ seq: ++seq, ...t });
      if (tokens.length > size) tokens = tokens.slice(-size);
    },
    /** Newest first. */
    list: (f: { portalId?: number; clientId?: string; limit: number }) =>
      tokens
        .filter(
          (t) =>
            (f.portalId === undefined || t.portalId == f.portalId) &&
            (f.clientId === undefined || t.clientId == f.clientId),
        )
        .reverse()
        .slice(0, f.limit),
    /** Forgets one portal's (or all); resolves to how many. */
    clear(portalId?: number) {
      const before = tokens.length;
      tokens = portalId === undefined ? [] : tokens.filter((t) => t.portalId != portalId);
      return before - tokens.length;
    },
  };
}

export type TokenOutbox = ReturnType<typeof tokenOutbox>;
