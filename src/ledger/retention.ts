import type { CompactResult } from '../store/retention.ts';
import type { Ledger } from './ledger.ts';
import { ARCHIVED_HEADERS_MS } from './retention-steps.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export interface RetentionOptions {
  /** Days of the log kept whole; 0 compacts nothing (finished events still leave the board). */
  days: number;
  /** Hours a finished event stays on the board after its last change. */
  boardKeepHours: number;
  /** Most ids one compaction step looks at. */
  batchRows: number;
  /** ms clock: the ledger's. */
  now: () => number;
}

/**
 * Retention as the ledger applies it: each step compacts one chunk of the log (a transaction of at
 * most `batchRows` ids, queued between the feed's batches, so neither requests nor the feed wait
 * long) and archives the events that have been over for `boardKeepHours`. A timer takes a step
 * every `tickMs`; a step still running when the timer fires is let finish.
 */
export class Retention {
  private timer?: NodeJS.Timeout;
  private running: Promise<unknown> | undefined;
  /** Rows dropped and events archived since the start. */
  dropped = 0;
  archived = 0;

  constructor(
    private readonly ledger: Ledger,
    private readonly opts: RetentionOptions,
    private readonly onError: (err: unknown) => void,
  ) {}

  start(tickMs: number): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.step()
        .catch(this.onError)
        .finally(() => {
          this.running = undefined;
        });
    }, tickMs);
    this.timer.unref();
  }

  /** Stops the timer; resolves once a step in flight is done. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One compaction chunk, then the archiving of finished events. */
  async step(): Promise<CompactResult | undefined> {
    const now = this.opts.now();
    let result: CompactResult | undefined;
    if (this.opts.days > 0) {
      result = await this.ledger.compact({ cutoffMs: now - this.opts.days * DAY_MS, maxRows: this.opts.batchRows });
      this.dropped += result.dropped;
    }
    this.archived += await this.ledger.archiveFinished(
      now - this.opts.boardKeepHours * HOUR_MS,
      now - ARCHIVED_HEADERS_MS,
    );
    return result;
  }

  /** Steps until the log is compacted up to the boundary of now (tests and benchmarks). */
  async catchUp(): Promise<void> {
    for (;;) {
      const r = await this.step();
      if (!r?.more) return;
    }
  }
}
