/** The shape of a database's schema as the migration tests compare it: every table with its columns
 * (type, nullability, default, generated expression), keys and constraints, and indexes (name,
 * columns, uniqueness, partial WHERE), read from the engine's catalog rather than from the text
 * that made them. Two databases with equal shapes answer every statement the same way. */
import type Database from 'better-sqlite3';
import { sql, type Engine } from '../src/db/engine';

/** Comments out, runs of space made one, none beside brackets and commas: so that a table made by
 * `CREATE TABLE` and one altered into the same columns (SQLite appends `, column …` to the stored
 * text) read the same, whatever their comments. */
const normalized = (text: string) =>
  text
    .replace(/--[^\n]*/g, ' ')
    .replace(/\s+/g, ' ')
    .replace(/\s*([(),;])\s*/g, '$1')
    .trim();

interface SqliteColumn {
  cid: number;
  name: string;
  type: string;
  notnull: number;
  dflt_value: string | null;
  pk: number;
  hidden: number;
}

/** SQLite: pragma table_xinfo (hidden > 0: a generated column), table_list (WITHOUT ROWID, STRICT),
 * foreign_key_list, index_list and index_xinfo, and the stored CREATE text, normalized, which holds
 * what no pragma says (CHECK constraints, AUTOINCREMENT, generated expressions, COLLATE). Columns
 * in their order: a step that rebuilds a table makes it as a new database has it. */
export function sqliteShape(db: Database.Database) {
  const tables = db
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all() as { name: string; sql: string }[];
  const indexSql = (name: string) =>
    db.prepare('SELECT sql FROM sqlite_master WHERE name = ?').pluck().get(name) as string | null;
  return Object.fromEntries(
    tables.map(({ name, sql: text }) => {
      const list = db.prepare('SELECT wr, strict FROM pragma_table_list WHERE name = ?').get(name);
      const columns = db.prepare('SELECT * FROM pragma_table_xinfo(?) ORDER BY cid').all(name) as SqliteColumn[];
      const foreignKeys = db
        .prepare('SELECT "table", "from", "to", on_update, on_delete FROM pragma_foreign_key_list(?) ORDER BY id, seq')
        .all(name);
      const indexes = (
        db.prepare('SELECT name, "unique", origin, partial FROM pragma_index_list(?)').all(name) as {
          name: string;
          unique: number;
          origin: string;
          partial: number;
        }[]
      ).map((index) => {
        const definition = index.origin == 'c' ? normalized(indexSql(index.name) ?? '') : null;
        return {
          // An index SQLite makes for a key or a UNIQUE column is named for its place among them.
          name: index.origin == 'c' ? index.name : `(${index.origin})`,
          unique: index.unique,
          columns: (
            db
              .prepare('SELECT name, coll, "desc" FROM pragma_index_xinfo(?) WHERE key = 1 ORDER BY seqno')
              .all(index.name) as {
              name: string | null;
              coll: string;
              desc: number;
            }[]
          ).map((c) => `${c.name ?? '(expression)'} ${c.coll}${c.desc ? ' DESC' : ''}`),
          where: index.partial && definition ? (/\bWHERE (.*)$/.exec(definition)?.[1] ?? definition) : null,
          definition,
        };
      });
      indexes.sort((a, b) => `${a.name} ${a.columns.join()}`.localeCompare(`${b.name} ${b.columns.join()}`));
      return [name, { list, columns, foreignKeys, indexes, definition: normalized(text) }];
    }),
  );
}

/** PostgreSQL: information_schema's columns, pg_constraint's definitions, pg_indexes' definitions and
 * whether the table is logged, for the tables of `schema`. Columns by name, not in their order: the
 * steps to versions 8 and 9 add seq to social channels, broadcasts and forms as a last column,
 * where a new database has it first (SQLite's steps rebuild those tables; PostgreSQL's alter them in
 * place), and no statement depends on the order. */
export async function postgresShape(engine: Engine, schema: string) {
  const tables = await engine.all(
    sql<[string], { name: string; persistence: string }>(
      `SELECT c.relname AS name, c.relpersistence AS persistence FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = ? AND c.relkind = 'r' ORDER BY 1`,
    ),
    schema,
  );
  const columns = await engine.all(
    sql<[string], Record<string, unknown> & { table_name: string }>(
      `SELECT table_name, column_name, data_type, character_maximum_length, is_nullable, column_default, is_identity,
         identity_generation, is_generated, generation_expression
       FROM information_schema.columns WHERE table_schema = ? ORDER BY table_name, column_name`,
    ),
    schema,
  );
  const constraints = await engine.all(
    sql<[string], { table_name: string; definition: string }>(
      `SELECT t.relname AS table_name, c.conname || ' ' || pg_get_constraintdef(c.oid) AS definition
       FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
       WHERE n.nspname = ? ORDER BY 1, 2`,
    ),
    schema,
  );
  const indexes = await engine.all(
    sql<[string], { table_name: string; definition: string }>(
      'SELECT tablename AS table_name, indexdef AS definition FROM pg_indexes WHERE schemaname = ? ORDER BY indexname',
    ),
    schema,
  );
  // Names of other tables may carry the schema (a foreign key's, an index's own table).
  const local = (text: string) => text.replaceAll(`${schema}.`, '');
  return Object.fromEntries(
    tables.map(({ name, persistence }) => [
      name,
      {
        persistence,
        columns: Object.fromEntries(columns.filter((c) => c.table_name == name).map((c) => [c.column_name, c])),
        constraints: constraints.filter((c) => c.table_name == name).map((c) => local(c.definition)),
        indexes: indexes.filter((i) => i.table_name == name).map((i) => local(i.definition)),
      },
    ]),
  );
}
