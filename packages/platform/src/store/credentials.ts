/** Who a presented credential is: a bearer token or API key, found by the hash of its value. */
import { type Queryable, sql } from '../db/engine';
import { hashSecret } from './secrets';

export interface CredentialRow {
  kind: string;
  portal_id: number;
  client_id: string | null;
  scopes: string;
  expires_at: number | null;
  revoked: number;
}

const find = sql<[string], CredentialRow>(
  'SELECT kind, portal_id, client_id, scopes, expires_at, revoked FROM credentials WHERE hash = ?',
);

export function credentialStore() {
  return {
    /** The credential with this value, or undefined. */
    find: (db: Queryable, value: string): Promise<CredentialRow | undefined> => db.get(find, hashSecret(value)),
  };
}

export type CredentialStore = ReturnType<typeof credentialStore>;
