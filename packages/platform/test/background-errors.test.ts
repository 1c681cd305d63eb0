import { describe, expect, it } from 'vitest';
import { backgroundErrors, QUIET_MS } from '../src/background-errors';
import { PlatformError } from '../src/domain/errors';

const unavailable = () => new PlatformError('unavailable', 'the database is unavailable; try again shortly');

describe('background errors in the log', () => {
  it('logs the first of a run of "unavailable" errors, then one a minute with how many were left out; other errors each time', () => {
    const lines: { obj: Record<string, unknown>; msg: string }[] = [];
    let now = 0;
    const onError = backgroundErrors(
      { error: ((obj: Record<string, unknown>, msg: string) => lines.push({ obj, msg })) as never },
      () => now,
    )('scheduler');
    for (let i = 0; i < 30; i++, now += 1000) onError(unavailable());
    expect(lines.map((l) => l.msg)).toEqual(['scheduler: the database is unavailable; try again shortly']);
    now = QUIET_MS;
    onError(unavailable());
    expect(lines[1]).toMatchObject({
      msg: 'scheduler: the database is unavailable; try again shortly (29 more since the last report)',
      obj: { leftOut: 29 },
    });
    const bug = new TypeError('x is undefined');
    onError(bug);
    onError(bug);
    expect(lines.slice(2).map((l) => [l.obj.err, l.msg])).toEqual([
      [bug, 'scheduler'],
      [bug, 'scheduler'],
    ]);
  });

  it('keeps each piece of background work apart', () => {
    const msgs: string[] = [];
    const errors = backgroundErrors({ error: ((_: unknown, msg: string) => msgs.push(msg)) as never }, () => 0);
    errors('scheduler')(unavailable());
    errors('workflow engine')(unavailable());
    expect(msgs.map((m) => m.split(':')[0])).toEqual(['scheduler', 'workflow engine']);
  });
});
