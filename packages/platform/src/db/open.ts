/** Opens (and creates) the platform database: WAL journal, foreign keys, the schema. */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { stepsAfter } from './migrations';
import { SCHEMA, SCHEMA_VERSION } from './schema';

/** The database handle (an interface so declaration files can name it). */
export interface Db extends Database.Database {}

/** WAL pages after which a commit checkpoints (without the checkpointer, see checkpointer.ts). */
export const AUTOCHECKPOINT = 8000;

/** The page cache, and how much of the file is mapped (see openDatabase). */
const CACHE_KB = 8192;
const MMAP_BYTES = 0x7fff0000;

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
  // Reads come from the file mapped into memory, all of it up to SQLite's limit (2 GiB), and the
  // page cache stays small (8 MB) on purpose: a commit that split a b-tree page (most commits of
  // random keys: events, sessions, visitors) ends by scanning the whole page cache. The split
  // lends a page the number of the 1 GiB lock page, and the commit then drops every cached page
  // past the end of a file smaller than that (pcache1TruncateUnsafe): a large cache costs the
  // collector, a very small one the content list's counts by an index, and 8 MB is where both
  // held (docs/performance/platform.md). Pages and lookups read as fast from the mapping with any.
  db.pragma(`cache_size = -${CACHE_KB}`);
  db.pragma(`mmap_size = ${MMAP_BYTES}`);
  // Checkpoint the WAL less often (each checkpoint fsyncs).
  db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT}`);
  // After a big transaction (an import) the WAL file would keep its size for good: shrink it
  // back once checkpointed.
  db.pragma('journal_size_limit = 67108864');
  db.pragma('temp_store = MEMORY');
  try {
    migrate(db);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/** Creates the schema, or brings a database of an earlier version up to this one (all or nothing):
 * the steps after its version (migrations/), then the live schema, which makes a new database's
 * tables and finds them all in a migrated one. */
function migrate(db: Db) {
  db.transaction(() => {
    const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get();
    const found = hasMeta
      ? Number(db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get() ?? 0)
      : 0;
    if (found > SCHEMA_VERSION)
      throw new Error(`the database has schema version ${found}; this platform knows up to ${SCHEMA_VERSION}`);
    if (found) for (const step of stepsAfter(found)) db.exec(step.sqlite);
    db.exec(SCHEMA);
    db.prepare(
      "INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    ).run(String(SCHEMA_VERSION));
  })();
}
