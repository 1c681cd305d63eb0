/** The utk check: exactly 32 lower-case hex characters, and nothing that merely looks like one. */
import { describe, expect, it } from 'vitest';
import { isUtk, UTK_PATTERN } from '../src';

describe('the utk format', () => {
  it('accepts 32 lower-case hex characters', () => {
    expect(isUtk('0123456789abcdef0123456789abcdef')).toBe(true);
    expect(isUtk('f'.repeat(32))).toBe(true);
  });

  it('refuses other lengths, upper case, other characters and surrounding text', () => {
    for (const bad of [
      '',
      'a'.repeat(31),
      'a'.repeat(33),
      'A'.repeat(32),
      'g'.repeat(32),
      ` ${'a'.repeat(31)}`,
      `${'a'.repeat(32)}\n`,
      '../../etc',
    ])
      expect(isUtk(bad), JSON.stringify(bad)).toBe(false);
  });

  it('refuses what is not a string, even when it prints as a utk', () => {
    const looksLikeOne = 'a'.repeat(32);
    for (const bad of [undefined, null, 7, [looksLikeOne], { toString: () => looksLikeOne }])
      expect(isUtk(bad)).toBe(false);
    // The bare pattern coerces; that is why servers use isUtk.
    expect(UTK_PATTERN.test([looksLikeOne] as unknown as string)).toBe(true);
  });
});
