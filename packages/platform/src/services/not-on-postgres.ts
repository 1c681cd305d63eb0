/** Transitional (issue 17): the database that the stores not yet on the engine (lists) get on
 * PostgreSQL, where there is no better-sqlite3 database. They prepare their statements when built,
 * so preparing works; running a statement is a 501 saying so, rather than data kept somewhere the
 * other processes never see. This file goes once the last of those stores
 * takes the engine. */
import type { Db } from '../db/open';
import { PlatformError } from '../domain/errors';

const notYet = (): never => {
  throw new PlatformError(
    'not-implemented',
    'lists are not served on PostgreSQL yet; run the platform on SQLite for them',
    { category: 'NOT_IMPLEMENTED' },
  );
};

/** A statement's settings (`pluck()`, …) answer the statement; running it fails. */
const CHAINED = new Set<string | symbol>(['pluck', 'raw', 'expand', 'safeIntegers', 'bind']);

export function notOnPostgres(): Db {
  const statement: object = new Proxy({}, { get: (_, name) => (CHAINED.has(name) ? () => statement : notYet) });
  return new Proxy({} as Db, {
    get(_, name) {
      if (name == 'prepare') return () => statement;
      // `transaction(fn)` makes the function that runs it: that is what fails.
      if (name == 'transaction') return () => notYet;
      // Not a promise (`await` looks for then) nor anything else built in.
      if (name == 'then' || typeof name == 'symbol') return undefined;
      return notYet;
    },
  });
}
