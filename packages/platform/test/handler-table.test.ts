/** The handler table: every group's handlers in one table, and a route id handled twice refused
 * when the platform starts (a later group silently winning would hide a mistake). */
import { describe, expect, it } from 'vitest';
import { Reply } from '../src/handlers/handler';
import { combine } from '../src/handlers/index';

describe('handler table', () => {
  it('merges the groups and refuses a route id handled twice, naming both groups', () => {
    const a = (() => new Reply(204)) as never;
    expect(Object.keys(combine({ one: { 'contacts.getByVid': a }, two: { 'forms.list': a } }))).toEqual([
      'contacts.getByVid',
      'forms.list',
    ]);
    expect(() => combine({ contacts: { 'contacts.getByVid': a }, misc: { 'contacts.getByVid': a } })).toThrow(
      'route contacts.getByVid has two handlers: in contacts and in misc',
    );
  });
});
