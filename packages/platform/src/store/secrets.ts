/** Credential values: random, prefixed by kind so a leaked one is recognisable, stored only as
 * SHA-256 hashes. */
import { createHash, randomBytes } from 'node:crypto';

export type CredentialKind = 'hapikey' | 'privateApp' | 'oauthClient' | 'refresh' | 'access';

const PREFIX: Record<CredentialKind, string> = {
  hapikey: 'svc-key-',
  privateApp: 'svc-pat-',
  oauthClient: 'svc-secret-',
  refresh: 'svc-rt-',
  access: 'svc-at-',
};

export const newSecret = (kind: CredentialKind) => PREFIX[kind] + randomBytes(24).toString('base64url');
export const hashSecret = (value: string) => createHash('sha256').update(value).digest('hex');
