import type { BatchTurn } from '../perf/batch-turn.ts';
import { LedgerBusyError } from './ledger-errors.ts';

/**
 * The one writer's queue: every batch and retention step runs after everything handed in before
 * it, so ids stay in commit order with an asynchronous store. Batches are admitted up to
 * `maxQueued` waiting at once (back-pressure); steps always are. Each starts after `turn`
 * (src/perf/batch-turn.ts), so that what the code that handed it in, or the batch before,
 * scheduled (an answer to a sender) goes out first.
 */
export class WriteQueue {
  private tail: Promise<void> = Promise.resolve();
  private queued = 0;

  constructor(
    private readonly maxQueued: number,
    private readonly turn: BatchTurn,
  ) {}

  /** Batches handed in and not yet committed. */
  get backlog(): number {
    return this.queued;
  }

  /** Runs `fn` after every batch and step handed in before it, as the one writer does everything. */
  serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = (this.turn ? this.tail.then(this.turn) : this.tail).then(fn);
    this.tail = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** As `serial` for a batch: refused at once with LedgerBusyError when `maxQueued` already wait. */
  admit<T>(fn: () => Promise<T>): Promise<T> {
    if (this.queued >= this.maxQueued) {
      return Promise.reject(
        new LedgerBusyError(`the ledger has ${this.queued} batches waiting; wait for them before sending more`),
      );
    }
    this.queued++;
    return this.serial(fn).finally(() => {
      this.queued--;
    });
  }

  /** Resolves once everything handed in so far has run. */
  settled(): Promise<void> {
    return this.tail;
  }
}
