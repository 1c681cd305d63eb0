/** The snapshot file: gzip of JSON lines, one record a line, so that a reader can tell a whole
 * file from a cut one (gzip's own check, then the last line's counts):
 *
 *   {"snapshot":"svc-platform","format":1,"schemaVersion":19,"engine":"sqlite","exportedAt":…,"sequences":{…}}
 *   {"table":"portals","columns":["id","name",…],"rows":2}
 *   [1,"Acme",…]                      ← that many rows, values in the columns' order
 *   …                                 ← every table, parents before children
 *   {"file":"1/<sha-256>","base64":"…"}   ← uploaded files' bytes (files/blobs.ts layout)
 *   {"end":true,"tables":36,"rows":1234,"files":3}
 *
 * Values are JSON's: numbers, text and null are all the schema holds (ids and times are
 * integers below 2^53, flags 0/1, JSON columns text), so a file from either engine loads into the
 * other. Parsing checks the whole file before anything is written. */
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';

export const SNAPSHOT_FORMAT = 1;
const MAGIC = 'svc-platform';

export interface SnapshotHeader {
  snapshot: typeof MAGIC;
  format: number;
  schemaVersion: number;
  engine: string;
  /** The platform clock's time when it was taken. */
  exportedAt: number;
  /** The last number each auto-numbered key had handed out, by table. */
  sequences: Record<string, number>;
}

export interface SnapshotTable {
  columns: string[];
  rows: unknown[][];
}

export interface SnapshotFile {
  /** `<portal id>/<sha-256 of the bytes>`. */
  path: string;
  bytes: Buffer;
}

export interface Snapshot {
  header: SnapshotHeader;
  tables: Map<string, SnapshotTable>;
  files: SnapshotFile[];
}

/** A snapshot that cannot be loaded: the message names the problem (the API's 400). */
export class SnapshotError extends Error {}

export const FILE_PATH = /^\d{1,15}\/[0-9a-f]{64}$/;

/** The file's lines, in order (each ends with a newline). */
export function* snapshotLines(s: Snapshot): Generator<string> {
  yield JSON.stringify(s.header) + '\n';
  let rows = 0;
  for (const [name, t] of s.tables) {
    yield JSON.stringify({ table: name, columns: t.columns, rows: t.rows.length }) + '\n';
    for (const r of t.rows) yield JSON.stringify(r) + '\n';
    rows += t.rows.length;
  }
  for (const f of s.files) yield JSON.stringify({ file: f.path, base64: f.bytes.toString('base64') }) + '\n';
  yield JSON.stringify({ end: true, tables: s.tables.size, rows, files: s.files.length }) + '\n';
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v == 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const isValue = (v: unknown) => v === null || typeof v == 'string' || (typeof v == 'number' && Number.isFinite(v));

/** The text of a snapshot body: gunzipped when it is gzip (a cut gzip file fails here), as is
 * otherwise (JSON lines written by hand). */
function textOf(body: Buffer): string {
  if (body.length >= 2 && body[0] == 0x1f && body[1] == 0x8b) {
    try {
      return gunzipSync(body).toString('utf8');
    } catch (err) {
      throw new SnapshotError(`the snapshot is not whole gzip (cut short?): ${(err as Error).message}`);
    }
  }
  return body.toString('utf8');
}

/** Reads and checks a whole snapshot: every line, every row's width, every file's hash, and the
 * last line's counts. Throws a SnapshotError naming the first problem. */
export function parseSnapshot(body: Buffer): Snapshot {
  if (!body.length) throw new SnapshotError('the snapshot is empty: send the file GET /_admin/snapshot gave');
  const lines = textOf(body).split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let at = 0;
  const next = (): unknown => {
    if (at >= lines.length)
      throw new SnapshotError(`the snapshot ends at line ${at} before its last line (cut short?)`);
    const line = lines[at++];
    try {
      return JSON.parse(line);
    } catch {
      throw new SnapshotError(`line ${at} of the snapshot is not JSON (cut short?)`);
    }
  };
  const header = next();
  if (!isObject(header) || header.snapshot !== MAGIC)
    throw new SnapshotError('this is not an svc-platform snapshot (its first line does not say so)');
  if (header.format !== SNAPSHOT_FORMAT)
    throw new SnapshotError(`snapshot format ${String(header.format)} is not this platform's (${SNAPSHOT_FORMAT})`);
  if (!isCount(header.schemaVersion) || !isCount(header.exportedAt) || !isObject(header.sequences))
    throw new SnapshotError('the snapshot header lacks schemaVersion, exportedAt or sequences');
  for (const [name, v] of Object.entries(header.sequences))
    if (!isCount(v)) throw new SnapshotError(`the snapshot header's sequence of ${name} is not a whole number`);
  const tables = new Map<string, SnapshotTable>();
  const files: SnapshotFile[] = [];
  let rows = 0;
  for (;;) {
    const record = next();
    if (!isObject(record)) throw new SnapshotError(`line ${at} of the snapshot is not a record where one was expected`);
    if (typeof record.table == 'string') {
      const { table, columns, rows: count } = record;
      if (tables.has(table)) throw new SnapshotError(`the snapshot has table ${table} twice`);
      if (!Array.isArray(columns) || !columns.every((c) => typeof c == 'string') || !isCount(count))
        throw new SnapshotError(`line ${at}: table ${table} needs its columns and its row count`);
      const t: SnapshotTable = { columns, rows: [] };
      for (let i = 0; i < count; i++) {
        const row = next();
        if (!Array.isArray(row) || row.length != columns.length || !row.every(isValue))
          throw new SnapshotError(`line ${at}: a row of ${table} must be ${columns.length} numbers, texts or nulls`);
        t.rows.push(row);
      }
      tables.set(table, t);
      rows += count;
    } else if (typeof record.file == 'string') {
      if (!FILE_PATH.test(record.file) || typeof record.base64 != 'string')
        throw new SnapshotError(`line ${at}: a file must be {file: "<portal id>/<sha-256>", base64}`);
      const bytes = Buffer.from(record.base64, 'base64');
      if (createHash('sha256').update(bytes).digest('hex') != record.file.split('/')[1])
        throw new SnapshotError(`line ${at}: the bytes of file ${record.file} do not match its hash`);
      files.push({ path: record.file, bytes });
    } else if (record.end === true) {
      if (record.tables !== tables.size || record.rows !== rows || record.files !== files.length)
        throw new SnapshotError(
          `the snapshot's last line counts ${String(record.tables)} tables, ${String(record.rows)} rows and ${String(record.files)} files, but it holds ${tables.size}, ${rows} and ${files.length}`,
        );
      if (at != lines.length) throw new SnapshotError(`the snapshot goes on after its last line (line ${at})`);
      return { header: header as unknown as SnapshotHeader, tables, files };
    } else throw new SnapshotError(`line ${at} of the snapshot is neither a table, a row, a file nor the end`);
  }
}
