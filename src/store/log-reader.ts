import type { ChangeRecord, EpochGap } from '../changelog/change.ts';

/**
 * One consistent view of a store's change log for reading it whole (`oddsbase record`): taken
 * beside a running server without its lock and without writing, the log's epoch, gaps and head, and
 * the rows up to that head, all as of one moment.
 */
export interface LogSnapshot {
  /** The log's epoch; undefined when the store has never been started. */
  epoch: string | undefined;
  /** The ids restores and fresh starts skipped (EPOCH_GAPS_META), oldest first. */
  gaps: EpochGap[];
  /** The newest row id as of the snapshot (0 when empty). */
  headId: number;
  /** The rows after `afterId` up to `headId` in id order, read a page at a time as consumed. */
  rows(afterId: number): AsyncIterable<ChangeRecord>;
  /** Ends the snapshot; a running server's checkpoints may then go past it. */
  close(): Promise<void>;
}
