/** The WAL checkpointer (src/db/checkpointer.ts): a worker thread copies the WAL into the database
 * while the main thread keeps committing, and the WAL starts over instead of growing. */
import { execFile } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, readSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { startCheckpointer } from '../src/db/checkpointer';
import { sqliteEngine } from '../src/db/engine-sqlite';
import { AUTOCHECKPOINT, openDatabase } from '../src/db/open';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function setup() {
  const dir = mkdtempSync(join(os.tmpdir(), 'svc-checkpoint-'));
  dirs.push(dir);
  const file = join(dir, 'platform.db');
  const db = openDatabase(file);
  db.exec('CREATE TABLE blobs (id INTEGER PRIMARY KEY, data BLOB NOT NULL)');
  // The engine's group commit, with its afterCommit hook settable as the platform's is.
  let afterCommit: (() => void) | undefined;
  const engine = sqliteEngine(db, { groupCommit: true, afterCommit: () => afterCommit?.() });
  const group = {
    run: <T>(fn: () => T) => engine.tx(async () => fn()),
    onCommit: (fn: (() => void) | undefined) => (afterCommit = fn),
  };
  return { file, db, group, insert: db.prepare('INSERT INTO blobs (data) VALUES (?)') };
}

const walBytes = (file: string) => statSync(`${file}-wal`).size;
/** How many times the WAL has started over: its header's checkpoint sequence number (bytes 12–15). */
function walRestarts(file: string) {
  const fd = openSync(`${file}-wal`, 'r');
  try {
    const header = Buffer.alloc(16);
    readSync(fd, header, 0, 16, 0);
    return header.readUInt32BE(12);
  } finally {
    closeSync(fd);
  }
}

describe('WAL checkpointer', () => {
  it('keeps the WAL bounded by checkpointing in a worker while the main thread commits', async () => {
    const { file, db, group, insert } = setup();
    // The main connection's own checkpoint effectively off: only the worker (and the main
    // thread finishing what the worker nearly finished) can start the WAL over.
    const checkpoints = startCheckpointer(db, file, { restartAt: 200, fallbackAt: 1_000_000, everyMs: 2 });
    group.onCommit(checkpoints.afterCommit);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1_000_000);
    const page = Buffer.alloc(4000, 1);
    // 6,000 commits back to back, each of a few pages: without restarts the WAL grows to about
    // 75 MB (it did, with restartAt out of reach); with them it peaks at 8–12 MB on an idle
    // machine, and at up to about 40 MB when the whole suite keeps both cores busy and the worker
    // gets little time. The bound tells bounded from unbounded growth, not how busy the machine is.
    await group.run(() => insert.run(page));
    const restartsBefore = walRestarts(file);
    for (let i = 1; i < 6000; i++) await group.run(() => insert.run(page));
    expect(db.prepare('SELECT count(*) FROM blobs').pluck().get()).toBe(6000);
    // Started over again and again (a WAL never restarted keeps its first sequence number), and
    // smaller than unbounded growth: a size bound alone was outlasted once in CI (55.2 MB).
    expect(walRestarts(file) - restartsBefore).toBeGreaterThanOrEqual(3);
    expect(walBytes(file)).toBeLessThan(70 * 2 ** 20);

    await checkpoints.stop();
    // Stopped: the main connection checkpoints on its own again.
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(AUTOCHECKPOINT);
    db.close();
  });

  it('hands checkpoints back to the main connection when the worker fails', async () => {
    const { file, db } = setup();
    const errors: unknown[] = [];
    // The worker cannot open this file: it fails at once.
    const checkpoints = startCheckpointer(db, join(file, 'not-a-database'), { onError: (err) => errors.push(err) });
    await checkpoints.stop();
    expect(errors).toHaveLength(1);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(AUTOCHECKPOINT);
    checkpoints.afterCommit(); // a no-op now
    db.close();
  });

  it('stops cleanly before the database closes, leaving no WAL behind', async () => {
    const { file, db, group, insert } = setup();
    const checkpoints = startCheckpointer(db, file, { everyMs: 2 });
    group.onCommit(checkpoints.afterCommit);
    await group.run(() => insert.run(Buffer.alloc(100)));
    await checkpoints.stop();
    await checkpoints.stop(); // twice is harmless
    db.close();
    // The main connection was the last one: closing it checkpointed and removed the WAL.
    expect(() => statSync(`${file}-wal`)).toThrow();
  });

  it('lets close() finish in a process that has nothing else to wait for (the built package)', async () => {
    const dir = mkdtempSync(join(os.tmpdir(), 'svc-checkpoint-'));
    dirs.push(dir);
    const entry = fileURLToPath(new URL('../dist/index.js', import.meta.url));
    const code = `import { createPlatform } from ${JSON.stringify(entry)};
      const platform = createPlatform({ database: ${JSON.stringify(join(dir, 'p.db'))}, logger: false });
      await platform.listen({ basePort: 0, formsPort: 0 });
      await platform.close();
      console.log('closed');`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', code]);
    expect(stdout.trim()).toBe('closed');
    expect(readdirSync(dir)).toEqual(['p.db']); // no WAL left: the database was closed last
  });
});
