/** What the two engines do differently, side by side. A pair holds each engine's text of a
 * statement, or each engine's way to do one step when the steps themselves differ (a statement a
 * row on SQLite, one statement over a JSON array of rows on PostgreSQL: `eachOrAll`). A store
 * picks its engine's side of its pairs once, when it is made (`pick`), and never asks which engine
 * it runs on while it works. What differs only inside a statement written once for both engines
 * (a JSON path, FOR UPDATE) is a fragment of the engine's Dialect (engine.ts). */
import type { EngineKind, Queryable } from './engine';

/** One thing written for each engine. */
export type Pair<T> = { readonly [K in EngineKind]: T };

/** The engine's side of every pair of `pairs`. */
export function pick<P extends Record<string, Pair<unknown>>>(
  engine: { readonly kind: EngineKind },
  pairs: P,
): { [K in keyof P]: P[K][EngineKind] } {
  const picked: Record<string, unknown> = {};
  for (const [name, pair] of Object.entries(pairs)) picked[name] = pair[engine.kind];
  return picked as { [K in keyof P]: P[K][EngineKind] };
}

/** A step over many rows, given as its second argument. */
type OverRows = (db: Queryable, rows: readonly never[], ...args: never[]) => Promise<unknown>;

/** A step over many rows as a pair. SQLite runs `each`, a statement a row: a statement is a
 * function call there, and one over a JSON array of the rows costs it more (json_extract reads
 * every field again; an UPDATE … FROM also joins through a temporary table). PostgreSQL runs
 * `all`, one statement for them all, when there are several: a statement's own cost there (a
 * round trip to the server) is most of a small one's; for one row, `each`. */
export function eachOrAll<F extends OverRows>(each: F, all: F): Pair<F> {
  const several = (db: Queryable, rows: readonly never[], ...args: never[]) =>
    rows.length > 1 ? all(db, rows, ...args) : each(db, rows, ...args);
  return { sqlite: each, postgres: several as F };
}

/** A pair whose two sides have the type `F`, written once. */
export const pair = <F>(sides: Pair<F>): Pair<F> => sides;
