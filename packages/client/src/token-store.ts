/** Where the OAuth tokens live between refreshes. The refresh token may rotate on every refresh,
 * so the store — not the options the client was built with — is the truth once it holds one. */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';

export interface TokenSet {
  accessToken: string;
  refreshToken: string;
  /** Milliseconds since the epoch: when the refresh answered plus its `expires_in`. */
  expiresAt: number;
  /** When the refresh answered; with `expiresAt` it gives the lifetime the refresh-ahead margin is sized by. */
  obtainedAt?: number;
}

/** Keeps the current tokens. Implement it over Redis or a database to share tokens between
 * processes; `set` should write atomically, since a rotated refresh token replaces the old one.
 * A store that throws or rejects fails the call with `TOKEN_STORE_FAILED` (its error as `cause`). */
export interface TokenStore {
  get(): Promise<TokenSet | undefined> | TokenSet | undefined;
  set(tokens: TokenSet): Promise<void> | void;
  /** Optional, for stores shared by several processes: runs a refresh so that at most one runs at a
   * time across all of them, and answers the tokens to use. It answers the stored tokens as they
   * are when `usable(stored)` holds (before or after it waited for another process's refresh);
   * otherwise it calls `refresh(stored)` under its lock and stores what that returns before
   * answering it (a rotated refresh token is stored before anyone uses the new access token). A
   * store without it gets the client's own single-flight refresh with `get`/`set`. */
  exclusive?(
    usable: (stored: TokenSet) => boolean,
    refresh: (stored: TokenSet | undefined) => Promise<TokenSet>,
  ): Promise<TokenSet>;
}

/** A token store that threw or rejected; the request steps make it the call's TOKEN_STORE_FAILED. */
export class TokenStoreError extends Error {
  constructor(readonly cause: unknown) {
    super('the token store failed');
  }
}

/** Runs a store operation; whatever it throws becomes a TokenStoreError. */
export async function fromStore<T>(op: () => T | Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (cause) {
    throw new TokenStoreError(cause);
  }
}

export class MemoryTokenStore implements TokenStore {
  private tokens?: TokenSet;
  get() {
    return this.tokens;
  }
  set(tokens: TokenSet) {
    this.tokens = tokens;
  }
}

/** A JSON file readable by its owner only, replaced atomically so a crash never leaves half a file. */
export class FileTokenStore implements TokenStore {
  constructor(private readonly path: string) {}

  async get() {
    try {
      const t = JSON.parse(await readFile(this.path, 'utf8')) as Partial<Record<keyof TokenSet, unknown>>;
      return typeof t.accessToken == 'string' && typeof t.refreshToken == 'string' && typeof t.expiresAt == 'number'
        ? (t as TokenSet)
        : undefined;
    } catch {
      return undefined;
    }
  }

  async set(tokens: TokenSet) {
    await mkdir(dirname(this.path), { recursive: true });
    // A unique temp name, so two writers never share one half-written file.
    const tmp = `${this.path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    await writeFile(tmp, JSON.stringify(tokens), { mode: 0o600 });
    await rename(tmp, this.path);
  }
}
