// What each request of one path costs the platform server, in figures that other work on the
// machine disturbs far less than throughput. Loaded into the server with
// NODE_OPTIONS="--require bench/lib/request-cost.cjs" (bench/request-cost.mjs does it):
//   COST_PATH    the request path's start to count (e.g. /uploads/form)
//   COST_OUT     the file a line is appended to when the process exits
//   COST_LABEL   the line's label
//   COST_PIDFILE where the server writes its pid (SIGUSR2 starts the count over: after warming up)
//   COST_STATEMENTS=0  leaves the statements uncounted (their wrappers cost a little CPU)
// Per request: the main thread's CPU time (/proc/self/task/<pid>/stat, utime + stime), the whole
// process's (process.cpuUsage: the WAL checkpointer's thread too), SQL statements (node-postgres's
// Client.query, better-sqlite3's statements and exec) and socket writes (net.Socket), sampled every
// 100 ms, over the samples in which requests arrived.
const fs = require('node:fs');
const path = process.env.COST_PATH;
if (!path || !process.argv.some((a) => a.includes('svc-platform'))) return;
const { createRequire } = require('node:module');
const http = require('node:http');
const net = require('node:net');

const TICK_US = 10_000; // /proc counts in clock ticks of 1/100 s
const mainCpu = () => {
  const fields = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_US;
};
const processCpu = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

const counts = { requests: 0, statements: 0, writes: 0 };
const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, req) {
  if (event === 'request' && req.url.startsWith(path)) counts.requests++;
  return emit.apply(this, arguments);
};
for (const method of ['_write', '_writev']) {
  const write = net.Socket.prototype[method];
  net.Socket.prototype[method] = function () {
    counts.writes++;
    return write.apply(this, arguments);
  };
}

if (process.env.COST_STATEMENTS !== '0') {
  const platformRequire = createRequire(require.resolve('../../packages/platform/package.json'));
  const pg = platformRequire('pg');
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function () {
    counts.statements++;
    return query.apply(this, arguments);
  };
  const Database = platformRequire('better-sqlite3').prototype;
  const prepare = Database.prepare;
  Database.prepare = function () {
    const statement = prepare.apply(this, arguments);
    for (const method of ['run', 'get', 'all', 'iterate']) {
      const run = statement[method];
      statement[method] = function () {
        counts.statements++;
        return run.apply(this, arguments);
      };
    }
    return statement;
  };
  const exec = Database.exec;
  Database.exec = function () {
    counts.statements++;
    return exec.apply(this, arguments);
  };
}

const sample = () => ({ ...counts, main: mainCpu(), process: processCpu() });
const samples = [sample()];
setInterval(() => samples.push(sample()), 100).unref();
if (process.env.COST_PIDFILE) fs.writeFileSync(process.env.COST_PIDFILE, String(process.pid));
process.on('SIGUSR2', () => samples.splice(0, samples.length, sample()));

let reported = false;
function report() {
  if (reported) return;
  reported = true;
  samples.push(sample());
  const busy = samples.filter((s, i) => i > 0 && s.requests > samples[i - 1].requests);
  if (busy.length < 2) return;
  const [from, to] = [samples[samples.indexOf(busy[0]) - 1], busy.at(-1)];
  const n = to.requests - from.requests;
  const per = (key, digits = 0) => ((to[key] - from[key]) / n).toFixed(digits);
  const line =
    `${process.env.COST_LABEL ?? ''} ${path}: ${n} requests, main thread ${per('main')} µs, process ${per('process')} µs, ` +
    `${process.env.COST_STATEMENTS === '0' ? '' : `${per('statements', 2)} statements, `}${per('writes', 2)} socket writes per request`;
  fs.appendFileSync(process.env.COST_OUT ?? 'request-cost.txt', `${line}\n`);
}
process.on('SIGTERM', report);
process.on('SIGINT', report);
process.on('exit', report);
