/** The preference links' and CSRF tokens' format, shared by the companion (which signs and checks
 * them) and the platform (which signs the links in its workflows' emails). */
import { describe, expect, it } from 'vitest';
import { preferenceLink, PREFERENCE_TOKEN_PARAM, sign, verify } from '@svc/protocol/signed-token';

const SECRET = 'a-link-secret-of-at-least-32-characters';
const NOW = 1_760_000_000_000;

describe('signed tokens', () => {
  it('carry their subject until they expire', () => {
    const token = sign(SECRET, 'preferences', 'ada@example.com', NOW + 1000);
    expect(token).toMatch(/^[\w-]+$/);
    expect(token).not.toContain('ada');
    expect(verify(SECRET, 'preferences', token, NOW)).toEqual({ ok: true, subject: 'ada@example.com' });
    expect(verify(SECRET, 'preferences', token, NOW + 1000)).toEqual({ ok: false, reason: 'expired' });
  });

  it('are refused for another purpose, under another secret, or changed in any byte', () => {
    const token = sign(SECRET, 'preferences', 'ada@example.com', NOW + 1000);
    expect(verify(SECRET, 'csrf', token, NOW)).toEqual({ ok: false, reason: 'invalid' });
    expect(verify(SECRET.replace('a', 'b'), 'preferences', token, NOW)).toEqual({ ok: false, reason: 'invalid' });
    const raw = Buffer.from(token, 'base64url');
    for (const i of [0, 20, raw.length - 1]) {
      const changed = Buffer.from(raw);
      changed[i] ^= 1;
      expect(verify(SECRET, 'preferences', changed.toString('base64url'), NOW)).toEqual({
        ok: false,
        reason: 'invalid',
      });
    }
    for (const bad of [undefined, 42, '', 'x', 'not base64!', 'A'.repeat(3000)])
      expect(verify(SECRET, 'preferences', bad, NOW)).toMatchObject({ ok: false, reason: 'malformed' });
  });

  it('make a preference link: the page with the token as its query parameter', () => {
    const link = new URL(
      preferenceLink('https://www.example.com/svc/preferences', SECRET, 'ada@example.com', NOW + 1000),
    );
    expect(link.origin + link.pathname).toBe('https://www.example.com/svc/preferences');
    expect(verify(SECRET, 'preferences', link.searchParams.get(PREFERENCE_TOKEN_PARAM), NOW)).toEqual({
      ok: true,
      subject: 'ada@example.com',
    });
    const withQuery = new URL(
      preferenceLink('https://www.example.com/prefs?lang=en', SECRET, 'ada@example.com', NOW + 1000),
    );
    expect(withQuery.searchParams.get('lang')).toBe('en');
    expect(verify(SECRET, 'preferences', withQuery.searchParams.get(PREFERENCE_TOKEN_PARAM), NOW).ok).toBe(true);
  });
});
