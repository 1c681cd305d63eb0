/** node-postgres's errors as the platform's: what a caller can act on (retry, fix the text) gets
 * its status; anything else stays as it is. */
import { PlatformError } from '../domain/errors';

/** Errors that mean the database cannot be reached now (stopped, restarting, network), rather than
 * that the query is wrong: a caller gets a 503 to retry, and the pool reconnects by itself. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01',
  '57P02',
  '57P03',
]);
function unreachable(err: unknown) {
  const { code, message } = err as { code?: string; message?: string };
  return (
    (code !== undefined && (UNREACHABLE.has(code) || code.startsWith('08'))) ||
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/.test(
      message ?? '',
    )
  );
}

/** Text PostgreSQL cannot hold: the NUL character, in a text value (22021) or a JSON parameter's
 * string read as text (22P05). SQLite keeps it; the router refuses it by name before any store
 * sees it, and this keeps whatever arrives another way a 400 too. */
const UNSTORABLE_TEXT = new Set(['22021', '22P05']);

/** A connection failure as the platform's 503; text PostgreSQL cannot store as a 400; two
 * transactions writing the same unique key at once (two processes creating one email's contact),
 * the loser as a 409 to retry (SQLite's single writer never meets it: the loser's check sees the
 * winner's row); anything else as it is. */
export function asPlatformError(err: unknown): unknown {
  const { code } = err as { code?: string };
  if (UNSTORABLE_TEXT.has(code ?? ''))
    return new PlatformError('invalid', 'text must not contain the NUL character (\\u0000)', {
      category: 'VALIDATION_ERROR',
    });
  if (code == '23505')
    return new PlatformError('conflict', 'a concurrent request wrote the same record first; try again', {
      category: 'CONFLICT',
    });
  // Two transactions each waiting for rows the other locked (two batches touching the same
  // contacts in another order): PostgreSQL ends one of them, which can be tried again.
  if (code == '40P01' || code == '40001')
    return new PlatformError('conflict', 'a concurrent request was writing the same records; try again', {
      category: 'CONFLICT',
    });
  if (!unreachable(err)) return err;
  return new PlatformError(
    'unavailable',
    'the database is unavailable; try again shortly',
    { category: 'SERVICE_UNAVAILABLE' },
    { 'Retry-After': '1' },
  );
}
