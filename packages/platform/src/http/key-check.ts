/** A secret key compared in constant time: digests of equal length, so neither the key's length
 * nor its first differing byte shows in how long a refusal takes. The inspector and the admin API
 * both take their key this way. */
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Whether a given string is `key`. */
export function keyCheck(key: string) {
  const expected = digest(key);
  return (given: string | undefined) => given !== undefined && timingSafeEqual(digest(given), expected);
}
