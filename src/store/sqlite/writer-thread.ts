import type { Worker } from 'node:worker_threads';
import { BATCH_SQL, batchValues } from '../sql/batches.ts';
import { CHANGE_SQL } from '../sql/changes.ts';
import { EVENT_FIELDS, EVENT_SQL } from '../sql/events.ts';
import { MARKET_FIELDS, MARKET_SQL } from '../sql/markets.ts';
import type { Commit } from '../store.ts';
import { INSERT_CHANGE, KEY_SQL } from './change-insert.ts';
import { startThread, stopThread } from './store-thread.ts';

export interface WriterThreadOptions {
  /** The connection's wal_autocheckpoint, in pages (SqliteStore's, when a checkpointer runs). */
  autocheckpointPages?: number;
  /** The connection's journal_size_limit, in bytes. */
  walSizeLimit?: number;
  onError: (err: unknown) => void;
}

/**
 * Commits batches on a thread of its own, with a read-write connection of its own, so that SQLite's
 * work for a batch (the change rows' inserts and their indexes, the events' and markets' rows, the
 * COMMIT: about a third of the loop's time at 30,000 prices a second over HTTP) runs beside the event
 * loop, which meanwhile reads, parses and checks the next bodies. A commit resolves once the thread
 * has committed (so the loop's connection reads its rows) and rejects, with nothing written, when the
 * thread's transaction failed.
 *
 * The thread owns its map of event keys (`event_keys`): a key it does not hold is looked up before it
 * is added, so keys the loop's connection added (a fill's grouped commits) are found, and keys added
 * by a transaction that rolled back are forgotten. The loop's connection keeps its other writes
 * (compaction, packing, archiving, counters, secrets, meta); they take turns with the thread on
 * SQLite's write lock, the loop's waiting at most one commit of the thread (busy_timeout), and the
 * thread never waits for the loop, so neither can wait on the other in a circle.
 *
 * If the thread fails, the commits it holds are rejected and `alive` turns false: the store commits
 * on its own connection again. The thread starts at the first commit.
 */
export class WriterThread {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private stopped: Promise<void> | undefined;
  private failed = false;

  constructor(
    private readonly file: string,
    private readonly opts: WriterThreadOptions,
  ) {}

  /** Whether commits may go to the thread. */
  get alive(): boolean {
    return !this.failed && this.stopped === undefined;
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = startThread(
      WORKER_SOURCE,
      this.file,
      {
        sql: {
          change: INSERT_CHANGE,
          head: CHANGE_SQL.head.sqlite,
          market: MARKET_SQL.insert.sqlite,
          event: EVENT_SQL.upsert.sqlite,
          batch: BATCH_SQL.insert.sqlite,
          ...KEY_SQL,
        },
        fields: { market: MARKET_FIELDS, event: EVENT_FIELDS },
        autocheckpointPages: this.opts.autocheckpointPages,
        walSizeLimit: this.opts.walSizeLimit,
      },
      // A batch of a few thousand rows and its statements: more than the readers' threads hold.
      { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 16 },
    );
    worker.on('message', (m: { id: number; error?: string }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (this.pending.size === 0 && this.stopped === undefined) worker.unref();
      if (m.error === undefined) p.resolve();
      else p.reject(new Error(m.error));
    });
    const fail = (err: unknown) => {
      if (this.failed) return;
      this.failed = true;
      if (this.stopped === undefined) this.opts.onError(err);
      const error = err instanceof Error ? err : new Error(String(err));
      for (const p of this.pending.values()) p.reject(error);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.once('exit', (code) => fail(new Error(`the writer's thread exited (${code})`)));
    worker.unref();
    this.worker = worker;
    return worker;
  }

  /**
   * Commits `commit` on the thread, after the commits handed to it before. The batch goes as it is,
   * an array of row objects: of the forms measured for 1,000 price rows (docs/benchmarks.md), the
   * structured clone of the objects cost the loop least (flat arrays of values, columns, or the texts
   * written into one transferred buffer each cost more to build than the clone saves).
   */
  commit(commit: Commit): Promise<void> {
    const worker = this.thread();
    const id = this.nextId++;
    return new Promise<void>((resolve, reject) => {
      // Held open while a commit is pending: the process waits for it, not for an idle thread.
      if (this.pending.size === 0) worker.ref();
      this.pending.set(id, { resolve, reject });
      const { changes, markets, events } = commit;
      worker.postMessage({ id, changes, markets, events, batch: commit.batch ? batchValues(commit.batch) : null });
    });
  }

  /** Stops the thread once the commits handed to it are done; its connection is closed. */
  stop(): Promise<void> {
    if (this.failed) return Promise.resolve();
    this.stopped ??= this.worker ? stopThread(this.worker) : Promise.resolve();
    return this.stopped;
  }
}

// Messages are handled one at a time, in order; each commit is one transaction, and its answer is
// sent once SQLite has committed it.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const { sql, fields } = workerData;
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 5000');
if (workerData.autocheckpointPages !== undefined) db.pragma('wal_autocheckpoint = ' + workerData.autocheckpointPages);
if (workerData.walSizeLimit !== undefined) db.pragma('journal_size_limit = ' + workerData.walSizeLimit);
const insertChange = db.prepare(sql.change);
const headId = db.prepare(sql.head).pluck();
const insertMarket = db.prepare(sql.market);
const upsertEvent = db.prepare(sql.event);
const insertBatch = db.prepare(sql.batch);
const findKey = db.prepare(sql.findKey).pluck();
const insertKey = db.prepare(sql.insertKey);
const keys = new Map();
for (const k of db.prepare(sql.allKeys).all()) keys.set(k.event_id, k.key);
const added = [];
function keyOf(eventId) {
  let key = keys.get(eventId);
  if (key !== undefined) return key;
  key = findKey.get(eventId);
  if (key === undefined) key = Number(insertKey.run(eventId).lastInsertRowid);
  keys.set(eventId, key);
  added.push(eventId);
  return key;
}
const values = (record, fields) => fields.map((f) => record[f]);
const commit = db.transaction((c) => {
  // Ids only rise: a row below the head would be skipped by a reader whose cursor is at the head.
  const head = headId.get() ?? 0;
  for (const r of c.changes) {
    if (r.id <= head) throw new Error('change id ' + r.id + ' is not above the head ' + head);
  }
  for (const m of c.markets) insertMarket.run(values(m, fields.market));
  for (const r of c.changes) {
    insertChange.run(r.id, r.kind, keyOf(r.event_id), r.sport_id, r.at, r.committed_ms, r.price_id, r.affiliate_id,
      r.market_id, r.payload, r.detail);
  }
  for (const e of c.events) upsertEvent.run(values(e, fields.event));
  if (c.batch) insertBatch.run(c.batch);
});
parentPort.on('message', (m) => {
  if (m === 'stop') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    // BEGIN IMMEDIATE: begun deferred, the transaction's first read (the head) took a snapshot, and a
    // write committed meanwhile on the loop's connection (counters, keys) made its first insert fail
    // at once with SQLITE_BUSY, without waiting (measured: a counters save every 2 ms did it).
    commit.immediate(m);
    parentPort.postMessage({ id: m.id });
  } catch (err) {
    for (const eventId of added) keys.delete(eventId);
    parentPort.postMessage({ id: m.id, error: String((err && err.message) || err) });
  } finally {
    added.length = 0;
  }
});
`;
