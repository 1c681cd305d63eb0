/** Opens (and creates) the platform database: WAL journal, foreign keys, the schema. */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { SCHEMA, SCHEMA_VERSION } from './schema';

/** The database handle (an interface so declaration files can name it). */
export interface Db extends Database.Database {}

/** `db.transaction(fn)` typed as a plain function (better-sqlite3's own type cannot be named in
 * declaration files). Nested calls become savepoints. */
export const transaction = <A extends unknown[], R>(db: Db, fn: (...args: A) => R): ((...args: A) => R) => db.transaction(fn);

/** `file` is a path, or `:memory:` for a throwaway database (tests). */
export function openDatabase(file: string): Db {
  if (file != ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  // WAL: readers never block the writer; NORMAL sync is durable across process crashes
  // (a power loss may drop the last commits, never corrupt).
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // A million contacts do not fit SQLite's 2 MB default page cache: give it 64 MB, map the file,
  // and checkpoint the WAL less often (each checkpoint fsyncs).
  db.pragma('cache_size = -65536');
  db.pragma('mmap_size = 268435456');
  db.pragma('wal_autocheckpoint = 8000');
  db.pragma('temp_store = MEMORY');
  db.exec(SCHEMA);
  db.prepare('INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)').run('schema_version', String(SCHEMA_VERSION));
  return db;
}
