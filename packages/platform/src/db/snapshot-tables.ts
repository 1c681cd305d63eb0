/** The SQL under snapshots (services/snapshot.ts): every table of the platform's data read whole,
 * and replaced whole in one transaction, on either engine. What is read and written is the
 * schema's own (the tables as the database lists them, their stored columns), so a table added by
 * a migration is in snapshots without a list to keep. Left out: `meta` (the schema version, which
 * the snapshot carries and the target has), SQLite's own tables, and PostgreSQL's tables of
 * process state (schema-postgres.ts: rate-limit counters, cache versions; the dashboard's
 * unfolded deltas, which an export folds first and an import empties). */
import { type EngineKind, type Param, type Queryable, sql } from './engine';
import { POSTGRES_ONLY_TABLES } from './schema-postgres';

export interface TableShape {
  name: string;
  /** Stored columns (not generated ones, which the database computes again), in table order. */
  columns: string[];
  /** The auto-numbered key, whose numbering a snapshot carries on: `id` column, if any. */
  autoId?: string;
  /** ORDER BY of a whole-table read: the order rows were stored in, where the engine keeps one. */
  order: string;
  /** Tables this one's foreign keys point at. */
  parents: string[];
}

const LEFT_OUT = new Set(['meta', ...POSTGRES_ONLY_TABLES]);
const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

