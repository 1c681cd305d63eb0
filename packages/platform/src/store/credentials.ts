/** Who a presented credential is: a bearer token or API key, found by the hash of its value. */
import type { Db } from '../db/open';
import { hashSecret } from './secrets';

export interface CredentialRow {
  kind: string;
  portal_id: number;
  client_id: string | null;
  scopes: string;
  expires_at: number | null;
  revoked: number;
}

export function credentialStore(db: Db) {
  const find = db.prepare<[string], CredentialRow>('SELECT kind, portal_id, client_id, scopes, expires_at, revoked FROM credentials WHERE hash = ?');
  return {
    /** The credential with this value, or undefined. */
    find: (value: string): CredentialRow | undefined => find.get(hashSecret(value)),
  };
}

export type CredentialStore = ReturnType<typeof credentialStore>;
