/** The file outbox on its own: what a reopen hands back, torn last lines, starting over when
 * everything is sent, compaction while events still wait, and one process per file. */
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { QueuedEvent } from '../src/events/event';
import { Outbox, OutboxInUseError } from '../src/events/outbox';
import { tempDir } from './harness';

const event = (id: string): QueuedEvent => ({ id, name: 'x', email: `${id}@example.com`, occurredAt: 1 });
const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);

describe('Outbox', () => {
  it('hands back on reopen exactly the events not acknowledged, ignoring a torn last line', async () => {
    const file = join(tempDir(), 'outbox.jsonl');
    const a = new Outbox(file);
    expect(await a.open()).toEqual([]);
    await Promise.all([a.append([event('e1'), event('e2')]), a.append([event('e3')])]);
    await a.ack(['e2'], () => [event('e1'), event('e3')]);
    await a.close();
    appendFileSync(file, '{"e":{"id":"torn","na'); // a crash mid-write
    const b = new Outbox(file);
    expect((await b.open()).map((e) => e.id)).toEqual(['e1', 'e3']);
    expect(lines(file)).toHaveLength(2); // reopened compact
    await b.close();
  });

  it('starts over when nothing waits', async () => {
    const file = join(tempDir(), 'outbox.jsonl');
    const o = new Outbox(file);
    await o.open();
    await o.append([event('e1')]);
    await o.ack(['e1'], () => []);
    expect(readFileSync(file, 'utf8')).toBe('');
    await o.close();
  });

  it('rewrites itself with only the waiting events once it grows past compactAt', async () => {
    const file = join(tempDir(), 'outbox.jsonl');
    const o = new Outbox(file, 5);
    await o.open();
    const waiting = new Map<string, QueuedEvent>();
    for (let i = 0; i < 8; i++) {
      const e = event(`e${i}`);
      waiting.set(e.id, e);
      await o.append([e]);
      if (i % 2 == 0) {
        waiting.delete(e.id);
        await o.ack([e.id], () => [...waiting.values()]);
      }
    }
    expect(lines(file).length).toBeLessThanOrEqual(6);
    await o.close();
    const again = new Outbox(file);
    expect((await again.open()).map((e) => e.id).sort()).toEqual(['e1', 'e3', 'e5', 'e7']);
    await again.close();
  });

  it('belongs to one process: a live owner refuses a second one, a dead owner is taken over', async () => {
    const file = join(tempDir(), 'outbox.jsonl');
    const o = new Outbox(file);
    await o.open();
    expect(readFileSync(`${file}.lock`, 'utf8')).toBe(String(process.pid));
    await o.append([event('e1')]);
    await o.close();
    expect(existsSync(`${file}.lock`)).toBe(false);

    // Another process holds it.
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)']);
    await new Promise((resolve) => other.once('spawn', resolve));
    writeFileSync(`${file}.lock`, String(other.pid));
    const second = new Outbox(file);
    const refused = await second.open().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OutboxInUseError);
    expect((refused as Error).message).toBe(
      `the event outbox is in use by process ${other.pid}: give each companion process its own events.outboxFile`,
    );
    expect(readFileSync(file, 'utf8')).toContain('"e1"'); // untouched

    // It died without closing (a crash): the next open takes over and finds the event.
    other.kill('SIGKILL');
    await new Promise((resolve) => other.once('exit', resolve));
    const third = new Outbox(file);
    expect((await third.open()).map((e) => e.id)).toEqual(['e1']);
    expect(readFileSync(`${file}.lock`, 'utf8')).toBe(String(process.pid));
    await third.close();
  });
});