type Row = Record<string, unknown>;
const q = {
  sqliteTables: sql<[], { name: string; sql: string }>(
    "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
  ),
  sqliteColumns: sql<[string], { name: string; hidden: number; pk: number }>(
    'SELECT name, hidden, pk FROM pragma_table_xinfo(?) ORDER BY cid',
  ),
  sqliteParents: sql<[string], { parent: string }>('SELECT DISTINCT "table" AS parent FROM pragma_foreign_key_list(?)'),
  sqliteSequences: sql<[], { name: string; seq: number }>('SELECT name, seq FROM sqlite_sequence'),
  sqliteHasSequences: sql<[], { one: number }>(
    "SELECT 1 AS one FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_sequence'",
  ),
  sqliteDropSequence: sql<[string]>('DELETE FROM sqlite_sequence WHERE name = ?'),
  sqliteSetSequence: sql<[string, number]>('INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)'),
  pgTables: sql<[], { name: string }>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name",
  ),
  pgColumns: sql<[], { table_name: string; name: string; generated: string; identity: string }>(
    `SELECT table_name, column_name AS name, is_generated AS generated, is_identity AS identity
     FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
  ),
  pgKeys: sql<[], { table_name: string; name: string }>(
    `SELECT c.relname AS table_name, a.attname AS name FROM pg_index i
     JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
     JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k (attnum, pos) ON true
     JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
     WHERE i.indisprimary ORDER BY c.relname, k.pos`,
  ),
  pgParents: sql<[], { child: string; parent: string }>(
    `SELECT DISTINCT c.relname AS child, p.relname AS parent FROM pg_constraint k
     JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid
     JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema() WHERE k.contype = 'f'`,
  ),
  pgSequence: sql<[string, string], { v: number | null }>(
    'SELECT pg_sequence_last_value(pg_get_serial_sequence(?, ?)::regclass) AS v',
  ),
  repeatableRead: sql('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ'),
};

/** Parents before children (the foreign keys), else by name. */
function ordered(tables: TableShape[]): TableShape[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const out: TableShape[] = [];
  const seen = new Set<string>();
  const visit = (t: TableShape) => {
    if (seen.has(t.name)) return;
    seen.add(t.name);
    for (const p of t.parents) if (byName.has(p)) visit(byName.get(p)!);
    out.push(t);
  };
  tables.forEach(visit);
  return out;
}

async function sqliteShapes(db: Queryable): Promise<TableShape[]> {
  const shapes: TableShape[] = [];
  for (const { name, sql: text } of await db.all(q.sqliteTables)) {
    if (LEFT_OUT.has(name)) continue;
    // hidden: 0 a column, 2 and 3 generated ones.
    const columns = await db.all(q.sqliteColumns, name);
    const keys = columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
    const withoutRowid = /WITHOUT\s+ROWID\s*$/i.test(text);
    shapes.push({
      name,
      columns: columns.filter((c) => c.hidden == 0).map((c) => c.name),
      autoId: /AUTOINCREMENT/i.test(text) && keys.length == 1 ? keys[0].name : undefined,
      order: withoutRowid ? keys.map((k) => quote(k.name)).join(', ') : 'rowid',
      parents: (await db.all(q.sqliteParents, name)).map((p) => p.parent),
    });
  }
  return ordered(shapes);
}

async function postgresShapes(db: Queryable): Promise<TableShape[]> {
  const names = (await db.all(q.pgTables)).map((t) => t.name).filter((n) => !LEFT_OUT.has(n));
  const columns = await db.all(q.pgColumns);
  const keys = await db.all(q.pgKeys);
  const parents = await db.all(q.pgParents);
  return ordered(
    names.map((name) => {
      const own = columns.filter((c) => c.table_name == name);
      const key = keys.filter((k) => k.table_name == name).map((k) => quote(k.name));
      return {
        name,
        columns: own.filter((c) => c.generated == 'NEVER').map((c) => c.name),
        autoId: own.find((c) => c.identity == 'YES')?.name,
        order: key.length ? key.join(', ') : 'ctid',
        parents: parents.filter((p) => p.child == name).map((p) => p.parent),
      };
    }),
  );
}

/** The data's tables on the engine `db` runs on, parents before children. */
export const tableShapes = (db: Queryable, kind: EngineKind) =>
  kind == 'postgres' ? postgresShapes(db) : sqliteShapes(db);

/** Makes the transaction `db` read one moment's data throughout (PostgreSQL; SQLite's
 * transactions do already). Its first statement. */
export async function readOneMoment(db: Queryable, kind: EngineKind) {
  if (kind == 'postgres') await db.run(q.repeatableRead);
}

/** Every row of `table`, each as its values in `columns`' order. */
export async function readRows(db: Queryable, table: TableShape): Promise<unknown[][]> {
  const rows = await db.all(
    sql<[], Row>(`SELECT ${table.columns.map(quote).join(', ')} FROM ${quote(table.name)} ORDER BY ${table.order}`),
  );
  return rows.map((r) => table.columns.map((c) => r[c]));
}

/** The last number each auto-numbered key has handed out, by table (ids of rows since deleted
 * included: a restored platform does not hand them out again). */
export async function sequences(db: Queryable, kind: EngineKind, tables: TableShape[]) {
  const out: Record<string, number> = {};
  if (kind == 'sqlite') {
    if (!(await db.value(q.sqliteHasSequences))) return out;
    const auto = new Set(tables.filter((t) => t.autoId).map((t) => t.name));
    for (const s of await db.all(q.sqliteSequences)) if (auto.has(s.name)) out[s.name] = Number(s.seq);
    return out;
  }
  for (const t of tables) {
    if (!t.autoId) continue;
    const v = await db.value(q.pgSequence, t.name, t.autoId);
    if (v != null) out[t.name] = Number(v);
  }
  return out;
}

/** Parameters in one INSERT: under SQLite's 32,766 and PostgreSQL's 65,535. */
const MAX_PARAMS = 30_000;

/** Replaces every row of `tables` with `data` (by table name: its columns and rows), in the
 * transaction `t`, and carries each auto-numbered key on past the larger of the snapshot's last
 * number and its largest id. */
export async function replaceRows(
  t: Queryable,
  kind: EngineKind,
  tables: TableShape[],
  data: Map<string, { columns: string[]; rows: unknown[][] }>,
  lastIds: Record<string, number>,
) {
  if (kind == 'postgres')
    // One statement for all: the foreign keys between them need no order, and the tables stay
    // locked against every other transaction until this one ends.
    await t.exec(`TRUNCATE ${[...tables.map((s) => s.name), 'rollup_deltas'].map(quote).join(', ')}`);
  else for (const s of [...tables].reverse()) await t.run(sql(`DELETE FROM ${quote(s.name)}`));
  for (const s of tables) {
    const given = data.get(s.name);
    if (given?.rows.length) await insertRows(t, s.name, given.columns, given.rows);
    if (s.autoId) await continueIds(t, kind, s, lastIds[s.name] ?? 0);
  }
}

async function insertRows(t: Queryable, table: string, columns: string[], rows: unknown[][]) {
  const per = Math.max(1, Math.min(500, Math.floor(MAX_PARAMS / columns.length)));
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const head = `INSERT INTO ${quote(table)} (${columns.map(quote).join(', ')}) VALUES `;
  for (let at = 0; at < rows.length; at += per) {
    const batch = rows.slice(at, at + per);
    await t.run(sql<Param[]>(head + batch.map(() => tuple).join(', ')), ...(batch.flat() as Param[]));
  }
}

async function continueIds(t: Queryable, kind: EngineKind, s: TableShape, last: number) {
  const column = quote(s.autoId!);
  const max = Number(
    (await t.value(sql<[], { m: number | null }>(`SELECT max(${column}) AS m FROM ${quote(s.name)}`))) ?? 0,
  );
  const next = Math.max(last, max);
  if (kind == 'sqlite') {
    await t.run(q.sqliteDropSequence, s.name);
    if (next > 0) await t.run(q.sqliteSetSequence, s.name, next);
    return;
  }
  // is_called false at 1: the next id is 1, as in a new database.
  await t.value(
    sql<[string, string, number, boolean], { v: number }>('SELECT setval(pg_get_serial_sequence(?, ?), ?, ?) AS v'),
    s.name,
    s.autoId!,
    Math.max(next, 1),
    next > 0,
  );
}
