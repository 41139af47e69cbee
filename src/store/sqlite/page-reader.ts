import type { Worker } from 'node:worker_threads';
import { SharedSlots } from './shared-slots.ts';
import { startThread, stopThread } from './store-thread.ts';

/** One statement of a page read: its SQL and arguments, read as a raw row. */
export interface PageStatements {
  /** `SELECT count(*), max(id), <bytes>` over the page's rows; its first argument is the cursor, its last the limit. */
  page: { sql: string; args: unknown[] };
  /** `SELECT 1` for a matching row after the page's last, taking the page's arguments with the cursor at that row and limit 1. */
  next: string;
}

/** What a page read gives back: as `SqliteStore.readPayloadBytes` returns it. */
export interface PageRead {
  count: number;
  lastRowId: number | null;
  bytes: Uint8Array | null;
  more: boolean;
  /** Set when `bytes` lie in a lent slot: gives the slot back (once; later calls do nothing). */
  release?: () => void;
}

/** What the thread answers to a page read: `length` bytes written into the slot, or `bytes` of their own. */
interface ThreadPage {
  count: number;
  lastRowId: number | null;
  bytes?: Uint8Array | null;
  length?: number;
  more: boolean;
}

/**
 * Slots for pages read on the thread: a chunk of 250 price rows is about 90 KB; 64 slots hold the
 * pages being read (two at once, 20 chunks each) and those still being written to clients. A page
 * read when all are lent, or larger than a slot, comes in a buffer of its own as before.
 */
export const PAGE_SLOTS = 64;
const SLOT_BYTES = 256 * 1024;

/** A statement whose rows are read whole, as objects (`Statement.all`). */
export interface RowStatement {
  sql: string;
  args: unknown[];
}

interface Reply {
  id: number;
  read?: PageRead | unknown[];
  error?: string;
}

/**
 * Reads pages of the change log on a thread of its own, with its own read-only connection, so that
 * SQLite's work for them never holds the event loop: 500 clients asking for 1.8 MB markets delta
 * pages at old cursors kept the loop 80-100% busy for 20 s, a third of it in those reads, and an
 * Ultra poll meanwhile waited for stalls of 30-70 ms in a row; a 5,000-row read of whole rows (the
 * UUID-cursor deltas, a stream's resume) held it 28-50 ms. The connection sees what was committed
 * when each statement starts (WAL), and reads only look at rows at or below the ledger's committed
 * head.
 *
 * Reads are answered in the order they were asked. If the thread fails, its pending reads are
 * rejected and `alive` turns false: the store then reads on its own connection again. The thread
 * starts at the first read (a server that never reads a page spares its start, about 120 ms of CPU).
 */
export class PageReader {
  private worker: Worker | undefined;
  private readonly slots: SharedSlots;
  private readonly pending = new Map<number, { resolve: (r: never) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private stopped: Promise<void> | undefined;
  private failed = false;

  constructor(
    private readonly file: string,
    private readonly onError: (err: unknown) => void,
  ) {
    this.slots = new SharedSlots(PAGE_SLOTS, SLOT_BYTES);
  }

  /** The thread, started on first use. */
  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = startThread(WORKER_SOURCE, this.file, { memory: this.slots.memory, slotBytes: SLOT_BYTES });
    worker.on('message', (m: Reply) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (this.pending.size === 0 && this.stopped === undefined) worker.unref();
      if (m.read) p.resolve(m.read as never);
      else p.reject(new Error(`page read: ${m.error}`));
    });
    const fail = (err: unknown) => {
      if (this.failed) return;
      this.failed = true;
      if (this.stopped === undefined) this.onError(err);
      const error = err instanceof Error ? err : new Error(String(err));
      for (const p of this.pending.values()) p.reject(error);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.once('exit', (code) => fail(new Error(`the page reader's thread exited (${code})`)));
    worker.unref();
    this.worker = worker;
    return worker;
  }

  /** Whether reads may go to the thread. */
  get alive(): boolean {
    return !this.failed && this.stopped === undefined;
  }

  /**
   * A page of payloads joined as bytes (the markets delta's), written by the thread into a slot of
   * shared memory when one is free: the caller then gives it back with `release` once the bytes are
   * written out or dropped.
   */
  async read(statements: PageStatements): Promise<PageRead> {
    const slot = this.slots.take();
    let page: ThreadPage;
    try {
      page = await this.ask<ThreadPage>({ page: statements.page, next: statements.next, slot });
    } catch (err) {
      if (slot !== undefined) this.slots.give(slot);
      throw err;
    }
    const { count, lastRowId, more } = page;
    if (slot === undefined || page.length === undefined) {
      // No slot was free, or the thread answered with bytes of their own.
      if (slot !== undefined) this.slots.give(slot);
      return { count, lastRowId, more, bytes: page.bytes ?? null };
    }
    let lent = true;
    const release = () => {
      if (!lent) return;
      lent = false;
      this.slots.give(slot);
    };
    return { count, lastRowId, more, bytes: this.slots.view(slot, page.length), release };
  }

  /** The rows of one statement, as objects: copied across, so a caller asks a few hundred at a time. */
  rows<T>(statement: RowStatement): Promise<T[]> {
    return this.ask({ rows: statement });
  }

  private ask<T>(message: object): Promise<T> {
    const id = this.nextId++;
    const worker = this.thread();
    return new Promise<T>((resolve, reject) => {
      // Held open while a read is pending: the process waits for its answer, not for an idle thread.
      if (this.pending.size === 0) worker.ref();
      this.pending.set(id, { resolve: resolve as (r: never) => void, reject });
      worker.postMessage({ id, ...message });
    });
  }

  /** Stops the thread once the reads asked before are answered; its connection is closed. */
  stop(): Promise<void> {
    if (this.failed) return Promise.resolve();
    this.stopped ??= this.worker ? stopThread(this.worker) : Promise.resolve();
    return this.stopped;
  }
}

// Messages are handled one at a time, in order. A page's bytes are written into the slot the read
// names when they fit, else handed over (not copied) when they are a buffer of their own.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const shared = new Uint8Array(workerData.memory);
const slotBytes = workerData.slotBytes;
const db = new Database(workerData.file, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000');
const statements = new Map();
function prepared(sql, raw = true) {
  const key = (raw ? 'raw:' : '') + sql;
  let st = statements.get(key);
  if (!st) {
    st = db.prepare(sql).raw(raw);
    statements.set(key, st);
  }
  return st;
}
parentPort.on('message', (m) => {
  if (m === 'stop') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    if (m.rows) {
      parentPort.postMessage({ id: m.id, read: prepared(m.rows.sql, false).all(...m.rows.args) });
      return;
    }
    const [count, lastRowId, bytes] = prepared(m.page.sql).get(...m.page.args);
    const limit = m.page.args[m.page.args.length - 1];
    let more = false;
    if (count >= limit && lastRowId !== null) {
      const args = m.page.args.slice();
      args[0] = lastRowId;
      args[args.length - 1] = 1;
      more = prepared(m.next).get(...args) !== undefined;
    }
    if (m.slot !== undefined && bytes && bytes.byteLength <= slotBytes) {
      shared.set(bytes, m.slot * slotBytes);
      parentPort.postMessage({ id: m.id, read: { count, lastRowId, length: bytes.byteLength, more } });
      return;
    }
    const own = bytes && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
    parentPort.postMessage({ id: m.id, read: { count, lastRowId, bytes, more } }, own ? [bytes.buffer] : []);
  } catch (err) {
    parentPort.postMessage({ id: m.id, error: String((err && err.message) || err) });
  }
});
`;
