import type { ChangeRecord, EpochGap } from '../changelog/change.ts';
import type { RecordedBatch, RecordedEntry } from '../changelog/recording.ts';

/**
 * One consistent view of a store's change log for reading it whole (`oddsbase record`): taken
 * beside a running server without its lock and without writing, the log's epoch, gaps and head, and
 * the rows up to that head with the named batches kept beside them, all as of one moment.
 */
export interface LogSnapshot {
  /** The log's epoch; undefined when the store has never been started. */
  epoch: string | undefined;
  /** The ids restores and fresh starts skipped (EPOCH_GAPS_META), oldest first. */
  gaps: EpochGap[];
  /** The newest row id as of the snapshot (0 when empty). */
  headId: number;
  /**
   * The rows after `afterId` up to `headId` in id order, read a page at a time as consumed, each
   * named batch whose head lies from `afterId` to `headId` right after the row it ended at: a
   * batch that changed nothing at `afterId` too, which a recording ending there could not hold.
   */
  entries(afterId: number): AsyncIterable<RecordedEntry>;
  /** Ends the snapshot; a running server's checkpoints may then go past it. */
  close(): Promise<void>;
}

/** Rows read per statement: a page of a recording, so the whole log is never held. */
const PAGE_ROWS = 2000;

/** How a backend reads, in its snapshot's one read transaction. */
export interface LogPages {
  /** The rows after an id up to another, at most `limit` of them, in id order. */
  rows(afterId: number, toId: number, limit: number): ChangeRecord[] | Promise<ChangeRecord[]>;
  /** The named batches whose head lies in [lo, hi], in log order (head, then commit time). */
  batches(lo: number, hi: number): RecordedBatch[] | Promise<RecordedBatch[]>;
}

/**
 * The snapshot of a log whose meta values and head a backend has read in its one read
 * transaction: `pages` reads in that same transaction, and `close` ends it.
 */
export function snapshotOf(
  head: { epoch: string | undefined; gapsText: string | undefined; headId: number },
  pages: LogPages,
  close: () => Promise<void>,
): LogSnapshot {
  const { headId } = head;
  return {
    epoch: head.epoch,
    gaps: head.gapsText === undefined ? [] : (JSON.parse(head.gapsText) as EpochGap[]),
    headId,
    async *entries(afterId: number): AsyncGenerator<RecordedEntry> {
      // Each page of rows brings the batches that ended within it: at most one a row, and those that changed nothing.
      for (let lo = afterId, after = afterId; ;) {
        const rows = await pages.rows(after, headId, PAGE_ROWS);
        const full = rows.length === PAGE_ROWS;
        const hi = full ? rows[rows.length - 1]!.id : headId;
        const batches = await pages.batches(lo, hi);
        let b = 0;
        for (const row of rows) {
          while (b < batches.length && batches[b]!.head_id < row.id) yield batches[b++]!;
          yield row;
        }
        while (b < batches.length) yield batches[b++]!;
        if (!full) return;
        after = hi;
        lo = hi + 1;
      }
    },
    close,
  };
}
