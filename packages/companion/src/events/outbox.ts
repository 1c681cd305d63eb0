/** The file outbox: every accepted event is written (and fsynced) before it is acknowledged, and
 * marked sent once the platform took it. A crash or restart loses nothing accepted: on open, the
 * events not marked sent are handed back to be sent again (the platform deduplicates by id, so an
 * event sent just before a crash still counts once).
 *
 * Format: JSON lines, `{"e": event}` for an accepted event and `{"a": [ids]}` for sent ones. A
 * torn last line (a crash mid-write) is ignored. Writes of one turn share one write + fsync.
 *
 * One file, one process: a second process would truncate or rewrite the file under the first
 * one's unsent events. `<file>.lock` holds the owner's pid while the outbox is open; a lock whose
 * process is gone (a crash) is taken over, and a live one refuses the second process. */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open, rename, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { QueuedEvent } from './event';

export class Outbox {
  private fh?: FileHandle;
  private chain: Promise<unknown> = Promise.resolve();
  private waiting: { line: string; done: () => void; fail: (e: unknown) => void }[] = [];
  private lines = 0;

  constructor(
    private readonly path: string,
    /** Rewrite the file once it holds more lines than this (and events still wait). */
    private readonly compactAt = 10_000,
  ) {}

  /** Opens the file and returns the events still to send, oldest first. */
  async open(): Promise<QueuedEvent[]> {
    mkdirSync(dirname(this.path), { recursive: true });
    this.lock();
    const pending = new Map<string, QueuedEvent>();
    let text = '';
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code != 'ENOENT') throw e;
    }
    for (const line of text.split('\n')) {
      if (!line) continue;
      let rec: { e?: QueuedEvent; a?: string[] };
      try {
        rec = JSON.parse(line) as typeof rec;
      } catch {
        continue; // a torn line from a crash mid-write
      }
      if (rec.e && typeof rec.e.id == 'string') pending.set(rec.e.id, rec.e);
      for (const id of rec.a ?? []) pending.delete(id);
    }
    const events = [...pending.values()];
    // Start from a compact file: only what is still to send.
    await this.rewrite(events);
    return events;
  }

  /** Resolves once the events are on disk. */
  append(events: QueuedEvent[]) {
    return this.write(events.map((e) => JSON.stringify({ e }) + '\n').join(''));
  }

  /** Marks events sent. `unsent()` — every event accepted and not yet acknowledged, including
   * ones still being appended — is asked after the write, in turn with the other writes: when it
   * is empty the file starts over; when the file has grown past `compactAt` lines it is rewritten
   * with just those events, so a companion that is never idle still keeps a small outbox. */
  ack(ids: string[], unsent: () => QueuedEvent[]) {
    if (!ids.length) return Promise.resolve();
    return this.write(JSON.stringify({ a: ids }) + '\n').then(() =>
      this.serial(async () => {
        if (!this.fh || this.waiting.length) return;
        const left = unsent();
        if (left.length == 0) {
          await this.fh.truncate(0);
          this.lines = 0;
        } else if (this.lines > this.compactAt) await this.rewrite(left);
      }),
    );
  }

  /** Replaces the file with `events` (temp file, fsync, rename) and appends to the new one. */
  private async rewrite(events: QueuedEvent[]) {
    const tmp = `${this.path}.${process.pid}.tmp`;
    const fh = await open(tmp, 'w', 0o600);
    try {
      await fh.write(events.map((e) => JSON.stringify({ e }) + '\n').join(''));
      await fh.datasync();
    } finally {
      await fh.close();
    }
    await rename(tmp, this.path);
    await this.fh?.close();
    this.fh = await open(this.path, 'a', 0o600);
    this.lines = events.length;
  }

  async close() {
    await this.serial(async () => {
      await this.fh?.close();
      this.fh = undefined;
      if (this.locked) rmSync(`${this.path}.lock`, { force: true });
      this.locked = false;
    });
  }

  private locked = false;

  /** Takes `<file>.lock` (see the top of this file), or throws OutboxInUseError. */
  private lock() {
    const file = `${this.path}.lock`;
    for (;;) {
      try {
        writeFileSync(file, String(process.pid), { flag: 'wx', mode: 0o600 });
        this.locked = true;
        return;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code != 'EEXIST') throw e;
      }
      const owner = Number(readFileSync(file, 'utf8'));
      // Our own pid is an earlier run of this process's slot (a restarted container's pid 1).
      if (owner > 0 && owner != process.pid && alive(owner)) throw new OutboxInUseError(owner);
      rmSync(file, { force: true });
    }
  }

  /** Lines written since the file was compacted (for tests and metrics). */
  get size() {
    return this.lines;
  }

  private serial<T>(op: () => Promise<T>): Promise<T> {
    const p = this.chain.then(op);
    this.chain = p.catch(() => undefined);
    return p;
  }

  /** Group commit: lines queued in the same turn go out in one write and one fsync. */
  private write(line: string) {
    return new Promise<void>((done, fail) => {
      if (this.waiting.push({ line, done, fail }) > 1) return;
      void this.serial(async () => {
        const batch = this.waiting.splice(0);
        try {
          if (!this.fh) throw new Error('the event outbox is closed');
          await this.fh.write(batch.map((b) => b.line).join(''));
          await this.fh.datasync();
          this.lines += batch.length;
          for (const b of batch) b.done();
        } catch (e) {
          for (const b of batch) b.fail(e);
        }
      });
    });
  }
}

/** The outbox file is open in another live process. */
export class OutboxInUseError extends Error {
  readonly code = 'EOUTBOXINUSE';
  constructor(readonly owner: number) {
    super(`the event outbox is in use by process ${owner}: give each companion process its own events.outboxFile`);
  }
}

/** Whether a process with this pid exists (EPERM: it does, and belongs to someone else). */
function alive(pid: number) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code == 'EPERM';
  }
}
