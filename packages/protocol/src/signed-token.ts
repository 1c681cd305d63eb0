/// <reference types="node" />
/** Signed, expiring tokens for the preference links in emails and for the preference centre's
 * CSRF tokens: `base64url(iv ‖ AES-256-CTR(payload) ‖ HMAC-SHA256)`, encrypt-then-MAC with two keys
 * derived from the link secret. Signed so nothing about them can be changed; encrypted too, because
 * a link travels in URLs (mail gateways, proxies and their logs) and its payload is an email
 * address. The purpose is part of what the HMAC covers, so one kind never stands in for the other.
 * The HMAC is checked (in constant time) before anything is decrypted.
 *
 * The companion signs and checks them (its preference centre); the platform signs the preference
 * links of the emails its workflows send, with the same secret. Node only (node:crypto): this
 * module is the package's second entry, `@svc/protocol/signed-token`, which the index does not
 * re-export, so the browser bundles never see it. */
import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export type Purpose = 'preferences' | 'csrf';

interface Payload {
  /** Whose: an email address. */
  s: string;
  /** Expiry, ms since the epoch. */
  x: number;
}

const IV = 16;
const MAC = 32;
// The label keeps the companion's name: links signed before this module moved here still verify.
const derive = (secret: string, use: string) => createHmac('sha256', secret).update(`svc-companion/${use}`).digest();
const mac = (secret: string, purpose: Purpose, data: Buffer) =>
  createHmac('sha256', derive(secret, 'mac')).update(purpose).update('\0').update(data).digest();

export function sign(secret: string, purpose: Purpose, subject: string, expiresAt: number) {
  const iv = randomBytes(IV);
  const cipher = createCipheriv('aes-256-ctr', derive(secret, 'enc'), iv);
  const body = Buffer.concat([
    iv,
    cipher.update(JSON.stringify({ s: subject, x: expiresAt } satisfies Payload)),
    cipher.final(),
  ]);
  return Buffer.concat([body, mac(secret, purpose, body)]).toString('base64url');
}

export type Verified = { ok: true; subject: string } | { ok: false; reason: 'malformed' | 'invalid' | 'expired' };

export function verify(secret: string, purpose: Purpose, token: unknown, now: number): Verified {
  if (typeof token != 'string' || token.length > 2048 || !/^[\w-]+$/.test(token))
    return { ok: false, reason: 'malformed' };
  const raw = Buffer.from(token, 'base64url');
  if (raw.length < IV + MAC + 2) return { ok: false, reason: 'malformed' };
  const body = raw.subarray(0, raw.length - MAC);
  // Tampered, another key or another purpose.
  if (!timingSafeEqual(raw.subarray(raw.length - MAC), mac(secret, purpose, body)))
    return { ok: false, reason: 'invalid' };
  let p: Payload;
  try {
    const decipher = createDecipheriv('aes-256-ctr', derive(secret, 'enc'), body.subarray(0, IV));
    p = <Payload>JSON.parse(Buffer.concat([decipher.update(body.subarray(IV)), decipher.final()]).toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (typeof p?.s != 'string' || typeof p.x != 'number') return { ok: false, reason: 'malformed' };
  if (p.x <= now) return { ok: false, reason: 'expired' };
  return { ok: true, subject: p.s };
}

/** The query parameter of the preference centre's page and API that carries a preference link's token. */
export const PREFERENCE_TOKEN_PARAM = 'token';

/** A preference link for `email`: the preference centre's page (`https://www.example.com/svc/preferences`)
 * with a token (its query parameter added) that expires at `expiresAt` (ms since the epoch). */
export function preferenceLink(pageUrl: string, secret: string, email: string, expiresAt: number) {
  // The token is base64url: nothing in it needs escaping in a query.
  return `${pageUrl}${pageUrl.includes('?') ? '&' : '?'}${PREFERENCE_TOKEN_PARAM}=${sign(secret, 'preferences', email, expiresAt)}`;
}
