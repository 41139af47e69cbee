import type { Worker } from 'node:worker_threads';
import { startThread, stopThread } from './store-thread.ts';

/**
 * Runs the write-ahead log's checkpoints on a thread of its own, with its own connection, so that
 * their fsyncs never stall the event loop. SQLite's automatic checkpoint runs inside the writer's
 * commit, on the thread that serves requests: measured on a running simulator, about six fsyncs a
 * second there, up to 65 ms each on a quiet disk. While a checkpointer runs, the writer's own
 * automatic checkpoint waits for a much longer log (see SqliteStore).
 *
 * A PASSIVE checkpoint copies what no reader still needs and never blocks the writer; the log then
 * starts over at the writer's next commit once everything in it has been copied.
 */
export class Checkpointer {
  private readonly worker: Worker;
  private stopped: Promise<void> | undefined;
  private exited = false;

  constructor(file: string, everyMs: number, onError: (err: unknown) => void) {
    this.worker = startThread(WORKER_SOURCE, file, { everyMs });
    this.worker.on('message', (m: { error?: string }) => {
      if (m.error) onError(new Error(`checkpoint: ${m.error}`));
    });
    this.worker.on('error', onError);
    this.worker.once('exit', () => {
      this.exited = true;
    });
    this.worker.unref();
  }

  /** Stops the thread after any checkpoint in progress; the connection is closed. */
  stop(): Promise<void> {
    if (this.exited) return Promise.resolve();
    this.stopped ??= stopThread(this.worker);
    return this.stopped;
  }
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 1000');
db.pragma('cache_size = 64');
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (err) {
    parentPort.postMessage({ error: String(err && err.message || err) });
  }
}, workerData.everyMs);
parentPort.on('message', (m) => {
  if (m !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;
