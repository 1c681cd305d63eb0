/** Snapshots of the whole platform (every portal, every table, uploaded files' bytes) as one file
 * (snapshot-format.ts), and loading one back, atomic both ways:
 * - an export reads one moment's data (one transaction) and, to a file, writes a temporary file
 *   that is renamed over the target only once whole: a failed export never leaves a cut file
 *   where a good one was (the Firebase emulator's lost-data bug, its fix #3511);
 * - an import checks the whole file first (format, schema version, every table and column, every
 *   file's hash), writes the files' bytes beside the data directory, then replaces every table in
 *   one transaction and swaps the files directory in as that transaction's last act (swapped back
 *   if it still fails): a bad, cut or refused file leaves the old state as it was. */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { Engine, Queryable } from '../db/engine';
import { SCHEMA_VERSION } from '../db/schema';
import { PlatformError } from '../domain/errors';
import { readOneMoment, readRows, replaceRows, sequences, tableShapes } from '../db/snapshot-tables';
import {
  FILE_PATH,
  parseSnapshot,
  SNAPSHOT_FORMAT,
  type Snapshot,
  SnapshotError,
  type SnapshotFile,
  snapshotLines,
  type SnapshotTable,
} from './snapshot-format';

export { SnapshotError };

export interface SnapshotDeps {
  engine: Engine;
  /** The uploaded files' directory (store/files/blobs.ts: `<portal id>/<sha-256>`). */
  filesRoot: string;
  now: () => number;
  /** Moves the dashboard's pending counters into its tables (PostgreSQL's deltas). */
  fold: () => Promise<unknown>;
  /** In the import's transaction, before and after its writes: the caches drop what they hold. */
  forget: (t: Queryable) => Promise<void>;
  /** After an import has committed, with the snapshot's time (the clock may follow it). */
  imported?: (exportedAt: number) => void;
}

/** The files' bytes under `root`, by blob address; other names (temporary files) left out. */
function readFiles(root: string): SnapshotFile[] {
  if (!existsSync(root)) return [];
  const files: SnapshotFile[] = [];
  for (const portal of readdirSync(root).sort())
    for (const hash of /^\d+$/.test(portal) ? readdirSync(join(root, portal)).sort() : []) {
      const path = `${portal}/${hash}`;
      if (!FILE_PATH.test(path)) continue;
      try {
        files.push({ path, bytes: readFileSync(join(root, portal, hash)) });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code != 'ENOENT') throw err; // removed meanwhile: gone
      }
    }
  return files;
}

export function snapshots({ engine, filesRoot, now, fold, forget, imported }: SnapshotDeps) {
  /** The whole state, read in one transaction. */
  async function take(): Promise<Snapshot> {
    await fold();
    const { header, tables } = await engine.tx(async (t) => {
      await readOneMoment(t, engine.kind);
      const shapes = await tableShapes(t, engine.kind);
      const tables = new Map<string, SnapshotTable>();
      for (const s of shapes) tables.set(s.name, { columns: s.columns, rows: await readRows(t, s) });
      const header = {
        snapshot: 'svc-platform' as const,
        format: SNAPSHOT_FORMAT,
        schemaVersion: SCHEMA_VERSION,
        engine: engine.kind,
        exportedAt: now(),
        sequences: await sequences(t, engine.kind, shapes),
      };
      return { header, tables };
    });
    // Blobs are never changed in place (named by their hash), so reading them after is safe.
    return { header, tables, files: readFiles(filesRoot) };
  }

  /** The snapshot as a gzip stream (the API's answer body). */
  async function exportStream(): Promise<Readable> {
    const snapshot = await take();
    return Readable.from(snapshotLines(snapshot)).pipe(createGzip());
  }

  /** Writes a snapshot to `path`: a temporary file beside it, renamed over it once whole. */
  async function exportToFile(path: string) {
    const snapshot = await take();
    mkdirSync(dirname(path), { recursive: true });
    const tmp = `${path}.${randomUUID()}.tmp`;
    try {
      await pipeline(Readable.from(snapshotLines(snapshot)), createGzip(), createWriteStream(tmp, { mode: 0o600 }));
      await rename(tmp, path);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }

  /** Loads a snapshot file's bytes in place of the whole state (see the file's comment). */
  async function importBody(body: Buffer) {
    const snapshot = parseSnapshot(body);
    const { header } = snapshot;
    if (header.schemaVersion != SCHEMA_VERSION)
      throw new SnapshotError(
        `the snapshot is of schema version ${header.schemaVersion} and this platform's is ${SCHEMA_VERSION}: take it again from a platform of this version`,
      );
    const staging = `${filesRoot}.importing-${randomUUID()}`;
    const replaced = `${filesRoot}.replaced-${randomUUID()}`;
    let swapped = false;
    const swap = () => {
      if (existsSync(filesRoot)) renameSync(filesRoot, replaced);
      renameSync(staging, filesRoot);
      swapped = true;
    };
    try {
      mkdirSync(staging, { recursive: true });
      for (const f of snapshot.files) {
        mkdirSync(join(staging, dirname(f.path)), { recursive: true });
        writeFileSync(join(staging, f.path), f.bytes);
      }
      await engine.tx(async (t) => {
        const shapes = await tableShapes(t, engine.kind);
        checkTables(snapshot, shapes);
        await forget(t);
        await replaceRows(t, engine.kind, shapes, snapshot.tables, header.sequences).catch((err: unknown) => {
          // Rows the database refuses (a text where a number goes, a key twice) are the file's
          // fault; a database that is gone is not.
          if (err instanceof PlatformError && err.kind == 'unavailable') throw err;
          throw new SnapshotError(`the snapshot's rows do not load: ${(err as Error).message}`);
        });
        await forget(t);
        swap(); // the last act: if the commit still fails, swapped back below
      });
    } catch (err) {
      if (swapped) {
        rmSync(filesRoot, { recursive: true, force: true });
        if (existsSync(replaced)) renameSync(replaced, filesRoot);
      }
      rmSync(staging, { recursive: true, force: true });
      throw err;
    }
    rmSync(replaced, { recursive: true, force: true });
    imported?.(header.exportedAt);
    return {
      tables: snapshot.tables.size,
      rows: [...snapshot.tables.values()].reduce((n, t) => n + t.rows.length, 0),
      files: snapshot.files.length,
    };
  }

  return {
    take,
    exportStream,
    exportToFile,
    importBody,
    importFile: (path: string) => importBody(readFileSync(path)),
  };
}

/** The snapshot's tables are this database's, each with the same columns. */
function checkTables(snapshot: Snapshot, shapes: { name: string; columns: string[] }[]) {
  const names = new Set(shapes.map((s) => s.name));
  for (const name of snapshot.tables.keys())
    if (!names.has(name)) throw new SnapshotError(`the snapshot has a table this platform does not: ${name}`);
  for (const s of shapes) {
    const t = snapshot.tables.get(s.name);
    if (!t) throw new SnapshotError(`the snapshot lacks table ${s.name}`);
    const given = [...t.columns].sort().join(', ');
    if (given != [...s.columns].sort().join(', '))
      throw new SnapshotError(
        `the snapshot's table ${s.name} has columns ${given}, not ${[...s.columns].sort().join(', ')}`,
      );
  }
}

export type Snapshots = ReturnType<typeof snapshots>;
