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

/** Rows read per statement: a page of a recording, so the whole log is never held. */
const PAGE_ROWS = 2000;

/**
 * The snapshot of a log whose meta values and head a backend has read in its one read
 * transaction: `page` reads the rows after an id up to another, at most `limit` of them, in that
 * same transaction, and `close` ends it.
 */
export function snapshotOf(
  head: { epoch: string | undefined; gapsText: string | undefined; headId: number },
  page: (afterId: number, toId: number, limit: number) => ChangeRecord[] | Promise<ChangeRecord[]>,
  close: () => Promise<void>,
): LogSnapshot {
  const { headId } = head;
  return {
    epoch: head.epoch,
    gaps: head.gapsText === undefined ? [] : (JSON.parse(head.gapsText) as EpochGap[]),
    headId,
    async *rows(afterId: number): AsyncGenerator<ChangeRecord> {
      for (let after = afterId; ;) {
        const rows = await page(after, headId, PAGE_ROWS);
        yield* rows;
        if (rows.length < PAGE_ROWS) return;
        after = rows[rows.length - 1]!.id;
      }
    },
    close,
  };
}
