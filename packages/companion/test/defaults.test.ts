/** The README's options table against the code: one row per option of `CompanionOptions` (read from
 * src/options.ts), and for each default that is a plain value the row shows `DEFAULTS`' value as
 * its first code span, written as in the source (`30_000`, `'/svc'`, `{ limit: 600, … }`). A row
 * whose default is worked out at creation shows prose there, never a literal the code lacks. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../src';

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const OPTIONS_TS = readFileSync(new URL('../src/options.ts', import.meta.url), 'utf8');

/** A value as the README writes it: numbers from 1,000 up with `_` separators. */
export function literal(value: unknown): string {
  if (typeof value == 'number') return value >= 1000 ? value.toLocaleString('en-US').replace(/,/g, '_') : String(value);
  if (typeof value == 'string') return `'${value}'`;
  if (typeof value == 'boolean' || value === null) return String(value);
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (typeof value == 'object')
    return `{ ${Object.entries(value)
      .map(([k, v]) => `${k}: ${literal(v)}`)
      .join(', ')} }`;
  throw new Error(`DEFAULTS holds a ${typeof value}, which is not a plain value`);
}

/** Looks like a value rather than prose or an expression: a number, a quoted string, true/false, [...], {...}. */
const looksLiteral = (code: string) => /^(-?[\d_]+(\.\d+)?|'.*'|true|false|null|\[.*\]|\{.*\})$/.test(code);

/** The Options section's rows: option name → its default cell. */
function readmeRows() {
  const section = README.slice(README.indexOf('## Options'), README.indexOf('\n## ', README.indexOf('## Options') + 1));
  const rows = new Map<string, string>();
  // The first table of the section (the next one lists what the companion carries).
  const table = section.slice(section.indexOf('\n|')).split('\n\n')[0];
  for (const line of table.split('\n')) {
    const m = /^\| `([\w.]+)` \| (.*?) \|/.exec(line);
    if (m) rows.set(m[1], m[2]);
  }
  return rows;
}

/** The options `CompanionOptions` declares, groups as `group.key`, from the source. */
function declaredOptions() {
  const body = OPTIONS_TS.slice(
    OPTIONS_TS.indexOf('export interface CompanionOptions {'),
    OPTIONS_TS.indexOf('\n}\n', OPTIONS_TS.indexOf('export interface CompanionOptions {')),
  );
  const names: string[] = [];
  let group: string | undefined;
  for (const line of body.split('\n').slice(1)) {
    const top = /^ {2}(\w+)\??:(.*)$/.exec(line);
    const nested = /^ {4}(\w+)\??:/.exec(line);
    if (top) {
      group = top[2].trim() == '{' ? top[1] : undefined;
      if (!group) names.push(top[1]);
    } else if (nested && group) names.push(`${group}.${nested[1]}`);
  }
  return names;
}

/** `DEFAULTS` as table rows: a group without a row of its own (visitor, events, ...) by its keys. */
function defaultRows(rows: Map<string, string>) {
  const out = new Map<string, unknown>();
  for (const [key, value] of Object.entries(DEFAULTS)) {
    if (value && typeof value == 'object' && !Array.isArray(value) && !rows.has(key))
      for (const [sub, v] of Object.entries(value)) out.set(`${key}.${sub}`, v);
    else out.set(key, value);
  }
  return out;
}

const firstCode = (cell: string) => /`([^`]*)`/.exec(cell)?.[1];

describe('DEFAULTS and the README options table', () => {
  const rows = readmeRows();

  it('reads the table and the interface', () => {
    expect(rows.size).toBeGreaterThan(30);
    expect(declaredOptions()).toContain('visitor.cacheTtlMs');
  });

  it('has one row per option, no more, no fewer', () => {
    expect([...rows.keys()].sort()).toEqual(declaredOptions().sort());
  });

  it('shows every plain default as DEFAULTS holds it', () => {
    const wrong: string[] = [];
    for (const [name, value] of defaultRows(rows)) {
      const cell = rows.get(name);
      if (cell === undefined) wrong.push(`${name}: no row in the README`);
      else if (cell.startsWith('—')) wrong.push(`${name}: the README says there is no default`);
      else if (firstCode(cell) != literal(value))
        wrong.push(
          `${name}: the README shows ${firstCode(cell) ?? cell.slice(0, 40)}, DEFAULTS holds ${literal(value)}`,
        );
    }
    expect(wrong).toEqual([]);
  });

  it('shows no literal default that DEFAULTS does not hold', () => {
    const defaults = defaultRows(rows);
    const extra = [...rows].filter(
      ([name, cell]) => !defaults.has(name) && cell.startsWith('`') && looksLiteral(firstCode(cell) ?? ''),
    );
    expect(extra.map(([name, cell]) => `${name}: ${cell}`)).toEqual([]);
  });

  it('writes values as the source does', () => {
    expect(literal({ limit: 600, windowMs: 60_000 })).toBe('{ limit: 600, windowMs: 60_000 }');
    expect(literal(['a', 'b'])).toBe("['a', 'b']");
    expect(literal(2_592_000_000)).toBe('2_592_000_000');
    expect(looksLiteral("'/svc'")).toBe(true);
    expect(looksLiteral('Date.now')).toBe(false);
  });
});
