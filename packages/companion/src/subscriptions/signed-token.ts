/** Signed, expiring tokens for the preference links the site puts in its emails and for CSRF
 * tokens: `base64url(iv ‖ AES-256-CTR(payload) ‖ HMAC-SHA256)`, encrypt-then-MAC with two keys
 * derived from the link secret. Signed so nothing about them can be changed; encrypted too, because
 * a link travels in URLs (mail gateways, proxies and their logs) and its payload is an email
 * address. The purpose is part of what the HMAC covers, so one kind never stands in for the other.
 * The HMAC is checked (in constant time) before anything is decrypted. */
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
const derive = (secret: string, use: string) => createHmac('sha256', secret).update(`svc-companion/${use}`).digest();
const mac = (secret: string, purpose: Purpose, data: Buffer) => createHmac('sha256', derive(secret, 'mac')).update(purpose).update('\0').update(data).digest();

export function sign(secret: string, purpose: Purpose, subject: string, expiresAt: number) {
  const iv = randomBytes(IV);
  const cipher = createCipheriv('aes-256-ctr', derive(secret, 'enc'), iv);
  const body = Buffer.concat([iv, cipher.update(JSON.stringify({ s: subject, x: expiresAt } satisfies Payload)), cipher.final()]);
  return Buffer.concat([body, mac(secret, purpose, body)]).toString('base64url');
}

export type Verified = { ok: true; subject: string } | { ok: false; reason: 'malformed' | 'invalid' | 'expired' };

export function verify(secret: string, purpose: Purpose, token: unknown, now: number): Verified {
  if (typeof token != 'string' || token.length > 2048 || !/^[\w-]+$/.test(token)) return { ok: false, reason: 'malformed' };
  const raw = Buffer.from(token, 'base64url');
  if (raw.length < IV + MAC + 2) return { ok: false, reason: 'malformed' };
  const body = raw.subarray(0, raw.length - MAC);
  // Tampered, another key or another purpose.
  if (!timingSafeEqual(raw.subarray(raw.length - MAC), mac(secret, purpose, body))) return { ok: false, reason: 'invalid' };
  let p: Payload;
  try {
    const decipher = createDecipheriv('aes-256-ctr', derive(secret, 'enc'), body.subarray(0, IV));
    p = JSON.parse(Buffer.concat([decipher.update(body.subarray(IV)), decipher.final()]).toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (typeof p?.s != 'string' || typeof p.x != 'number') return { ok: false, reason: 'malformed' };
  if (p.x <= now) return { ok: false, reason: 'expired' };
  return { ok: true, subject: p.s };
}
