/** One step of the schema's history: the statements that bring a database from `version - 1` to
 * `version`, written out for each engine. Frozen: once a version is released, its step's text is
 * never edited, since databases out there ran it; a change to the schema is a new step. */
export interface Migration {
  readonly version: number;
  /** Run with better-sqlite3's exec, in the transaction that opens the database. */
  readonly sqlite: string;
  /** Run on the PostgreSQL connection that holds the migration lock, in its transaction. */
  readonly postgres: string;
}
