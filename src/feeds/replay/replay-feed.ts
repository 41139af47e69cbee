import { setTimeout as wait } from 'node:timers/promises';
import type { ChangeRecord } from '../../changelog/change.ts';
import type { RecordedBatch, RecordedEntry } from '../../changelog/recording.ts';
import type { RecordedSink } from '../../ledger/updates.ts';
import type { Feed } from '../feed.ts';

/** Rows handed to the ledger at most at once: a recorded commit larger than this goes in parts. */
export const REPLAY_BATCH_ROWS = 2000;

export interface ReplayOptions {
  /** The recording's rows in id order, and its named batches each after the row it ended at. */
  rows: AsyncIterable<RecordedEntry>;
  sink: RecordedSink;
  /**
   * The recorded timing scaled: a recorded gap of `t` ms between two commits is waited for `t / speed`
   * ms. 0 replays as fast as the ledger commits, with no waits.
   */
  speed: number;
  /** ms clock; tests inject one. */
  now?: () => number;
  /** Waits `ms` (tests inject one); rejects or resolves early when `signal` aborts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Told after each batch is committed: rows replayed so far and the last id. */
  onProgress?: (rows: number, lastId: number) => void;
}

export interface ReplayResult {
  /** Rows committed by this replay. */
  rows: number;
  /** Rows of the recording at or below the log's head when it began, left out (already there). */
  skipped: number;
  /** Whether it read the recording to its end (false when stopped). */
  complete: boolean;
}

const sleepFor = (ms: number, signal: AbortSignal) =>
  wait(ms, undefined, { signal }).catch((err: unknown) => {
    if ((err as Error).name !== 'AbortError') throw err;
  });

/**
 * Feeds a recorded change log back through the ledger (the only writer), as the rows were recorded,
 * with their original timing scaled by `speed`: each recorded commit (the rows that share a commit
 * time) is one batch, handed over once the scaled time since the first batch has passed, and awaited
 * before the next, so a replay never queues in the ledger. A named batch ends the batch of its rows
 * and is handed over with them (alone when it changed nothing). Rows at or below the log's head are
 * skipped: a replay stopped part way goes on where the store ends.
 */
export class ReplayFeed implements Feed {
  private readonly stopping = new AbortController();
  private running: Promise<ReplayResult> | undefined;
  private readonly now: () => number;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;

  constructor(private readonly opts: ReplayOptions) {
    this.now = opts.now ?? Date.now;
    this.sleep = opts.sleep ?? sleepFor;
  }

  start(): void {
    this.running ??= this.run();
    // Whoever awaits `done` is told of a failure; an unawaited one must not end the process.
    this.running.catch(() => undefined);
  }

  /** Settles when the replay ends: read to its end, stopped, or failed (a bad line, a refused batch). */
  get done(): Promise<ReplayResult> {
    this.start();
    return this.running!;
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running?.catch(() => undefined);
  }

  private async run(): Promise<ReplayResult> {
    const { sink, speed } = this.opts;
    const signal = this.stopping.signal;
    const result: ReplayResult = { rows: 0, skipped: 0, complete: false };
    let pace: { ms: number; at: number } | undefined;
    let batch: ChangeRecord[] = [];
    const flush = async (named?: RecordedBatch) => {
      const ms = batch[0]?.committed_ms ?? named!.committed_ms;
      if (speed > 0) {
        pace ??= { ms, at: this.now() };
        const due = pace.at + (ms - pace.ms) / speed - this.now();
        if (due > 0) await this.sleep(due, signal);
        if (signal.aborted) return;
      }
      await sink.applyRecorded(batch, named);
      result.rows += batch.length;
      if (batch.length > 0) this.opts.onProgress?.(result.rows, batch[batch.length - 1]!.id);
      batch = [];
    };
    const head = sink.headId;
    for await (const row of this.opts.rows) {
      if (signal.aborted) return result;
      if (row.kind === 'batch') {
        await flush(row);
        continue;
      }
      if (row.id <= head) {
        result.skipped++;
        continue;
      }
      const last = batch[batch.length - 1];
      if (last && (last.committed_ms !== row.committed_ms || batch.length >= REPLAY_BATCH_ROWS)) await flush();
      if (signal.aborted) return result;
      batch.push(row);
    }
    if (batch.length > 0) await flush();
    result.complete = !signal.aborted;
    return result;
  }
}
