/** A UUID version 7 (RFC 9562): the time in milliseconds, then random bits. Ids made later sort
 * later, so an index on them grows at its end instead of touching a random page per insert. */
import { randomUUID } from 'node:crypto';

export function uuidV7(ms: number): string {
  // randomUUID draws from a pooled buffer (one getrandom call per 128 ids); its version nibble
  // (4) and variant bits are where v7 has them, so only the time and the version change.
  const random = randomUUID();
  const time = ms.toString(16).padStart(12, '0').slice(-12);
  return `${time.slice(0, 8)}-${time.slice(8)}-7${random.slice(15)}`;
}
