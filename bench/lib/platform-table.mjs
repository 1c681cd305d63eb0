// bench/platform.mjs's table: one engine (measurement | result | target | ok?) or SQLite and
// PostgreSQL side by side, with PostgreSQL on two processes next to its one-process figures.
import { existsSync, statSync } from 'node:fs';
import { failedText, fmt, rateOf } from './measure.mjs';

/** Bytes of a SQLite database with its WAL and shared-memory files. */
export function sqliteSize(file) {
  return ['', '-wal', '-shm'].reduce((sum, ext) => sum + (existsSync(file + ext) ? statSync(file + ext).size : 0), 0);
}

export function printTable({ header, rows }, facts) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  console.log(['', line(header), line(header.map(() => '---')), ...rows.map(line), '', facts, ''].join('\n'));
}

/** `results`: measurement key → { label, cells: [result, target, ok?] }, in the table's order. */
export function oneEngineTable(results, peer) {
  const rows = [...results.values()].map(({ label, cells }) => [label, ...cells]);
  if (peer) rows.push([peer.label, ...peer.cells]);
  return { header: ['measurement', 'result', 'target', 'ok?'], rows };
}

const none = ['—', '—', '—'];

/** The 2-process cells of a measurement: its result (with failures, as there is no ok? column
 * for them), and how it compares with one process (throughput) and its target. */
function twoProcessCells(one, two) {
  if (!two) return ['—', '—'];
  const failed = two.r.failed && two.r.done ? `, ${failedText(two.r)}` : ''; // else the result says it
  const ratio = one?.r.done ? `${fmt(rateOf(two.r, two.per) / rateOf(one.r, one.per), 2)}× the throughput · ` : '';
  return [two.cells[0] + failed, `${ratio}target: ${two.cells[2]}`];
}

/** SQLite and PostgreSQL side by side: every measurement of either (PostgreSQL's order, which adds
 * the 2-connection lookup), the peer once (it stores nothing). */
export function twoEngineTable(sqlite, postgres, twoProcesses, peer) {
  const keys = [...new Set([...postgres.keys(), ...sqlite.keys()])];
  const rows = keys.map((key) => {
    const [a, b] = [sqlite.get(key), postgres.get(key)];
    // Labels name the vid offsets of the page measurements: the same on fresh databases, both shown if not.
    const label = a && b && a.label != b.label ? `${a.label} (PostgreSQL: ${b.label})` : (a ?? b).label;
    return [label, ...(a?.cells ?? none), ...(b?.cells ?? none), ...twoProcessCells(b, twoProcesses.get(key))];
  });
  if (peer) rows.push([peer.label, ...peer.cells, 'the same peer (one run)', '—', '—', '—', '—']);
  return {
    header: [
      'measurement',
      'SQLite',
      'target',
      'ok?',
      'PostgreSQL',
      'target',
      'ok?',
      'PostgreSQL, 2 processes',
      '2 vs 1',
    ],
    rows,
  };
}
