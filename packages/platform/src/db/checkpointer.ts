/** WAL checkpoints off the main thread, while the platform serves a database file.
 *
 * A checkpoint copies the WAL's pages into the database file and fsyncs both. SQLite's default
 * runs it right after a commit on the committing thread, so every request waits for those
 * fsyncs (under write load, about a quarter of the server's time at a million contacts). Here a
 * worker thread with a connection of its own checkpoints every few milliseconds in PASSIVE mode
 * (it never blocks the writer). It cannot start the WAL over while the main thread keeps
 * committing, so when it reports that it has copied nearly all of a large WAL, the main thread
 * copies the last few pages after its next commit, and the next write starts the WAL afresh.
 * The main connection's own automatic checkpoint stays on at a larger size, in case the worker
 * falls behind or stops. */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { AUTOCHECKPOINT, type Db } from './open';

/** The worker: a checkpoint loop that reports `{log, checkpointed}` frames after each round. */
const WORKER = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 0');
let timer;
let last = '';
let delay = workerData.everyMs;
const round = () => {
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    const report = JSON.stringify(result);
    if (report != last) parentPort.postMessage(result);
    // Nothing new since the last round: wait longer, up to half a second, while idle. A WAL due
    // to start over: go on at once, so that the main thread finds little left to copy.
    delay = report == last ? Math.min(2 * delay, 500) : result.log >= workerData.restartAt ? 1 : workerData.everyMs;
    last = report;
  } catch {} // the database is busy in a way PASSIVE does not wait for: next round
  timer = setTimeout(round, delay);
};
parentPort.on('message', () => {
  clearTimeout(timer);
  db.close();
  parentPort.close();
});
round();
`;

export interface CheckpointerOptions {
  /** WAL frames (pages) after which the main thread finishes the worker's checkpoint. */
  restartAt?: number;
  /** The main connection's own automatic checkpoint while the worker runs. */
  fallbackAt?: number;
  everyMs?: number;
  onError?: (err: unknown) => void;
}

export interface Checkpointer {
  /** Call after a commit (outside any transaction). */
  afterCommit(this: void): void;
  stop(): Promise<void>;
}

export function startCheckpointer(db: Db, file: string, options: CheckpointerOptions = {}): Checkpointer {
  const { restartAt = AUTOCHECKPOINT, fallbackAt = 4 * AUTOCHECKPOINT, everyMs = 20 } = options;
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER, { eval: true, workerData: { file, driver, everyMs, restartAt } });
  worker.unref(); // never what keeps a process alive
  db.pragma(`wal_autocheckpoint = ${fallbackAt}`);
  const NOTHING = { log: 0, checkpointed: 0 };
  let report = NOTHING;
  let running = true;
  worker.on('message', (r: typeof report) => (report = r));
  const stopped = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      // Stopped or failed: the main connection checkpoints on its own again.
      running = false;
      if (db.open) db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT}`);
      resolve();
    }),
  );
  worker.on('error', (err) => options.onError?.(err));
  return {
    afterCommit() {
      if (!running || db.inTransaction || report.log < restartAt || report.log - report.checkpointed > restartAt / 4)
        return;
      try {
        // Done once every frame is copied; if the worker was copying at the same moment, the
        // next commit tries again.
        const [done] = db.pragma('wal_checkpoint(PASSIVE)') as (typeof report & { busy: number })[];
        if (!done.busy && done.log == done.checkpointed) report = NOTHING;
      } catch (err) {
        report = NOTHING;
        options.onError?.(err); // the fallback checkpoints later
      }
    },
    async stop() {
      worker.ref(); // until it has closed its connection, even if nothing else keeps the process up
      if (running) worker.postMessage('stop');
      await stopped;
    },
  };
}
