import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

interface Waiting {
  resolve: (row: unknown[] | undefined) => void;
  reject: (err: Error) => void;
}

/**
 * Runs the store's large reads on a thread of its own, with a read-only connection of its own, so
 * that they never hold the event loop: a markets delta page read from the store (5,000 rows, about
 * 1.8 MB that SQLite joins) took tens of ms on the thread that serves requests, and 500 clients
 * asking for such pages kept every other request waiting. Write-ahead logging lets this reader run
 * beside the writer; a read sees every transaction committed before it begins, so a read asked for
 * after a commit has resolved sees that commit. Reads run one at a time, in the order asked.
 */
export class ReadThread {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  private stopped: Promise<void> | undefined;
  private exited = false;

  constructor(file: string, onError: (err: unknown) => void) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { file, driver },
      // What it reads leaves in buffers outside the heap, handed over rather than copied.
      resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 4 },
    });
    this.worker.on('message', (m: { id: number; row?: unknown[]; error?: string }) => {
      const w = this.waiting.get(m.id);
      if (!w) return;
      this.waiting.delete(m.id);
      if (this.waiting.size === 0) this.worker.unref();
      if (m.error !== undefined) w.reject(new Error(m.error));
      else w.resolve(m.row?.map((v) => (v instanceof Uint8Array ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v)));
    });
    this.worker.on('error', onError);
    this.worker.once('exit', () => {
      this.exited = true;
      for (const w of this.waiting.values()) w.reject(new Error('the store read thread exited'));
      this.waiting.clear();
    });
    this.worker.unref();
  }

  /** The first row of `sql` with `args`, as an array of its columns (BLOBs as Buffers), or undefined. */
  get(sql: string, args: readonly unknown[]): Promise<unknown[] | undefined> {
    if (this.exited || this.stopped) return Promise.reject(new Error('the store read thread is stopped'));
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.waiting.set(id, { resolve, reject });
      // Held open while a read is out, so that the process does not end before its answer.
      this.worker.ref();
      this.worker.postMessage({ id, sql, args });
    });
  }

  /** Stops the thread after the reads asked for; the connection is closed. */
  stop(): Promise<void> {
    if (this.exited) return Promise.resolve();
    this.stopped ??= new Promise<void>((resolve) => {
      this.worker.ref();
      this.worker.once('exit', () => resolve());
      this.worker.postMessage('stop');
    });
    return this.stopped;
  }
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000');
const statements = new Map();
parentPort.on('message', (m) => {
  if (m === 'stop') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    let st = statements.get(m.sql);
    if (!st) {
      st = db.prepare(m.sql).raw(true);
      statements.set(m.sql, st);
    }
    const row = st.get(...m.args);
    // A buffer that owns its memory whole is handed over, not copied.
    const transfer = [];
    for (const v of row || []) {
      if (v instanceof Uint8Array && v.byteOffset === 0 && v.byteLength === v.buffer.byteLength) transfer.push(v.buffer);
    }
    parentPort.postMessage({ id: m.id, row }, transfer);
  } catch (err) {
    parentPort.postMessage({ id: m.id, error: String((err && err.message) || err) });
  }
});
`;
