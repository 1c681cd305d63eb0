/** How the platform opens a SQLite file (src/db/open.ts): WAL, the file mapped into memory up to
 * SQLite's 2 GiB limit, and a small page cache (its commits would otherwise scan a large one). */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/open';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function tempFile() {
  const dir = mkdtempSync(join(os.tmpdir(), 'svc-open-'));
  dirs.push(dir);
  return join(dir, 'platform.db');
}

describe('openDatabase', () => {
  it('maps the file up to 2 GiB (the driver takes it whole) and keeps an 8 MB page cache, in WAL mode', () => {
    const db = openDatabase(tempFile());
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('mmap_size', { simple: true })).toBe(0x7fff0000);
    expect(db.pragma('cache_size', { simple: true })).toBe(-8192);
    db.close();
  });

  it('reads and rewrites a database larger than its page cache, across a reopen, row for row', () => {
    const file = tempFile();
    let db = openDatabase(file);
    db.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, k TEXT NOT NULL UNIQUE, data TEXT NOT NULL)');
    const insert = db.prepare('INSERT INTO rows (k, data) VALUES (?, ?)');
    // Random keys: page splits all over the index, as the collector's visitors make.
    const keys = Array.from({ length: 40_000 }, (_, i) => `${((i * 2_654_435_761) % 4_294_967_296).toString(16)}-${i}`);
    db.transaction(() => keys.forEach((k, i) => insert.run(k, `${i}:${'x'.repeat(500)}`)))();
    const update = db.prepare('UPDATE rows SET data = ? WHERE k = ?');
    for (let i = 0; i < 200; i++)
      db.transaction(() => keys.slice(i * 50, i * 50 + 50).forEach((k, j) => update.run(`${i * 50 + j}:updated`, k)))();
    db.close();
    db = openDatabase(file);
    expect(Number(db.pragma('page_count', { simple: true })) * 4096).toBeGreaterThan(2 * 8192 * 1024);
    const read = db.prepare('SELECT data FROM rows WHERE k = ?').pluck();
    keys.forEach((k, i) => expect(read.get(k)).toBe(i < 10_000 ? `${i}:updated` : `${i}:${'x'.repeat(500)}`));
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
  });
});
