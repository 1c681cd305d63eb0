/** Ids the tracker creates: 32 lower-case hex characters (128 random bits), the `svcutk` format
 * (@svc/protocol's UTK_PATTERN) and event ids. */
import { UTK_PATTERN } from '@svc/protocol';

export const newId = (): string =>
  crypto.getRandomValues(new Uint8Array(16)).reduce((s, b) => s + (b | 256).toString(16).slice(1), '');

/** The tracker's check reads only strings or undefined, so the pattern alone is enough (smaller
 * than @svc/protocol's isUtk, which also refuses non-strings). */
export const isId = (s: string | undefined): s is string => UTK_PATTERN.test(s!);
