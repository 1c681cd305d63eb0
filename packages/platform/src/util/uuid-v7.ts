/** A UUID version 7 (RFC 9562): the time in milliseconds, then random bits. Ids made later sort
 * later, so an index on them grows at its end instead of touching a random page per insert. */
import { randomBytes } from 'node:crypto';

export function uuidV7(ms: number): string {
  const b = randomBytes(16);
  b.writeUIntBE(ms, 0, 6);
  b[6] = (b[6] & 0x0f) | 0x70; // version 7
  b[8] = (b[8] & 0x3f) | 0x80; // variant 10
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
