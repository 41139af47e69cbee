import type { RetainedLog } from '../store/retention.ts';

/**
 * How far back the log is whole, as the readers check it on every request without asking the store:
 * the ledger raises it around each compaction step (the id before the step, so a delta cursor is
 * refused before its rows can go; the time after a step that dropped rows), and a start takes it
 * from the store (`Store.retained`).
 */
export class LogFloor {
  /** Every row with an id at or above this is kept: a delta cursor below `oldestId - 1` is refused. */
  oldestId: number;
  /** Every row whose `at` is at or after this (epoch ms) is kept: history reads start no earlier. */
  sinceMs: number | undefined;

  constructor(retained: RetainedLog = { oldestId: 1, sinceMs: undefined }) {
    this.oldestId = retained.oldestId;
    this.sinceMs = retained.sinceMs;
  }

  raiseId(id: number): void {
    if (id > this.oldestId) this.oldestId = id;
  }

  raiseSince(ms: number): void {
    if (this.sinceMs === undefined || ms > this.sinceMs) this.sinceMs = ms;
  }
}
