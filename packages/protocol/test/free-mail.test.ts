/** The one free-mail list that the embed (packages/forms) and the platform both refuse with
 * `useDefaultBlockList`; their tests show each side refusing a domain of it. */
import { describe, expect, it } from 'vitest';
import { FREE_MAIL_DOMAINS } from '../src';

describe('the free-mail list', () => {
  it('holds lower-case domain names, each once, so a case-insensitive comparison finds them', () => {
    expect(FREE_MAIL_DOMAINS).toContain('gmail.com');
    expect(new Set(FREE_MAIL_DOMAINS).size).toBe(FREE_MAIL_DOMAINS.length);
    for (const domain of FREE_MAIL_DOMAINS) expect(domain).toMatch(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/);
  });
});
