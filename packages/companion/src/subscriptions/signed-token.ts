/** Signed, expiring tokens: `base64url(JSON payload).base64url(HMAC-SHA256)`. Used for the
 * preference links the site puts in its emails and for CSRF tokens; the purpose is part of what
 * is signed, so one kind can never stand in for the other. Compared in constant time. */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type Purpose = 'preferences' | 'csrf';

interface Payload {
  /** Whose: an email address (kept server-side; the token is only ever given to its owner). */
  s: string;
  /** Expiry, ms since the epoch. */
  x: number;
}

const mac = (key: string, purpose: Purpose, body: string) => createHmac('sha256', key).update(`${purpose}.${body}`).digest();

export function sign(key: string, purpose: Purpose, subject: string, expiresAt: number) {
  const body = Buffer.from(JSON.stringify({ s: subject, x: expiresAt } satisfies Payload)).toString('base64url');
  return `${body}.${mac(key, purpose, body).toString('base64url')}`;
}

export type Verified = { ok: true; subject: string } | { ok: false; reason: 'malformed' | 'invalid' | 'expired' };

export function verify(key: string, purpose: Purpose, token: unknown, now: number): Verified {
  if (typeof token != 'string' || token.length > 2048) return { ok: false, reason: 'malformed' };
  const [body, sig, extra] = token.split('.');
  if (!body || !sig || extra !== undefined || !/^[\w-]+$/.test(body) || !/^[\w-]+$/.test(sig)) return { ok: false, reason: 'malformed' };
  const given = Buffer.from(sig, 'base64url');
  const expected = mac(key, purpose, body);
  if (given.length != expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'invalid' };
  let p: Payload;
  try {
    p = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (typeof p?.s != 'string' || typeof p.x != 'number') return { ok: false, reason: 'malformed' };
  if (p.x <= now) return { ok: false, reason: 'expired' };
  return { ok: true, subject: p.s };
}
