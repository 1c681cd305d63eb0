/** Copies a SQLite platform database into an empty PostgreSQL one (`svc-platform migrate`): every
 * table, row for row, ids kept, in one PostgreSQL transaction, so a failed copy leaves nothing
 * behind. Identity sequences then continue after the largest copied id. */
import { sql, type Engine, type Param, type Queryable } from './engine';
import type { Db } from './open';

/** PostgreSQL takes at most 65,535 parameters in one statement. */
const MAX_PARAMS = 60_000;
const MAX_ROWS = 1_000;

interface Table {
  name: string;
  /** Stored columns: generated ones are computed again by PostgreSQL. */
  columns: string[];
  rows: number;
  /** How its rows are read: in the order they were stored, where SQLite keeps one. */
  order: string;
}

/** The tables to copy (all but `meta`, which the target's own migration wrote), each after the
 * tables its foreign keys refer to, so every row finds what it refers to already there. */
function tablesOf(source: Db): Table[] {
  const names = source
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'meta' ORDER BY name",
    )
    .pluck()
    .all() as string[];
  const refersTo = (name: string) =>
    source.prepare('SELECT DISTINCT "table" FROM pragma_foreign_key_list(?)').pluck().all(name) as string[];
  const ordered: string[] = [];
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return; // done, or a cycle (the schema has none): its order is as found
    seen.add(name);
    for (const parent of refersTo(name)) if (names.includes(parent)) visit(parent);
    ordered.push(name);
  };
  names.forEach(visit);
  return ordered.map((name) => ({
    name,
    // hidden: 0 a column, 2 and 3 generated columns.
    columns: (
      source.prepare('SELECT name, hidden FROM pragma_table_xinfo(?)').all(name) as { name: string; hidden: number }[]
    )
      .filter((c) => c.hidden == 0)
      .map((c) => c.name),
    rows: source.prepare(`SELECT count(*) FROM "${name}"`).pluck().get() as number,
    // A WITHOUT ROWID table (the rollups) has no rowid: its rows are read in its key's order.
    order: /WITHOUT ROWID\s*$/i.test(
      source.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(name) as string,
    )
      ? ''
      : ' ORDER BY rowid',
  }));
}

export interface CopyProgress {
  /** Called once with the total number of rows, then after each batch with the rows copied. */
  total?(rows: number): void;
  copied?(rows: number): void;
}

/** Resolves to the number of rows copied per table. The target must hold no data yet. */
export async function copyToPostgres(source: Db, target: Engine, progress: CopyProgress = {}) {
  const tables = tablesOf(source);
  progress.total?.(tables.reduce((n, t) => n + t.rows, 0));
  const copied: Record<string, number> = {};
  await target.tx(async (tx) => {
    for (const t of tables) {
      if (await tx.value(sql<[], { one: number }>(`SELECT 1 AS one FROM "${t.name}" LIMIT 1`)))
        throw new Error(`the target database is not empty: table ${t.name} has rows (copy into a new database)`);
    }
    for (const t of tables) {
      copied[t.name] = await copyTable(source, tx, t, progress);
      await continueIdentity(tx, t.name);
    }
  });
  return copied;
}

async function copyTable(source: Db, target: Queryable, table: Table, progress: CopyProgress) {
  const per = Math.max(1, Math.min(MAX_ROWS, Math.floor(MAX_PARAMS / table.columns.length)));
  const columns = table.columns.map((c) => `"${c}"`).join(', ');
  const tuple = `(${table.columns.map(() => '?').join(', ')})`;
  const insert = (n: number) =>
    sql<Param[]>(
      `INSERT INTO "${table.name}" (${columns}) VALUES ${Array.from({ length: n }, () => tuple).join(', ')}`,
    );
  const read = source.prepare(`SELECT ${columns} FROM "${table.name}"${table.order}`).raw();
  let batch: unknown[][] = [];
  let done = 0;
  const flush = async () => {
    if (!batch.length) return;
    try {
      await target.run(insert(batch.length), ...(batch.flat() as Param[]));
    } catch (err) {
      throw new Error(`copying ${table.name} (rows ${done + 1} to ${done + batch.length}): ${(err as Error).message}`, {
        cause: err,
      });
    }
    done += batch.length;
    progress.copied?.(batch.length);
    batch = [];
  };
  // The source is read a batch at a time, so a big table never sits in memory whole.
  for (const row of read.iterate() as IterableIterator<unknown[]>) {
    batch.push(row);
    if (batch.length == per) await flush();
  }
  await flush();
  return done;
}

/** Rows copied with their ids leave the identity sequence behind: move it past the largest. */
async function continueIdentity(target: Queryable, table: string) {
  const identity = await target.all(
    sql<[string], { column_name: string }>(
      "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? AND is_identity = 'YES'",
    ),
    table,
  );
  for (const { column_name: column } of identity)
    await target.value(
      sql<[string, string], { v: number }>(
        `SELECT setval(pg_get_serial_sequence(?, ?), max("${column}")) AS v FROM "${table}" HAVING max("${column}") IS NOT NULL`,
      ),
      table,
      column,
    );
}
