// bench/platform.mjs's measuring: autocannon against one server or, load split, several; a
// result as the cells of a table row (result, target, ok?).
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

export const fmt = (n, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const ms = (x) => `${fmt(x, x < 10 ? 2 : 1)} ms`;
/** What a measurement in which no request completed shows instead of its figures. */
const noneDone = (r) => `no request completed in ${fmt(r.seconds)} s${r.failed ? `; ${failedText(r)}` : ''}`;

/** One request by fetch first, so a wrong setup fails loudly instead of benchmarking error answers. */
async function check(url, next, valid) {
  const { method, path, headers, body } = next();
  const res = await fetch(url + path, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  if (!valid(res.status, text)) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
}

/** Runs autocannon for `seconds` against each of `urls` at once, `connections` split evenly
 * between them; the latencies come from the 'response' event because autocannon's own histogram
 * keeps whole milliseconds, too coarse for a 1 ms target. */
async function cannon(urls, next, connections, seconds) {
  const times = [];
  const results = await Promise.all(
    urls.map((url, i) => {
      const share = Math.floor(connections / urls.length) + (i < connections % urls.length ? 1 : 0);
      const instance = autocannon({
        url,
        connections: share,
        duration: seconds,
        requests: [{ setupRequest: (req) => Object.assign(req, next()) }],
      });
      instance.on('response', (_client, status, _bytes, ms) => status < 400 && times.push(ms));
      return instance;
    }),
  );
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? NaN;
  const failed = results.reduce((sum, r) => sum + r.non2xx + r.errors, 0); // autocannon's errors include its timeouts
  return {
    done: times.length,
    failed,
    why: failures(results),
    seconds: Math.max(...results.map((r) => r.duration)),
    p50: at(0.5),
    p99: at(0.99),
  };
}

/** What the failed requests of autocannon's `results` answered: `409 × 3, timeout × 1`. */
function failures(results) {
  const counts = new Map();
  const add = (what, n) => n && counts.set(what, (counts.get(what) ?? 0) + n);
  for (const r of results) {
    for (const [status, { count }] of Object.entries(r.statusCodeStats ?? {}))
      if (Number(status) >= 300) add(status, count);
    add('error', r.errors - r.timeouts);
    add('timeout', r.timeouts);
  }
  return [...counts].map(([what, n]) => `${what} × ${fmt(n)}`).join(', ');
}

/** "N failed (409 × N)". */
export const failedText = (r) => `${fmt(r.failed)} failed${r.why ? ` (${r.why})` : ''}`;

/** The CPU time (µs) counted in a /proc `stat` file (utime + stime, in clock ticks of 1/100 s);
 * undefined where there is none (not Linux, the process gone). */
function statCpu(stat) {
  try {
    const fields = readFileSync(stat, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return undefined;
  }
}

/** The CPU time a process's main thread has used. The main thread is where a Node server's
 * JavaScript runs: its time per request is a figure that other work on the machine disturbs far
 * less than throughput (a busy machine slows the requests, not the work each one takes). */
const mainThreadCpu = (pid) => statCpu(`/proc/${pid}/task/${pid}/stat`);

/** The CPU time of a whole process (every thread: the SQLite checkpointer's, libuv's). */
const processCpu = (pid) => statCpu(`/proc/${pid}/stat`);

/** A check on each server, a warm-up (JIT, the database's cache), then the measurement; with the
 * servers' `pids` (child processes), their main threads' CPU time per request (`cpuPerRequest`, µs)
 * and their whole processes' (`processCpuPerRequest`). */
export async function measure({ urls, next, valid, connections, pids = [] }, { seconds, warmup }) {
  if (connections < urls.length)
    throw new Error(`${connections} connections cannot be split between ${urls.length} servers`);
  for (const url of urls) await check(url, next, valid);
  await cannon(urls, next, connections, warmup);
  const cpu = (of = mainThreadCpu) => {
    let sum = 0;
    for (const pid of pids) {
      const time = of(pid);
      if (time === undefined) return undefined;
      sum += time;
    }
    return sum;
  };
  const before = pids.length ? [cpu(), cpu(processCpu)] : [];
  const r = await cannon(urls, next, connections, seconds);
  const after = pids.length ? [cpu(), cpu(processCpu)] : [];
  const requests = r.done + r.failed;
  const per = (i) =>
    before[i] === undefined || after[i] === undefined || !requests ? undefined : (after[i] - before[i]) / requests;
  return { ...r, cpuPerRequest: per(0), processCpuPerRequest: per(1) };
}

/** ", 432 µs server CPU/req" when it was measured. */
const cpuText = (r) => (r.cpuPerRequest === undefined ? '' : `, ${fmt(r.cpuPerRequest)} µs server CPU/req`);

/** Cells for a latency target, `p50 ≤ target` ms: result, target, ok?. */
export function latencyCells(r, target) {
  if (!r.done) return [noneDone(r), `p50 ≤ ${target} ms`, 'no'];
  const ok = r.p50 <= target && !r.failed;
  const miss = r.failed ? `no: ${failedText(r)}` : `no: p50 ${fmt(r.p50 / target, 2)}× the target`;
  return [
    `p50 ${ms(r.p50)} · p99 ${ms(r.p99)} (${fmt(r.done / r.seconds)} req/s${cpuText(r)})`,
    `p50 ≤ ${target} ms`,
    ok ? 'yes' : miss,
  ];
}

/** Units per second: `per` units per successful request. */
export const rateOf = (r, per) => (r.done * per) / r.seconds;

/** Cells for a throughput target, at least `target` units/s (none: '—'): result, target, ok?. */
export function throughputCells(r, { per, unit, target }) {
  const rate = rateOf(r, per);
  const result = !r.done
    ? noneDone(r)
    : `${fmt(rate)} ${unit}/s (${fmt(r.done / r.seconds, r.done / r.seconds < 100 ? 1 : 0)} req/s, p50 ${ms(r.p50)}${cpuText(r)})`;
  if (target === undefined) return [result, '—', '—'];
  const ok = rate >= target && !r.failed;
  const miss = r.failed ? `no: ${failedText(r)}` : `no: ${fmt((100 * rate) / target)} % of the target`;
  return [result, `≥ ${fmt(target)} ${unit}/s`, ok ? 'yes' : miss];
}
